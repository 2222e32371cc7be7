// Host references in double / complex<double> for the linalg tests: matmul with NumPy's
// broadcasting, LU solve and determinant. Independent of ndcuda's device code.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace ndcuda::testing {

using cd = std::complex<double>;

/// A dense host matrix (row-major) of complex<double>: real tests just leave the imaginary part 0.
struct host_matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<cd> v;
  cd& operator()(std::int64_t i, std::int64_t j) { return v[static_cast<std::size_t>(i * cols + j)]; }
  cd operator()(std::int64_t i, std::int64_t j) const { return v[static_cast<std::size_t>(i * cols + j)]; }
};

inline host_matrix host_matmul(const host_matrix& a, const host_matrix& b) {
  host_matrix c{a.rows, b.cols, std::vector<cd>(static_cast<std::size_t>(a.rows * b.cols))};
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t j = 0; j < b.cols; ++j) {
      cd acc = 0;
      for (std::int64_t k = 0; k < a.cols; ++k) {
        acc += a(i, k) * b(k, j);
      }
      c(i, j) = acc;
    }
  }
  return c;
}

/// sum_k |a_ik| |b_kj|: the scale of the rounding error of element (i, j) of a product.
inline double product_scale(const host_matrix& a, const host_matrix& b, std::int64_t i, std::int64_t j) {
  double s = 0;
  for (std::int64_t k = 0; k < a.cols; ++k) {
    s += std::abs(a(i, k)) * std::abs(b(k, j));
  }
  return s;
}

/// Gaussian elimination with partial pivoting: det of a square matrix.
inline cd host_det(host_matrix a) {
  const std::int64_t n = a.rows;
  cd det = 1;
  for (std::int64_t c = 0; c < n; ++c) {
    std::int64_t p = c;
    for (std::int64_t r = c + 1; r < n; ++r) {
      if (std::abs(a(r, c)) > std::abs(a(p, c))) {
        p = r;
      }
    }
    if (a(p, c) == cd(0)) {
      return 0;
    }
    if (p != c) {
      for (std::int64_t j = 0; j < n; ++j) {
        std::swap(a(p, j), a(c, j));
      }
      det = -det;
    }
    det *= a(c, c);
    for (std::int64_t r = c + 1; r < n; ++r) {
      const cd f = a(r, c) / a(c, c);
      for (std::int64_t j = c; j < n; ++j) {
        a(r, j) -= f * a(c, j);
      }
    }
  }
  return det;
}

/// x with a x = b (b: n x k), Gaussian elimination with partial pivoting.
inline host_matrix host_solve(host_matrix a, host_matrix b) {
  const std::int64_t n = a.rows;
  for (std::int64_t c = 0; c < n; ++c) {
    std::int64_t p = c;
    for (std::int64_t r = c + 1; r < n; ++r) {
      if (std::abs(a(r, c)) > std::abs(a(p, c))) {
        p = r;
      }
    }
    for (std::int64_t j = 0; j < n; ++j) {
      std::swap(a(p, j), a(c, j));
    }
    for (std::int64_t j = 0; j < b.cols; ++j) {
      std::swap(b(p, j), b(c, j));
    }
    for (std::int64_t r = c + 1; r < n; ++r) {
      const cd f = a(r, c) / a(c, c);
      for (std::int64_t j = c; j < n; ++j) {
        a(r, j) -= f * a(c, j);
      }
      for (std::int64_t j = 0; j < b.cols; ++j) {
        b(r, j) -= f * b(c, j);
      }
    }
  }
  for (std::int64_t c = n; c-- > 0;) {
    for (std::int64_t j = 0; j < b.cols; ++j) {
      cd acc = b(c, j);
      for (std::int64_t k = c + 1; k < n; ++k) {
        acc -= a(c, k) * b(k, j);
      }
      b(c, j) = acc / a(c, c);
    }
  }
  return b;
}

/// Uniform values in [-1, 1) (real and imaginary parts for complex).
inline host_matrix random_matrix(std::int64_t rows, std::int64_t cols, bool complex_values) {
  const auto n = static_cast<std::size_t>(rows * cols);
  if (complex_values) {
    return {rows, cols, uniform_values<cd>(n, -1.0, 1.0)};
  }
  const std::vector<double> re = uniform_values<double>(n, -1.0, 1.0);
  return {rows, cols, std::vector<cd>(re.begin(), re.end())};
}

}  // namespace ndcuda::testing
