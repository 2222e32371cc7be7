// NumPy's advanced-index planning on the host; see include/ndcuda/ops/detail/index_plan.hpp. The
// rules follow numpy/_core/src/multiarray/mapping.c (prepare_index, mapiter_fill_info).
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/detail/index_plan.hpp>
#include <string>

namespace ndcuda::detail {
namespace {

int consumed_axes(const index_entry& e) {
  switch (e.k) {
    case index_entry::kind::integer_array:
      return 1;
    case index_entry::kind::bool_array:
      return static_cast<int>(e.shape.size());
    case index_entry::kind::basic:
      break;
  }
  return std::holds_alternative<newaxis_t>(e.item) || std::holds_alternative<ellipsis_t>(e.item) ? 0 : 1;
}

bool is_array(const index_entry& e) {
  return e.k != index_entry::kind::basic;
}

}  // namespace

index_plan plan_index(const view_layout& source, std::span<const index_entry> index) {
  const int ndim = static_cast<int>(source.shape.size());
  int used = 0;
  int ellipses = 0;
  bool any_array = false;
  for (const index_entry& e : index) {
    used += consumed_axes(e);
    ellipses += e.k == index_entry::kind::basic && std::holds_alternative<ellipsis_t>(e.item) ? 1 : 0;
    any_array = any_array || is_array(e);
  }
  if (ellipses > 1) {
    throw index_error("an index can only have a single ellipsis ('...')");
  }
  if (used > ndim) {
    throw index_error("too many indices for array: array is " + std::to_string(ndim) + "-dimensional, but " +
                      std::to_string(used) + " were indexed");
  }
  index_plan plan;
  plan.offset = source.offset;
  plan.advanced = any_array;
  if (!any_array) {
    std::vector<index_item> items;
    for (const index_entry& e : index) {
      items.push_back(e.item);
    }
    const view_layout v = apply_index(source, items);
    plan.shape = v.shape;
    plan.strides = v.strides;
    plan.offset = v.offset;
    return plan;
  }

  // Walk the index: basic items make result dims (shape/strides), advanced ones (arrays, and
  // integers once any array is present) make the broadcast block, placed afterwards.
  shape_t basic_shape;
  strides_t basic_strides;
  std::vector<shape_t> broadcast_inputs;
  int first_advanced = -1;  // result dims made before the first advanced entry
  int state = -1;           // -1 none yet, 0 inside the first run of advanced entries, 1 after it, 2 separated
  int axis = 0;
  const auto keep = [&](int count) {
    for (int i = 0; i < count; ++i, ++axis) {
      basic_shape.push_back(source.shape[static_cast<std::size_t>(axis)]);
      basic_strides.push_back(source.strides[static_cast<std::size_t>(axis)]);
    }
  };
  for (std::size_t n = 0; n < index.size(); ++n) {
    const index_entry& e = index[n];
    const bool advanced = is_array(e) || std::holds_alternative<index_t>(e.item);
    if (advanced) {
      if (state == -1) {
        first_advanced = static_cast<int>(basic_shape.size());
        state = 0;
      } else if (state == 1) {
        state = 2;
      }
    } else if (state == 0) {
      state = 1;
    }
    const auto a = static_cast<std::size_t>(axis);
    if (e.k == index_entry::kind::integer_array) {
      broadcast_inputs.push_back(e.shape);
      plan.arrays.push_back({static_cast<int>(n), 0, axis, source.shape[a], source.strides[a]});
      ++axis;
    } else if (e.k == index_entry::kind::bool_array) {
      // NumPy checks a 1-d mask's length only when it is not 0 (mapping.c): an empty 1-d mask
      // matches any axis and selects nothing.
      const bool empty_1d = e.shape.size() == 1 && e.shape[0] == 0;
      for (std::size_t j = 0; j < e.shape.size() && !empty_1d; ++j) {
        if (e.shape[j] != source.shape[a + j]) {
          throw index_error("boolean index did not match indexed array along axis " + std::to_string(a + j) +
                            "; size of axis is " + std::to_string(source.shape[a + j]) +
                            " but size of corresponding boolean axis is " + std::to_string(e.shape[j]));
        }
      }
      // nonzero's arrays, one per mask axis, all of length `count` (a 0-d mask: none, but a
      // dimension of length 0 or 1 all the same).
      if (e.shape.empty()) {
        broadcast_inputs.push_back({e.count});
      }
      for (std::size_t j = 0; j < e.shape.size(); ++j) {
        broadcast_inputs.push_back({e.count});
        plan.arrays.push_back(
            {static_cast<int>(n), static_cast<int>(j), axis, source.shape[a + j], source.strides[a + j], true});
        ++axis;
      }
    } else if (const auto* i = std::get_if<index_t>(&e.item)) {
      const index_t size = source.shape[a];
      const index_t k = *i < 0 ? *i + size : *i;
      if (k < 0 || k >= size) {
        throw index_error("index " + std::to_string(*i) + " is out of bounds for axis " + std::to_string(axis) +
                          " with size " + std::to_string(size));
      }
      plan.offset = checked_add(plan.offset, checked_mul(k, source.strides[a], "index offset"), "index offset");
      ++axis;
    } else if (const auto* s = std::get_if<slice>(&e.item)) {
      const view_layout one{{source.shape[a]}, {source.strides[a]}, 0};
      const index_item item = *s;
      const view_layout v = apply_index(one, std::span<const index_item>(&item, 1));
      plan.offset = checked_add(plan.offset, v.offset, "slice offset");
      basic_shape.push_back(v.shape[0]);
      basic_strides.push_back(v.strides[0]);
      ++axis;
    } else if (std::holds_alternative<all_t>(e.item)) {
      keep(1);
    } else if (std::holds_alternative<newaxis_t>(e.item)) {
      basic_shape.push_back(1);
      basic_strides.push_back(0);
    } else {  // the ellipsis
      keep(ndim - used);
    }
  }
  keep(ndim - axis);

  // Broadcast the index arrays together (NumPy lists every array's shape when they do not).
  shape_t adv;
  try {
    adv = broadcast_inputs.front();
    for (std::size_t i = 1; i < broadcast_inputs.size(); ++i) {
      adv = broadcast_shapes(adv, broadcast_inputs[i]);
    }
  } catch (const shape_error&) {
    std::string text = "shape mismatch: indexing arrays could not be broadcast together with shapes ";
    for (const shape_t& s : broadcast_inputs) {
      text += index_shape_text(s) + " ";
    }
    throw index_error(text);
  }
  plan.advanced_shape = adv;
  plan.advanced_first = state == 2 ? 0 : first_advanced;
  const auto at = static_cast<std::ptrdiff_t>(plan.advanced_first);
  plan.shape.assign(basic_shape.begin(), basic_shape.begin() + at);
  plan.strides.assign(basic_strides.begin(), basic_strides.begin() + at);
  plan.shape.insert(plan.shape.end(), adv.begin(), adv.end());
  plan.strides.insert(plan.strides.end(), adv.size(), 0);
  plan.shape.insert(plan.shape.end(), basic_shape.begin() + at, basic_shape.end());
  plan.strides.insert(plan.strides.end(), basic_strides.begin() + at, basic_strides.end());
  (void)shape_size(plan.shape);  // throws when the element count overflows
  return plan;
}

std::string index_shape_text(std::span<const index_t> shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out += (i > 0 ? "," : "") + std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

strides_t index_array_strides(const index_plan& plan, const view_layout& layout) {
  view_layout b;
  try {
    b = broadcast_layout(layout, plan.advanced_shape);
  } catch (const shape_error&) {
    throw index_error("shape mismatch: an index array of shape " + format_shape(layout.shape) +
                      " does not broadcast to the indexing result's shape " + format_shape(plan.advanced_shape));
  }
  strides_t out(plan.shape.size(), 0);
  for (std::size_t d = 0; d < b.strides.size(); ++d) {
    out[static_cast<std::size_t>(plan.advanced_first) + d] = b.strides[d];
  }
  return out;
}

}  // namespace ndcuda::detail
