// Fuzz target: index, reshape and broadcast math on random shapes (core/shape.hpp,
// core/checked_size.hpp, array/view_math.hpp). Sizes are checked against a 128-bit reference, and
// every view derived from a valid array must stay inside that array's buffer, visit the same
// elements when reshaped without a copy, and refuse what it cannot describe with shape_error only.
//
// sources: src/core/shape.cpp src/core/checked_size.cpp src/array/view_math.cpp
// fuzz-sources: src/array/view_math.cpp
// (src/core/*.cpp, which holds the other two, is linked into every target.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>
#include <vector>

namespace nd = ndcuda;

namespace {

using i128 = __int128;
constexpr nd::index_t max_index = std::numeric_limits<nd::index_t>::max();
constexpr nd::index_t min_index = std::numeric_limits<nd::index_t>::min();

// Reads the input front to back; past its end, zeros.
class input {
 public:
  input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  [[nodiscard]] bool done() const { return at_ >= size_; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
      v = v << 8 | byte();
    }
    return v;
  }
  // Mostly small values, with the edges that break arithmetic often enough to matter.
  nd::index_t extent() {
    const std::uint8_t pick = byte();
    switch (pick % 16) {
      case 0:
        return 0;
      case 1:
        return -1 - static_cast<nd::index_t>(byte() % 3);
      case 2:
        return nd::index_t{1} << (byte() % 64 == 63 ? 62 : byte() % 63);
      case 3:
        return max_index - static_cast<nd::index_t>(byte() % 2);
      case 4:
        return min_index + static_cast<nd::index_t>(byte() % 2);
      case 5:
        return static_cast<nd::index_t>(u64());
      default:
        return 1 + pick % 7;
    }
  }
  nd::index_t small_or_edge() {
    const std::uint8_t pick = byte();
    switch (pick % 8) {
      case 0:
        return max_index;
      case 1:
        return min_index;
      case 2:
        return static_cast<nd::index_t>(u64());
      default:
        return static_cast<nd::index_t>(static_cast<std::int8_t>(byte()));
    }
  }
  nd::shape_t shape(std::size_t max_ndim) {
    nd::shape_t s(byte() % (max_ndim + 1));
    for (auto& e : s) {
      e = extent();
    }
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "shape_fuzz: %s\n", what);
    __builtin_trap();
  }
}

// What NumPy accepts: no negative extent, and the product of the non-zero extents times itemsize
// at most 2^63-1 bytes.
bool reference_fits(const nd::shape_t& shape, i128 itemsize, i128* elements) {
  i128 product = itemsize;
  bool zero = false;
  for (nd::index_t e : shape) {
    if (e < 0) {
      return false;
    }
    if (e == 0) {
      zero = true;
      continue;
    }
    product *= e;
    if (product > max_index) {
      return false;
    }
  }
  *elements = zero ? 0 : product / itemsize;
  return true;
}

template <class F>
bool refuses(F&& f) {
  try {
    f();
    return false;
  } catch (const nd::shape_error&) {
    return true;
  }
}

void fuzz_sizes(input& in) {
  const nd::shape_t shape = in.shape(6);
  const std::size_t itemsize = std::size_t{1} << (in.byte() % 5);
  i128 elements = 0;
  const bool fits_elements = reference_fits(shape, 1, &elements);
  const bool fits_bytes = reference_fits(shape, static_cast<i128>(itemsize), &elements);
  nd::index_t size = -1;
  check(refuses([&] { size = nd::shape_size(shape); }) == !fits_elements, "shape_size accepts what NumPy does");
  if (fits_elements) {
    reference_fits(shape, 1, &elements);
    check(size == elements, "shape_size is exact");
    const nd::strides_t strides = nd::c_strides(shape);
    check(nd::is_c_contiguous(shape, strides), "C strides are C-contiguous");
  }
  std::size_t bytes = 0;
  check(refuses([&] { bytes = nd::checked_nbytes(shape, itemsize); }) == !fits_bytes, "checked_nbytes's limit");
  if (fits_bytes) {
    check(static_cast<i128>(bytes) == elements * static_cast<i128>(itemsize), "checked_nbytes is exact");
  }
  const nd::index_t count = in.small_or_edge();
  const i128 wide = static_cast<i128>(count) * static_cast<i128>(itemsize);
  std::size_t counted = 0;
  check(refuses([&] { counted = nd::checked_bytes(count, itemsize); }) == (count < 0 || wide > max_index),
        "checked_bytes's limit");
}

