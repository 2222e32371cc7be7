// The README's taste as a whole program, compiled (never run) at -O3 -Wall -Wextra -Werror like
// warnings_check.cpp, but alone: g++ 12 reported -Wrestrict here (a scalar leaf's name built by
// "s" + std::to_string in an inlined emitter), and only when main stays this small.
#include <iostream>
#include <ndcuda/fft.hpp>
#include <ndcuda/linalg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>

namespace nd = ndcuda;

int main() {
  auto a = nd::zeros<float>({4, 4});
  auto b = nd::arange<float>(4);
  nd::ndarray<float> d = a + 2.0f * nd::sin(b);
  d += 1.0f;
  auto s = nd::sum(d, 0);
  auto p = nd::matmul(a, a.T());
  auto g = nd::random::default_rng(42);
  auto r = g.normal<float>({4});
  auto f = nd::fft::rfft(b);
  std::cout << d << s << p << r << f << '\n';
  return 0;
}
