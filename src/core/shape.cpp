// NumPy's broadcasting and axis rules, with NumPy's error texts so users recognise them.
#include <algorithm>
#include <limits>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>
#include <ostream>
#include <string>

namespace ndcuda {

std::string format_shape(std::span<const index_t> shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) {
      text += ", ";
    }
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) {
    text += ",";
  }
  return text + ")";
}

std::ostream& operator<<(std::ostream& os, const shape_t& shape) {
  return os << format_shape(shape);
}

index_t shape_size(std::span<const index_t> shape) {
  index_t size = 1;
  bool has_zero = false;
  for (index_t extent : shape) {
    if (extent < 0) {
      throw shape_error("negative dimensions are not allowed: shape " + format_shape(shape));
    }
    if (extent == 0) {
      has_zero = true;  // NumPy still checks the others: np.empty((2**40, 2**40, 0)) is too big
    } else if (__builtin_mul_overflow(size, extent, &size)) {
      throw shape_error("array is too big: shape " + format_shape(shape) +
                        " has more than 2^63-1 elements (NumPy: array is too big); use a smaller shape");
    }
  }
  return has_zero ? 0 : size;
}

strides_t c_strides(std::span<const index_t> shape) {
  strides_t strides(shape.size());
  index_t step = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    // Overflows only for shapes shape_size refuses (every array's shape passed it).
    if (__builtin_mul_overflow(step, std::max<index_t>(shape[i], 1), &step)) {
      throw shape_error("array is too big: shape " + format_shape(shape) +
                        " has more than 2^63-1 elements (NumPy: array is too big); use a smaller shape");
    }
  }
  return strides;
}

bool is_c_contiguous(std::span<const index_t> shape, std::span<const index_t> strides) {
  if (shape.size() != strides.size()) {
    return false;
  }
  index_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) {
      return true;
    }
    if (shape[i] != 1 && strides[i] != expected) {
      return false;
    }
    if (__builtin_mul_overflow(expected, shape[i], &expected)) {
      return false;  // only for shapes no array has
    }
  }
  return true;
}

namespace {

// NumPy prints shapes in this message without spaces: "(3,4) (5,)".
std::string compact_shape(std::span<const index_t> shape) {
  std::string text = format_shape(shape);
  std::erase(text, ' ');
  return text;
}

}  // namespace

shape_t broadcast_shapes(std::initializer_list<std::span<const index_t>> shapes) {
  std::size_t ndim = 0;
  for (auto s : shapes) {
    for (index_t extent : s) {
      if (extent < 0) {
        throw shape_error("negative dimensions are not allowed: shape " + format_shape(s));
      }
    }
    ndim = std::max(ndim, s.size());
  }
  shape_t result(ndim, 1);
  for (auto s : shapes) {
    const std::size_t offset = ndim - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      index_t& out = result[offset + i];
      if (s[i] == out || s[i] == 1) {
        continue;
      }
      if (out == 1) {
        out = s[i];
        continue;
      }
      std::string message = "operands could not be broadcast together with shapes";
      for (auto each : shapes) {
        message += " " + compact_shape(each);
      }
      throw shape_error(message + "; each dimension must match or be 1 (align shapes from the right)");
    }
  }
  // Each operand fits, but the broadcast of (2**32, 1) and (1, 2**32) does not (NumPy: "broadcast
  // dimensions too large"); refused here, before anything is allocated or launched for it.
  index_t size = 1;
  for (index_t extent : result) {
    if (extent != 0 && __builtin_mul_overflow(size, extent, &size)) {
      throw shape_error("broadcast dimensions too large: the broadcast shape " + format_shape(result) +
                        " has more than 2^63-1 elements");
    }
  }
  return result;
}

shape_t broadcast_shapes(std::span<const index_t> a, std::span<const index_t> b) {
  return broadcast_shapes({a, b});
}

strides_t broadcast_strides(std::span<const index_t> shape, std::span<const index_t> strides,
                            std::span<const index_t> target) {
  auto fail = [&] {
    throw shape_error("operands could not be broadcast together with remapped shapes [original->remapped]: " +
                      compact_shape(shape) + " and requested shape " + compact_shape(target));
  };
  if (strides.size() != shape.size()) {
    throw shape_error(std::to_string(strides.size()) + " strides given for shape " + format_shape(shape) +
                      "; give one stride per dimension");
  }
  for (index_t extent : target) {
    if (extent < 0) {
      throw shape_error("all elements of broadcast shape must be non-negative: " + format_shape(target));
    }
  }
  (void)shape_size(target);  // a target of 2**64 elements would wrap every size computed from it
  if (shape.size() > target.size()) {
    fail();
  }
  strides_t result(target.size(), 0);
  const std::size_t offset = target.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == target[offset + i]) {
      result[offset + i] = strides[i];
    } else if (shape[i] != 1) {
      fail();
    }
  }
  return result;
}

void check_assignable(std::span<const index_t> source, std::span<const index_t> target) {
  bool fits = source.size() <= target.size();
  const std::size_t offset = fits ? target.size() - source.size() : 0;
  for (std::size_t i = 0; fits && i < source.size(); ++i) {
    fits = source[i] == target[offset + i] || source[i] == 1;
  }
  if (!fits) {
    throw shape_error("could not broadcast input array from shape " + compact_shape(source) + " into shape " +
                      compact_shape(target) + "; each dimension of the value must match the target's or be 1");
  }
}

int normalize_axis(index_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    throw shape_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                      std::to_string(ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> normalize_axes(std::span<const index_t> axes, int ndim) {
  std::vector<int> result;
  result.reserve(axes.size());
  for (index_t axis : axes) {
    int normalized = normalize_axis(axis, ndim);
    if (std::find(result.begin(), result.end(), normalized) != result.end()) {
      throw shape_error("duplicate value in 'axis': " + format_shape(axes) + " names axis " +
                        std::to_string(normalized) + " twice");
    }
    result.push_back(normalized);
  }
  return result;
}

}  // namespace ndcuda
