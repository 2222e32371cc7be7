// Row programs (expr/row_fusion.hpp): the kernel source of a tree whose reductions are
// keepdims reductions over the trailing axes of its shape, the run-time check that a call fits
// it (axes, shapes, every operand seen as rows and columns), and the launch.
#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/expr/row_fusion.hpp>
#include <ndcuda/jit/launch.hpp>
#include <string>
#include <vector>

#include "expr/expression_label.hpp"
#include "expr/reduction_axes.hpp"
#include "expr/reduction_state.hpp"

namespace ndcuda::detail {

/// Block sizes a program is compiled for, chosen by row length (run_row_program).
constexpr std::array<int, 4> row_blocks{128, 256, 512, 1024};

/// Columns a thread holds in registers when the row fits (row_blocks.back() * held_items columns);
/// longer rows are read again from L1/L2 at each stage.
constexpr int held_items = 8;

struct row_kernels {
  std::mutex mutex;
  // By block size, then held (1) or re-read (0).
  std::array<std::shared_ptr<jit::detail::kernel_state>, 2 * row_blocks.size()> by_variant;
  void* nvtx = nullptr;
};

int add_row_stage(row_program& p, const reduce_spec& spec, std::string body, bool node, bool shared) {
  row_stage stage{reducer_spelling(spec), spec.value, spec.out, std::move(body),
                  !shared || reduction_of(spec.kind).takes_ddof};
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
  p.kernels = std::make_shared<row_kernels>();
  p.kernels->nvtx = nvtx_register("rows " + clipped_label(p.label));
}

namespace {

std::string type(dtype t) {
  return std::string(cuda_type_name(t));
}

bool uses_type(const row_program& p, dtype t) {
  const std::string name = type(t);
  const auto in_text = [&](const std::string& s) { return s.find(name) != std::string::npos; };
  return p.out == t || std::count(p.inputs.begin(), p.inputs.end(), t) > 0 ||
         std::count(p.scalars.begin(), p.scalars.end(), t) > 0 || in_text(p.final_body) ||
         std::any_of(p.stages.begin(), p.stages.end(),
                     [&](const row_stage& s) { return s.value == t || s.out == t || in_text(s.body); });
}

// The loads of every input at column `c` of the row (the compiler drops those a body never reads).
std::string loads(const row_program& p) {
  std::string s;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const std::string k = std::to_string(i);
    s += "      const " + type(p.inputs[i]) + " in" + k + " = ndcuda_q" + k + "[ndcuda_c * ndcuda_cs" + k + "];\n";
  }
  return s;
}

// The same from the thread's registers (item `ndcuda_i`).
std::string held(const row_program& p) {
  std::string s;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const std::string k = std::to_string(i);
    s += "      const " + type(p.inputs[i]) + " in" + k + " = ndcuda_h" + k + "[ndcuda_i];\n";
  }
  return s;
}

}  // namespace

std::string row_program_source(const row_program& p, int block, int items) {
  const std::string b = std::to_string(block);
  const std::string n = std::to_string(items);
  std::string s = "// ndcuda row program: " + p.label + "\n";
  if (uses_type(p, dtype::float16)) {
    s += "#include <cuda_fp16.h>\n";
  }
  if (uses_type(p, dtype::bfloat16)) {
    s += "#include <cuda_bf16.h>\n";
  }
  s += "#include \"ndcuda/row_fusion.cuh\"\n\n";
  s += "extern \"C\" __global__ void __launch_bounds__(" + b + ") nd_rows(" + type(p.out) +
       "* ndcuda_out, long long ndcuda_out_rs, long long ndcuda_out_cs";
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const std::string k = std::to_string(i);
    s += ", const " + type(p.inputs[i]) + "* ndcuda_p" + k + ", long long ndcuda_rs" + k + ", long long ndcuda_cs" + k;
  }
  for (std::size_t i = 0; i < p.scalars.size(); ++i) {
    s += ", " + type(p.scalars[i]) + " s" + std::to_string(i);
  }
  for (std::size_t i = 0; i < p.stages.size(); ++i) {
    s += ", double ndcuda_param" + std::to_string(i);
  }
  s += ", long long ndcuda_rows, long long ndcuda_cols) {\n";
  s += "  for (long long ndcuda_row = blockIdx.x; ndcuda_row < ndcuda_rows; ndcuda_row += gridDim.x) {\n";
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const std::string k = std::to_string(i);
    s += "    const " + type(p.inputs[i]) + "* ndcuda_q" + k + " = ndcuda_p" + k + " + ndcuda_row * ndcuda_rs" + k +
         ";\n";
  }
  // Held rows: every input's columns of this thread are loaded at once (all loads in flight
  // together), then every stage and the store read registers.
  const std::string columns = "    for (int ndcuda_i = 0; ndcuda_i < " + n +
                              "; ++ndcuda_i) {\n      const long long ndcuda_c = threadIdx.x + (long long)ndcuda_i * " +
                              b + ";\n      if (ndcuda_c >= ndcuda_cols) break;\n";
  if (items > 0) {
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      s += "    " + type(p.inputs[i]) + " ndcuda_h" + std::to_string(i) + "[" + n + "];\n";
    }
    s += "#pragma unroll\n" + columns;
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      const std::string k = std::to_string(i);
      s += "      ndcuda_h" + k + "[ndcuda_i] = ndcuda_q" + k + "[ndcuda_c * ndcuda_cs" + k + "];\n";
    }
    s += "    }\n";
  }
  for (std::size_t j = 0; j < p.stages.size(); ++j) {
    const row_stage& st = p.stages[j];
    const std::string k = std::to_string(j);
    const std::string reducer = st.reducer + "{ndcuda_param" + k + "}";
    s += "    const " + type(compute_type(st.out)) + " ndcuda_red" + k + " = ndcuda::cast<" +
         type(compute_type(st.out)) + ">(";
    if (items > 0) {
      s += "ndcuda::row_reduce_held<" + b + ", " + n + ">(" + reducer +
           ", ndcuda_cols, [&](int ndcuda_i, long long ndcuda_c) {\n" + held(p);
    } else {
      s += "ndcuda::row_reduce<" + b + ">(" + reducer + ", ndcuda_cols, [&](long long ndcuda_c) {\n" + loads(p);
    }
    s += "      " + type(st.value) + " out;\n      " + st.body + ";\n      return out;\n    }));\n";
  }
  s += "    " + type(p.out) + "* ndcuda_o = ndcuda_out + ndcuda_row * ndcuda_out_rs;\n";
  if (items > 0) {
    s += "#pragma unroll\n" + columns + held(p);
  } else {
    s += "    for (long long ndcuda_c = threadIdx.x; ndcuda_c < ndcuda_cols; ndcuda_c += " + b + ") {\n" + loads(p);
  }
  s += "      " + type(p.out) + " out;\n      " + p.final_body + ";\n      ndcuda_o[ndcuda_c * ndcuda_out_cs] = out;\n";
  s += "    }\n  }\n}\n";
  return s;
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

