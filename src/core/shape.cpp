// NumPy's broadcasting and axis rules, with NumPy's error texts so users recognise them.
#include <algorithm>
#include <limits>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>

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

index_t shape_size(std::span<const index_t> shape) {
  index_t size = 1;
  bool has_zero = false;
  bool overflow = false;
  for (index_t extent : shape) {
    if (extent < 0) {
      throw shape_error("negative dimensions are not allowed: shape " + format_shape(shape));
    }
    if (extent == 0) {
      has_zero = true;
    } else if (size > std::numeric_limits<index_t>::max() / extent) {
      overflow = true;
    } else {
      size *= extent;
    }
  }
  if (has_zero) {
    return 0;
  }
  if (overflow) {
    throw shape_error("array is too big: shape " + format_shape(shape) + " has more than 2^63-1 elements");
  }
  return size;
}

strides_t c_strides(std::span<const index_t> shape) {
  strides_t strides(shape.size());
  index_t step = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= std::max<index_t>(shape[i], 1);
  }
  return strides;
}

bool is_c_contiguous(std::span<const index_t> shape, std::span<const index_t> strides) {
  index_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) {
      return true;
    }
    if (shape[i] != 1 && strides[i] != expected) {
      return false;
    }
    expected *= shape[i];
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