void fuzz_broadcast(input& in) {
  const nd::shape_t a = in.shape(5);
  const nd::shape_t b = in.shape(5);
  nd::shape_t result;
  if (refuses([&] { result = nd::broadcast_shapes(a, b); })) {
    return;
  }
  i128 elements = 0;
  check(reference_fits(result, 1, &elements), "a broadcast shape has a size");
  for (const nd::shape_t* operand : {&a, &b}) {
    const nd::strides_t strides = nd::c_strides(*operand);  // operands are valid shapes here
    nd::strides_t seen;
    check(!refuses([&] { seen = nd::broadcast_strides(*operand, strides, result); }),
          "each operand broadcasts to the broadcast shape");
    check(seen.size() == result.size(), "one stride per result axis");
    check(!refuses([&] { nd::check_assignable(*operand, result); }), "each operand is assignable to the result");
  }
  // A random target: accepted exactly when NumPy's assignment rule holds and the target is valid.
  const nd::shape_t target = in.shape(5);
  bool assignable = a.size() <= target.size();
  for (std::size_t i = 0; assignable && i < a.size(); ++i) {
    const nd::index_t t = target[target.size() - a.size() + i];
    assignable = a[i] == t || a[i] == 1;
  }
  check(refuses([&] { nd::check_assignable(a, target); }) == !assignable, "check_assignable is NumPy's rule");
}

// A random basic index of up to 6 items.
std::vector<nd::index_item> random_index(input& in) {
  std::vector<nd::index_item> items(in.byte() % 7);
  for (auto& item : items) {
    switch (in.byte() % 6) {
      case 0:
        item = in.small_or_edge();
        break;
      case 1:
      case 2: {
        nd::slice s;
        if (in.byte() % 2 != 0) {
          s.start = in.small_or_edge();
        }
        if (in.byte() % 2 != 0) {
          s.stop = in.small_or_edge();
        }
        s.step = in.small_or_edge();
        item = s;
        break;
      }
      case 3:
        item = nd::all;
        break;
      case 4:
        item = nd::newaxis;
        break;
      default:
        item = nd::ellipsis;
        break;
    }
  }
  return items;
}

std::vector<nd::index_t> random_axes(input& in, std::size_t max_count) {
  std::vector<nd::index_t> axes(in.byte() % (max_count + 1));
  for (auto& a : axes) {
    a = static_cast<nd::index_t>(static_cast<std::int8_t>(in.byte()) % 12);
  }
  return axes;
}

// Every element of `v` lies inside a buffer of `buffer` elements.
void check_inside(const nd::view_layout& v, i128 buffer) {
  check(v.shape.size() == v.strides.size(), "one stride per axis");
  i128 low = v.offset;
  i128 high = v.offset;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    check(v.shape[d] >= 0, "no negative extent in a view");
    if (v.shape[d] == 0) {
      return;
    }
    const i128 reach = static_cast<i128>(v.strides[d]) * (v.shape[d] - 1);
    (reach < 0 ? low : high) += reach;
  }
  check(low >= 0 && high < buffer, "a view stays inside its array's buffer");
}

// The element offsets of `v` in C order (only for small views).
std::vector<nd::index_t> elements_of(const nd::view_layout& v) {
  std::vector<nd::index_t> out;
  const nd::index_t n = nd::shape_size(v.shape);
  out.reserve(static_cast<std::size_t>(n));
  std::vector<nd::index_t> at(v.shape.size(), 0);
  for (nd::index_t i = 0; i < n; ++i) {
    nd::index_t offset = v.offset;
    for (std::size_t d = 0; d < at.size(); ++d) {
      offset += at[d] * v.strides[d];
    }
    out.push_back(offset);
    for (std::size_t d = at.size(); d-- > 0;) {
      if (++at[d] < v.shape[d]) {
        break;
      }
      at[d] = 0;
    }
  }
  return out;
}

