// Row programs (expr/row_fusion.hpp): the stages a tree's reductions become, the run-time check
// that a call fits the program (axes, shapes, every operand seen as rows and columns, no overlap),
// and the launch's stream ordering around jit's launch (src/jit/row_program_launch.cpp), which
// spells, compiles and launches the kernel.
#include <algorithm>
#include <cstdint>
#include <ndcuda/core/error.hpp>
#include <ndcuda/expr/row_fusion.hpp>
#include <string>
#include <vector>

#include "expr/expression_label.hpp"
#include "expr/reduction_axes.hpp"
#include "expr/reduction_state.hpp"
#include "jit/row_program_launch.hpp"

namespace ndcuda::detail {

int add_row_stage(row_program& p, const reduce_spec& spec, std::string body, bool node, bool shared) {
  row_stage stage{reducer_spelling(spec), spec.value,      spec.out,
                  compute_type(spec.out), std::move(body), !shared || reduction_of(spec.kind).takes_ddof};
  int index = -1;
  if (!stage.takes_param) {  // the same reduction of the same values: computed once per row
    for (std::size_t i = 0; i < p.stages.size(); ++i) {
      const row_stage& s = p.stages[i];
      if (!s.takes_param && s.reducer == stage.reducer && s.body == stage.body) {
        index = static_cast<int>(i);
      }
    }
  }
  if (index < 0) {
    index = static_cast<int>(p.stages.size());
    p.stages.push_back(std::move(stage));
  }
  if (node) {
    p.node_stage.push_back(index);
  }
  return index;
}

node_code emit_row_variance(emit_context& c, const reduce_spec& spec, const node_code& value, const std::string& body) {
  const dtype a = compute_type(spec.out);
  const std::string t(cuda_type_name(a));
  const reduce_spec mean{reduce_kind::mean, spec.value, a, a};
  const std::string m = "ndcuda_red" + std::to_string(add_row_stage(*c.rows, mean, body, false));
  // (value - mean)^2, the deviation interned twice so that it is computed once.
  const node_code deviation{"((" + t + ")(" + converted_code(a, value) + " - " + m + "))", a};
  const node_code d1 = c.values.intern(deviation);
  const node_code d2 = c.values.intern(deviation);
  const node_code square = c.values.intern(node_code{"(" + d1.text + " * " + d2.text + ")", a});
  const reduce_spec sum{reduce_kind::sum, a, a, a};
  const std::string k = std::to_string(add_row_stage(*c.rows, sum, c.values.body(a, square), true, false));
  // Divided by N - ddof (the stage's parameter), as NumPy: inf or NaN when that is not positive.
  std::string text = "(ndcuda_red" + k + " / (" + t + ")(ndcuda_cols - (long long)ndcuda_param" + k + "))";
  if (spec.kind == reduce_kind::std) {
    text = "sqrt(" + text + ")";
  }
  return {text, a, std::string(reduction_of(spec.kind).name) + "(" + value.label + ")"};
}

void finish_row_program(row_program& p) {
  p.kernels = jit::detail::make_row_kernels(p, "rows " + clipped_label(p.label));
}

namespace {

/// Strides of one operand seen as (rows, columns) of `shape` split after `outer` axes; false when
/// its layout cannot be seen so (a reshape would need a copy).
bool as_rows(std::span<const index_t> shape, const strides_t& strides, std::size_t outer, index_t& row_stride,
             index_t& column_stride) {
  const auto collapse = [&](std::size_t from, std::size_t to, index_t& stride) {
    stride = 0;
    index_t inner = 1;  // elements of the dims after d within [from, to)
    bool found = false;
    for (std::size_t d = to; d-- > from;) {
      if (shape[d] != 1) {
        if (!found) {
          stride = strides[d];
          found = true;
        } else if (strides[d] != stride * inner) {
          return false;
        }
      }
      inner *= shape[d];
    }
    return true;
  };
  return collapse(0, outer, row_stride) && collapse(outer, shape.size(), column_stride);
}

/// How many trailing axes every reduction folds (all with keepdims, over operands of `shape`);
/// 0 when the reductions do not form a row program.
std::size_t trailing_axes(std::span<const index_t> shape, std::span<const row_node> nodes) {
  std::size_t common = 0;
  for (const row_node& n : nodes) {
    if (!n.keepdims || !std::equal(n.input_shape->begin(), n.input_shape->end(), shape.begin(), shape.end())) {
      return 0;
    }
    const std::vector<bool> mask = reduced_axes_mask(*n.axes, static_cast<int>(shape.size()));
    const auto first = std::find(mask.begin(), mask.end(), true);
    if (first == mask.end() || std::find(first, mask.end(), false) != mask.end()) {
      return 0;  // no axis, or not a trailing run of axes
    }
    const auto count = static_cast<std::size_t>(mask.end() - first);
    if (common != 0 && count != common) {
      return 0;
    }
    common = count;
  }
  return common;
}

}  // namespace

bool run_row_program(const row_program& p, const leaf_ref& out, std::span<const leaf_ref> inputs,
                     const void* const* scalars, std::span<const row_node> nodes) {
  if (p.kernels == nullptr) {
    return false;  // more parameters than one generated kernel takes (jit::detail::row_program_fits)
  }
  const shape_t& shape = out.layout->shape;
  const std::size_t reduced = trailing_axes(shape, nodes);
  if (reduced == 0) {
    return false;
  }
  const std::size_t outer = shape.size() - reduced;
  index_t rows = 1;
  index_t columns = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    (d < outer ? rows : columns) *= shape[d];
  }
  // An empty row has no max (NumPy's error) and a NaN mean: the engines say so. Long rows that
  // are few would leave most of the GPU idle with a block per row: the reductions first is faster.
  if (columns == 0 || (columns > 32768 && rows < 512)) {
    return false;
  }
  std::vector<jit::detail::row_operand> operands(inputs.size());
  jit::detail::row_operand row_out;
  row_out.data = out.data;
  if (!as_rows(shape, out.layout->strides, outer, row_out.row_stride, row_out.column_stride)) {
    return false;
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const leaf_ref& in = inputs[i];
    if (in.device != out.device) {
      return false;  // the engines' message
    }
    const strides_t strides = broadcast_strides(in.layout->shape, in.layout->strides, shape);
    operands[i].data = in.data;
    if (!as_rows(shape, strides, outer, operands[i].row_stride, operands[i].column_stride) ||
        needs_temporary(reinterpret_cast<std::uintptr_t>(out.data), itemsize(out.type), shape, out.layout->strides,
                        reinterpret_cast<std::uintptr_t>(in.data), itemsize(in.type), shape, strides)) {
      return false;
    }
  }
  const stream& s = *out.s;
  if (rows == 0) {
    return true;
  }
  before_leaf_launch(s, out, inputs);

  // Each stage's ddof: the parameter of the first reduction that became it.
  std::vector<double> params(p.stages.size(), 0.0);
  for (std::size_t n = p.node_stage.size(); n-- > 0;) {
    params[static_cast<std::size_t>(p.node_stage[n])] = nodes[n].param;
  }
  jit::detail::launch_row_program(p, row_out, operands, scalars, params, rows, columns, s);
  release_sources_after(s, inputs);
  return true;
}

}  // namespace ndcuda::detail
