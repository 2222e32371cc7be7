// k-means as a NumPy user writes it: argmin for the labels, bincount and add_at for the new
// centroids, then take_along_axis, topk, histogram and a static-size mask read on the result; every
// figure is checked against the same computation on the host in double precision.
// Without a GPU it prints one line, "no CUDA device available: <why>", and exits with status 2.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <vector>

namespace nd = ndcuda;

namespace {

constexpr std::int64_t n = 200000;  // points
constexpr std::int64_t k = 8;       // clusters
constexpr int iterations = 4;

// n 2-d points around k centres on a circle of radius 20 (noise 1, so the clusters are far apart
// and float32 and float64 agree on every label); point i belongs to cluster i % k.
std::vector<float> make_points() {
  std::mt19937 gen(7);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(2 * n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double angle = 2.0 * 3.141592653589793 * static_cast<double>(i % k) / k;
    x[static_cast<std::size_t>(2 * i)] = static_cast<float>(20.0 * std::cos(angle)) + noise(gen);
    x[static_cast<std::size_t>(2 * i + 1)] = static_cast<float>(20.0 * std::sin(angle)) + noise(gen);
  }
  return x;
}

double squared_distance(const std::vector<float>& x, std::int64_t i, const std::vector<double>& c, std::int64_t j) {
  const double dx = x[static_cast<std::size_t>(2 * i)] - c[static_cast<std::size_t>(2 * j)];
  const double dy = x[static_cast<std::size_t>(2 * i + 1)] - c[static_cast<std::size_t>(2 * j + 1)];
  return dx * dx + dy * dy;
}

// Each point's nearest centroid.
std::vector<std::int64_t> host_assign(const std::vector<float>& x, const std::vector<double>& c) {
  std::vector<std::int64_t> labels(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t best = 0;
    for (std::int64_t j = 1; j < k; ++j) {
      if (squared_distance(x, i, c, j) < squared_distance(x, i, c, best)) {
        best = j;
      }
    }
    labels[static_cast<std::size_t>(i)] = best;
  }
  return labels;
}

// The same iterations on the host in double, then the final assignment.
void host_kmeans(const std::vector<float>& x, std::vector<double>& c, std::vector<std::int64_t>& labels) {
  for (int it = 0; it < iterations; ++it) {
    labels = host_assign(x, c);
    std::vector<double> sums(static_cast<std::size_t>(2 * k), 0.0);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(k), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t best = labels[static_cast<std::size_t>(i)];
      counts[static_cast<std::size_t>(best)] += 1;
      sums[static_cast<std::size_t>(2 * best)] += x[static_cast<std::size_t>(2 * i)];
      sums[static_cast<std::size_t>(2 * best + 1)] += x[static_cast<std::size_t>(2 * i + 1)];
    }
    for (std::int64_t j = 0; j < 2 * k; ++j) {
      c[static_cast<std::size_t>(j)] =
          sums[static_cast<std::size_t>(j)] /
          static_cast<double>(std::max<std::int64_t>(counts[static_cast<std::size_t>(j / 2)], 1));
    }
  }
  labels = host_assign(x, c);
}

bool close(double got, double want, double tol) {
  return std::abs(got - want) <= tol * (1.0 + std::abs(want));
}

}  // namespace

