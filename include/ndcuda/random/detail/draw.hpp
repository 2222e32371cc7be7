// Random draws as expression leaves: a random_leaf is a computed kernel input (no buffer) whose
// element i is Philox at (key, the draw's device-side offset, i), and draw ops spell the
// distribution calls of kernels/random.cuh. Builds on expr/evaluate.hpp (leaves, emitters).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <memory>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <span>
#include <string>
#include <utility>

namespace ndcuda::random::detail {

using ndcuda::detail::node_code;

/// A draw's kernel parameter, byte for byte kernels/random.cuh's philox_source<E, W>.
struct source_param {
  std::uint32_t key[2];
  const std::uint64_t* offset;  // device memory: the draw's block offset, set on the device
  std::uint64_t shift;
};
static_assert(sizeof(source_param) == ndcuda::detail::source_param_size);

/// What one draw reserved: its key, the device cell its offset is written to (kept alive by
/// `owner`), and the stream and device it was made on.
struct reservation {
  source_param param{};
  std::shared_ptr<const void> owner;
  ndcuda::stream s;  // aggregate-initialised: a default stream would create one
  int device = 0;
};

template <int E, int W>
constexpr const char* source_type_name() noexcept {
  if constexpr (E == 1 && W == 0) {
    return "ndcuda::detail::philox_source<1, 0>";
  } else if constexpr (E == 1 && W == 1) {
    return "ndcuda::detail::philox_source<1, 1>";
  } else if constexpr (E == 1 && W == 2) {
    return "ndcuda::detail::philox_source<1, 2>";
  } else if constexpr (E == 2 && W == 2) {
    return "ndcuda::detail::philox_source<2, 2>";
  } else {
    static_assert(E == 2 && W == 4, "draw layouts: (1, 0), (1, 1), (1, 2), (2, 2), (2, 4)");
    return "ndcuda::detail::philox_source<2, 4>";
  }
}

}  // namespace ndcuda::random::detail

namespace ndcuda::detail {

/// The leaf of a draw whose groups of E elements share W Philox words; `D` is the dtype drawn (it
/// sizes vector loads). Its layout is C-contiguous over the draw's shape, so that the offsets the
/// engines compute for it, through broadcasting, reductions and any output layout, are flat C-order
/// indices: a fused draw equals the materialised one element for element.
template <int E, int W, dtype D>
struct random_leaf {
  [[nodiscard]] static constexpr dtype type() noexcept { return D; }
  static constexpr int arrays = 1;
  static constexpr int scalars = 0;
  random::detail::reservation draw;
  view_layout layout;
};

template <class L, int E, int W, dtype D>
void collect(const random_leaf<E, W, D>& x, L& out) {
  leaf_ref r{&x.draw.param, &x.layout, D, &x.draw.s, x.draw.device, &x.draw.owner};
  r.source = random::detail::source_type_name<E, W>();
  out.arrays[static_cast<std::size_t>(out.array_count++)] = r;
}

template <int E, int W, dtype D>
struct emitter<random_leaf<E, W, D>> {
  static node_code emit(emit_context& c) { return {input_name(c.mapping[c.next_array++]), D}; }
};

}  // namespace ndcuda::detail

namespace ndcuda::random::detail {

/// A node calling `Spec::function()` on its operands: the first is passed as it is when
/// Spec::raw_first (a draw's item), the others converted to Spec::param(i). The result has
/// dtype Spec::result (computed in its compute type, which the function returns).
template <class Spec>
struct draw_op {
  static constexpr bool spells_itself = true;
  static constexpr const char* name = Spec::name;
  template <class... T>
  static constexpr dtype result(T...) noexcept {
    return Spec::result;
  }
  template <class... T>
  static constexpr dtype input(T...) noexcept {
    return Spec::result;
  }
  static node_code emit(std::span<const node_code> codes) {
    std::string text = Spec::function() + "(";
    for (std::size_t i = 0; i < codes.size(); ++i) {
      text += i == 0 ? "" : ", ";
      text += i == 0 && Spec::raw_first ? codes[i].text : ndcuda::detail::converted_code(Spec::param(i), codes[i]);
    }
    text += ")";
    return {std::move(text), ndcuda::detail::compute_type(Spec::result)};
  }
};

/// Spec helper: a named call with result dtype R and every parameter of dtype P.
template <const char* Name, dtype R, dtype P, bool RawFirst>
struct spec_base {
  static constexpr const char* name = Name;
  static constexpr dtype result = R;
  static constexpr bool raw_first = RawFirst;
  static constexpr dtype param(std::size_t) noexcept { return P; }
};

}  // namespace ndcuda::random::detail

#pragma GCC visibility pop
