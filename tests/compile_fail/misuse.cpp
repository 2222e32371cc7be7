// Spellings that must not compile, one per NDCUDA_MISUSE value (0: the control, which must). Each
// is a trap for code ported from NumPy, where the same line would silently mean something else.
#include <ndcuda/ndcuda.hpp>

namespace nd = ndcuda;

void misuse(nd::ndarray<float>& x, nd::ndarray<double>& y, [[maybe_unused]] nd::ndarray<bool>& b) {
#if NDCUDA_MISUSE == 0
  // The intended spellings of each case below.
  auto v = nd::var(x, 1, nd::ddof(1), nd::keepdims);
  auto s = nd::sum(x, nd::keepdims);
  x(nd::ellipsis) = 3;
  x = y.astype<float>();
  auto d = b ^ b;
  nd::ndarray<float> picked = x(y.astype<std::int64_t>());  // an advanced index, read where it is made
  nd::ndarray<float> z = (x - 1.0F) * 2.0F;                 // a lazy value named as an array, then written
  z(b) = 0.0F;
  nd::ndarray<float> narrowed = y * 2.0;  // float64 -> float32: same_kind, implicit as NumPy's out=
  nd::ndarray<int> truncated = (x * 2.5F).astype<int>();
  (void)narrowed;
  (void)truncated;
  (void)v;
  (void)s;
  (void)d;
  (void)picked;
#elif NDCUDA_MISUSE == 1
  auto v = nd::var(x, 1, true);  // would be ddof=1 in a positional API: keepdims must be typed
  (void)v;
#elif NDCUDA_MISUSE == 2
  auto s = nd::sum(x, true);  // would be axis=1 through bool -> int
  (void)s;
#elif NDCUDA_MISUSE == 3
  x = 3;  // NumPy would rebind x to a scalar; a fill is x(nd::ellipsis) = 3
#elif NDCUDA_MISUSE == 4
  x = y;  // NumPy would rebind x to a float64 array; ndarray<float> cannot hold one
#elif NDCUDA_MISUSE == 5
  auto d = b - b;  // NumPy raises TypeError: bools have ^ (logical_xor), not subtraction
  (void)d;
#elif NDCUDA_MISUSE == 6
  auto d = nd::subtract(b, true);  // the same row, so the same message as `b - b`
  (void)d;
#elif NDCUDA_MISUSE == 7
  auto p = x(y.astype<std::int64_t>());  // NumPy's p = 0 would rebind p; a proxy cannot
  p = 0.0F;
#elif NDCUDA_MISUSE == 8
  nd::ndarray<float> r = x(y);  // NumPy: IndexError, arrays used as indices must be integers
  (void)r;
#elif NDCUDA_MISUSE == 9
  auto z = (x - 1.0F) * 2.0F;  // an expression: z(b) reads a computed copy, so the write would be lost
  z(b) = 0.0F;
#elif NDCUDA_MISUSE == 10
  nd::ndarray<int> k = x * 2.5F;  // float -> int truncates: NumPy's same_kind refuses it; write astype<int>()
  (void)k;
#endif
}
