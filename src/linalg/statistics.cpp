// cov's host half: NumPy's checks of fweights and aweights, with its messages, and its divisor.
// Builds on include/ndcuda/linalg/statistics.hpp.
#include <cmath>
#include <ndcuda/core/error.hpp>
#include <ndcuda/linalg/statistics.hpp>
#include <string>

namespace ndcuda::linalg::detail {
namespace {

void check_weights(const std::vector<double>& w, index_t n, const char* name) {
  if (static_cast<index_t>(w.size()) != n) {
    throw shape_error(std::string("incompatible numbers of samples and ") + name + " (" + std::to_string(w.size()) +
                      " weights for " + std::to_string(n) + " observations)");
  }
  for (double v : w) {
    if (v < 0) {
      throw value_error(std::string(name) + " cannot be negative");
    }
  }
}

}  // namespace

std::optional<std::vector<double>> cov_weights(const cov_options& o, index_t n) {
  std::optional<std::vector<double>> w;
  if (o.fweights) {
    for (double v : *o.fweights) {
      if (v != std::nearbyint(v)) {
        throw type_error("fweights must be integer");
      }
    }
    check_weights(*o.fweights, n, "fweights");
    w = *o.fweights;
  }
  if (o.aweights) {
    check_weights(*o.aweights, n, "aweights");
    if (!w) {
      w = *o.aweights;
    } else {
      for (std::size_t i = 0; i < w->size(); ++i) {
        (*w)[i] *= (*o.aweights)[i];
      }
    }
  }
  if (w) {
    double sum = 0;
    for (double v : *w) {
      sum += v;
    }
    if (sum == 0.0) {
      throw value_error("Weights sum to zero, can't be normalized");
    }
  }
  return w;
}

double cov_divisor(const cov_options& o, const std::optional<std::vector<double>>& w, index_t n) {
  const int ddof = o.ddof ? *o.ddof : (o.bias ? 0 : 1);
  double fact = 0;
  if (!w) {
    fact = static_cast<double>(n - ddof);
  } else {
    double w_sum = 0;
    for (double v : *w) {
      w_sum += v;
    }
    if (ddof == 0) {
      fact = w_sum;
    } else if (!o.aweights) {
      fact = w_sum - ddof;
    } else {
      double wa = 0;
      for (std::size_t i = 0; i < w->size(); ++i) {
        wa += (*w)[i] * (*o.aweights)[i];
      }
      fact = w_sum - ddof * wa / w_sum;
    }
  }
  return fact <= 0 ? 0.0 : fact;  // NumPy warns "Degrees of freedom <= 0 for slice" and uses 0
}

}  // namespace ndcuda::linalg::detail