int block_for(index_t columns) {
  for (int b : row_blocks) {
    if (columns <= static_cast<index_t>(held_items) * b) {
      return b;
    }
  }
  return row_blocks.back();
}

const jit::detail::kernel_state& kernel_for(const row_program& p, int block, int items) {
  row_kernels& k = *p.kernels;
  const auto slot =
      2 * static_cast<std::size_t>(std::find(row_blocks.begin(), row_blocks.end(), block) - row_blocks.begin()) +
      (items > 0 ? 1 : 0);
  std::lock_guard lock(k.mutex);
  if (!k.by_variant[slot]) {
    k.by_variant[slot] = jit::detail::make_kernel_state(row_program_source(p, block, items), "nd_rows", {});
  }
  return *k.by_variant[slot];
}

}  // namespace

bool run_row_program(const row_program& p, const leaf_ref& out, std::span<const leaf_ref> inputs,
                     const void* const* scalars, std::span<const row_node> nodes) {
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
  struct operand_strides {
    index_t row = 0;
    index_t column = 0;
  };
  std::vector<operand_strides> in_strides(inputs.size());
  operand_strides out_strides;
  if (!as_rows(shape, out.layout->strides, outer, out_strides.row, out_strides.column)) {
    return false;
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const leaf_ref& in = inputs[i];
    if (in.device != out.device) {
      return false;  // the engines' message
    }
    const strides_t strides = broadcast_strides(in.layout->shape, in.layout->strides, shape);
    if (!as_rows(shape, strides, outer, in_strides[i].row, in_strides[i].column) ||
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
  std::vector<void*> args;
  std::vector<std::size_t> sizes;
  const auto add = [&](const void* value, std::size_t bytes) {
    args.push_back(const_cast<void*>(value));
    sizes.push_back(bytes);
  };
  const void* out_data = out.data;
  add(&out_data, sizeof(void*));
  add(&out_strides.row, sizeof(index_t));
  add(&out_strides.column, sizeof(index_t));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    add(&inputs[i].data, sizeof(void*));
    add(&in_strides[i].row, sizeof(index_t));
    add(&in_strides[i].column, sizeof(index_t));
  }
  for (std::size_t i = 0; i < p.scalars.size(); ++i) {
    add(scalars[i], itemsize(p.scalars[i]));
  }
  for (const double& param : params) {
    add(&param, sizeof(double));
  }
  add(&rows, sizeof(index_t));
  add(&columns, sizeof(index_t));

  const int block = block_for(columns);
  const int items = columns <= static_cast<index_t>(held_items) * block ? held_items : 0;
  const nvtx_scope range(p.kernels->nvtx);
  const launch_config config{dim3(static_cast<unsigned>(std::min<index_t>(rows, index_t{1} << 20))),
                             dim3(static_cast<unsigned>(block)), 0};
  jit::detail::launch(kernel_for(p, block, items), config, s, args.data(), sizes.data(), args.size());
  release_sources_after(s, inputs);
  return true;
}

}  // namespace ndcuda::detail