int main() {
  try {
    nd::require_devices(1);
  } catch (const nd::device_error& e) {
    std::cerr << e.what() << "\n";  // no GPU: the one line the header promises, status 2
    return 2;
  }
  try {
    const std::vector<float> host_x = make_points();
    const auto x = nd::asarray<float>(host_x, {n, 2});

    // Initial centroids: the first k points (one per cluster), np.take(x, range(k), axis=0).
    nd::ndarray<float> c = nd::take(x, nd::arange<std::int64_t>(k), 0);
    nd::ndarray<std::int64_t> labels;
    nd::ndarray<float> d2;
    const auto assign = [&] {
      // d2 = ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1); labels = d2.argmin(1)
      const auto diff = x(nd::all, nd::newaxis, nd::all) - c(nd::newaxis, nd::all, nd::all);
      d2 = nd::sum(diff * diff, 2);
      labels = nd::argmin(d2, 1);
    };
    for (int it = 0; it < iterations; ++it) {
      assign();
      // counts = np.bincount(labels, minlength=k); np.add.at(sums, labels, x)
      const nd::ndarray<float> counts = nd::bincount(labels, nd::size(k)).astype<float>();
      const auto sums = nd::zeros<float>({k, 2});
      nd::add_at(sums, labels, x);
      c = sums / nd::maximum(counts.reshape({k, 1}), 1.0f);
    }
    assign();  // the final labels, and the distances to the final centroids

    // Each point's squared distance to its own centroid: np.take_along_axis(d2, labels[:, None], 1).
    const nd::ndarray<float> own = nd::take_along_axis(d2, labels.reshape({n, 1}), 1).reshape({n});
    auto [far, far_at] = nd::topk(own, 5);                             // the 5 worst-fitting points
    const auto hist = nd::histogram(own, 8, nd::bin_range{0.0, 8.0});  // how tight the clusters are
    // The first 16 points of cluster 3, with a static size (no host wait: capturable).
    const nd::ndarray<float> first3 = x(labels == std::int64_t{3}, nd::size(16), -1.0f);

    // ---- the host reference ----
    std::vector<double> host_c(static_cast<std::size_t>(2 * k));
    std::copy(host_x.begin(), host_x.begin() + 2 * k, host_c.begin());
    std::vector<std::int64_t> host_labels;
    host_kmeans(host_x, host_c, host_labels);

    int wrong = 0;
    const std::vector<float> got_c = c.to_host();
    for (std::size_t j = 0; j < got_c.size(); ++j) {
      wrong += close(got_c[j], host_c[j], 1e-4) ? 0 : 1;
    }
    const std::vector<std::int64_t> got_labels = labels.to_host();
    wrong += got_labels == host_labels ? 0 : 1;
    std::vector<double> host_own(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      host_own[static_cast<std::size_t>(i)] =
          squared_distance(host_x, i, host_c, host_labels[static_cast<std::size_t>(i)]);
    }
    std::vector<double> sorted_own = host_own;
    std::sort(sorted_own.begin(), sorted_own.end(), std::greater<>());
    const std::vector<float> got_far = far.to_host();
    const std::vector<std::int64_t> got_far_at = far_at.to_host();
    for (std::size_t p = 0; p < got_far.size(); ++p) {
      wrong += close(got_far[p], sorted_own[p], 1e-3) ? 0 : 1;
      wrong += close(host_own[static_cast<std::size_t>(got_far_at[p])], got_far[p], 1e-3) ? 0 : 1;
    }
    // The histogram of the device's own distances (edges 0, 1, ..., 8 are exact).
    const std::vector<float> own_h = own.to_host();
    std::vector<std::int64_t> host_hist(8, 0);
    for (const float v : own_h) {
      if (v >= 0.0f && v <= 8.0f) {
        host_hist[static_cast<std::size_t>(std::min(7.0f, std::floor(v)))] += 1;
      }
    }
    wrong += hist.counts.to_host() == host_hist ? 0 : 1;
    std::vector<float> host_first3;
    for (std::int64_t i = 0; i < n && host_first3.size() < 32; ++i) {
      if (host_labels[static_cast<std::size_t>(i)] == 3) {
        host_first3.push_back(host_x[static_cast<std::size_t>(2 * i)]);
        host_first3.push_back(host_x[static_cast<std::size_t>(2 * i + 1)]);
      }
    }
    wrong += first3.to_host() == host_first3 ? 0 : 1;

    std::cout << "k-means of " << n << " points into " << k << " clusters, " << iterations << " iterations\n"
              << "centroids:\n"
              << c << "\nworst-fitting points (squared distance): " << far << " at " << far_at
              << "\nhistogram of squared distances over [0, 8): " << hist.counts << "\nfirst points of cluster 3:\n"
              << first3(nd::slice(0, 4)) << "\n";
    if (wrong != 0) {
      std::cerr << wrong << " checks against the host computation failed\n";
      return 1;
    }
    std::cout << "all checks against the host computation passed\n";
    return 0;
  } catch (const nd::error& e) {
    std::cerr << "ndcuda error: " << e.what() << "\n";
    return 1;
  }
}