void fuzz_views(input& in) {
  const nd::shape_t base = in.shape(6);
  nd::index_t buffer = 0;
  if (refuses([&] { buffer = nd::shape_size(base); }) || buffer == 0) {
    return;
  }
  nd::view_layout v = nd::contiguous_layout(base);
  for (int step = 0; step < 8 && !in.done(); ++step) {
    nd::view_layout next = v;
    nd::index_t copied = 0;  // the size of the new buffer when the step copies
    const std::uint8_t op = in.byte() % 8;
    const bool refused = refuses([&] {
      switch (op) {
        case 0: {
          const auto items = random_index(in);
          next = nd::apply_index(v, items);
          break;
        }
        case 1:
          next = nd::transpose_layout(v, random_axes(in, 8));
          break;
        case 2:
          next = nd::swapaxes_layout(v, in.small_or_edge(), in.small_or_edge());
          break;
        case 3:
          next = nd::squeeze_layout(v, random_axes(in, 3));
          break;
        case 4:
          next = nd::expand_dims_layout(v, random_axes(in, 3));
          break;
        case 5:
          next = nd::broadcast_layout(v, in.shape(6));
          break;
        default: {
          nd::shape_t requested = in.shape(6);
          if (in.byte() % 2 != 0 && !requested.empty()) {
            requested[in.byte() % requested.size()] = -1;
          }
          const nd::index_t size = nd::shape_size(v.shape);
          const nd::shape_t resolved = nd::resolve_reshape(size, requested);
          check(nd::shape_size(resolved) == size, "a resolved reshape keeps the size");
          if (auto strides = nd::reshape_strides(v, resolved)) {
            next = {resolved, *strides, v.offset};
            if (size <= 2048) {
              check(elements_of(next) == elements_of(v), "a reshaped view visits the same elements in C order");
            }
          } else {
            next = nd::contiguous_layout(resolved);  // a copy: a new buffer of the view's size
            copied = size;
          }
          break;
        }
      }
    });
#ifdef SHAPE_FUZZ_DEBUG
    std::fprintf(stderr, "op %d %s: %s %s +%lld -> %s %s +%lld\n", op, refused ? "refused" : "ok",
                 nd::format_shape(v.shape).c_str(), nd::format_shape(v.strides).c_str(),
                 static_cast<long long>(v.offset), nd::format_shape(next.shape).c_str(),
                 nd::format_shape(next.strides).c_str(), static_cast<long long>(next.offset));
#endif
    if (refused) {
      continue;
    }
    // Broadcast views may exceed the buffer's element count, but never its addresses; their bytes
    // must still fit (size() and nbytes() of an array rely on it).
    if (copied != 0) {
      buffer = copied;
    }
    check_inside(next, buffer);
    i128 elements = 0;
    if (op == 5) {
      if (!reference_fits(next.shape, 1, &elements)) {
        __builtin_trap();
      }
    }
    // needs_temporary of a view against its parent: must not crash whatever the layouts.
    (void)nd::needs_temporary(0x100000, 4, next.shape, next.strides,
                              0x100000 + 4 * static_cast<std::uintptr_t>(v.offset), 4, v.shape, v.strides);
    v = next;
  }
}

void fuzz_reshape_math(input& in) {
  const nd::index_t size = in.small_or_edge();
  const nd::shape_t requested = in.shape(6);
  nd::shape_t resolved;
  if (!refuses([&] { resolved = nd::resolve_reshape(size, requested); })) {
    check(size >= 0, "a negative size is refused");
    check(nd::shape_size(resolved) == size, "resolve_reshape keeps the size");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  input in(data, size);
  try {
    switch (in.byte() % 4) {
      case 0:
        fuzz_sizes(in);
        break;
      case 1:
        fuzz_broadcast(in);
        break;
      case 2:
        fuzz_views(in);
        break;
      default:
        fuzz_reshape_math(in);
        break;
    }
  } catch (const nd::shape_error&) {
    // A refusal the checks above did not expect is fine; any other exception is a crash.
  }
  return 0;
}
