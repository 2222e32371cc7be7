// Overflow-checked sizes; see include/ndcuda/core/checked_size.hpp. Messages quote NumPy's where
// NumPy has one, so users recognise them.
#include <unistd.h>

#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <string>

namespace ndcuda {
namespace {

constexpr const char* numpy_too_big =
    " (NumPy: array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
    "maximum possible size); use a smaller shape or a smaller dtype";

}  // namespace

index_t checked_mul(index_t a, index_t b, const char* what) {
  index_t out = 0;
  if (!try_mul(a, b, out)) {
    throw shape_error(std::string(what) + ": " + std::to_string(a) + " * " + std::to_string(b) +
                      " does not fit in 64 bits; the sizes involved are too large");
  }
  return out;
}

index_t checked_add(index_t a, index_t b, const char* what) {
  index_t out = 0;
  if (!try_add(a, b, out)) {
    throw shape_error(std::string(what) + ": " + std::to_string(a) + " + " + std::to_string(b) +
                      " does not fit in 64 bits; the sizes involved are too large");
  }
  return out;
}

std::size_t checked_bytes(index_t count, std::size_t itemsize) {
  if (count < 0) {
    throw shape_error("negative element count " + std::to_string(count) + ": sizes must be non-negative");
  }
  index_t bytes = 0;
  if (itemsize > static_cast<std::size_t>(max_array_bytes) || !try_mul(count, static_cast<index_t>(itemsize), bytes)) {
    throw shape_error("array is too big: " + std::to_string(count) + " elements of " + std::to_string(itemsize) +
                      " bytes need more than 2^63-1 bytes" + numpy_too_big);
  }
  return static_cast<std::size_t>(bytes);
}

std::size_t checked_nbytes(std::span<const index_t> shape, std::size_t itemsize) {
  if (itemsize > static_cast<std::size_t>(max_array_bytes)) {
    throw shape_error("element size " + std::to_string(itemsize) + " bytes is too large");
  }
  index_t bytes = static_cast<index_t>(itemsize);
  bool empty = false;
  for (index_t extent : shape) {
    if (extent < 0) {
      throw shape_error("negative dimensions are not allowed: shape " + format_shape(shape));
    }
    if (extent == 0) {
      empty = true;  // NumPy still checks the other extents: (2**40, 2**40, 0) is too big
    } else if (!try_mul(bytes, extent, bytes)) {
      throw shape_error("array is too big: shape " + format_shape(shape) + " of " + std::to_string(itemsize) +
                        "-byte elements needs more than 2^63-1 bytes" + numpy_too_big);
    }
  }
  return empty ? 0 : static_cast<std::size_t>(bytes);
}

element_reach checked_reach(std::span<const index_t> shape, std::span<const index_t> strides) {
  if (shape.size() != strides.size()) {
    throw shape_error(std::to_string(strides.size()) + " strides given for a shape of " + std::to_string(shape.size()) +
                      " dimensions; give one stride per dimension");
  }
  element_reach reach;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      throw shape_error("negative dimensions are not allowed: shape " + format_shape(shape));
    }
    if (shape[d] == 0) {
      return {};
    }
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    index_t step = 0;
    index_t& end = strides[d] < 0 ? reach.low : reach.high;
    if (!try_mul(strides[d], shape[d] - 1, step) || !try_add(end, step, end)) {
      throw shape_error("strides " + format_shape(strides) + " with shape " + format_shape(shape) +
                        " reach element offsets that do not fit in 64 bits; the strides are not those of a real array");
    }
  }
  return reach;
}

void check_view(std::span<const index_t> shape, std::span<const index_t> strides, index_t offset, std::size_t itemsize,
                const char* what) {
  const std::size_t bytes = checked_nbytes(shape, itemsize);
  const element_reach reach = checked_reach(shape, strides);
  if (bytes == 0) {
    return;
  }
  const auto item = static_cast<index_t>(itemsize);
  index_t first = 0;
  index_t last = 0;
  if (!try_add(offset, reach.low, first) || !try_add(offset, reach.high, last) || !try_mul(first, item, first) ||
      !try_add(last, 1, last) || !try_mul(last, item, last)) {
    throw shape_error(std::string(what) + ": a view of shape " + format_shape(shape) + ", strides " +
                      format_shape(strides) + " and offset " + std::to_string(offset) +
                      " reaches bytes beyond 2^63 from its base; the layout cannot describe real memory");
  }
}

void throw_host_out_of_memory(std::size_t bytes, const char* what) {
  const std::string size =
      bytes == static_cast<std::size_t>(-1) ? std::string("more than 2^64-1 bytes") : std::to_string(bytes) + " bytes";
  throw out_of_memory(std::string(what) + ": out of host memory allocating " + size +
                      " for the host copy; read a smaller slice of the array, or free host memory");
}

std::uint64_t host_memory_bytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) {
    return std::numeric_limits<std::uint64_t>::max();  // unknown: the allocation itself decides
  }
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

void check_host_fits(index_t count, std::uint64_t bytes_each, const std::string& what) {
  const std::uint64_t host = host_memory_bytes();
  if (count >= 0 && (bytes_each == 0 || static_cast<std::uint64_t>(count) <= host / bytes_each)) {
    return;
  }
  throw out_of_memory(what + ": " + std::to_string(count) + " items of " + std::to_string(bytes_each) +
                      " bytes need more host memory than this machine has (" + std::to_string(host >> 20) +
                      " MiB); ask for fewer");
}

}  // namespace ndcuda
