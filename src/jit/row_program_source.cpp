// Source generation for row programs: the kernel's parameter list (row_program_args, also what its
// launches pack) and its body, a block per row folding each stage over the row, held in registers
// when the row fits, then storing the row. Builds on jit/kernel_args.hpp and kernels/row_fusion.cuh.
#include "jit/row_program_source.hpp"

#include <algorithm>

namespace ndcuda::jit::detail {
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

// Parameters besides the inputs', scalars and stages': out and its two strides, rows, columns.
constexpr std::size_t fixed_params = 5;

}  // namespace

kernel_args row_program_args(const row_program& p) {
  kernel_args args(/*index64=*/true);
  args.pointer(type(p.out) + "*", "ndcuda_out").index("ndcuda_out_rs").index("ndcuda_out_cs");
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const std::string k = std::to_string(i);
    args.pointer("const " + type(p.inputs[i]) + "*", "ndcuda_p" + k).index("ndcuda_rs" + k).index("ndcuda_cs" + k);
  }
  args.scalars(p.scalars);
  for (std::size_t i = 0; i < p.stages.size(); ++i) {
    args.value("double", "ndcuda_param" + std::to_string(i), sizeof(double));
  }
  args.index("ndcuda_rows").index("ndcuda_cols");
  return args;
}

bool row_program_fits(const row_program& p) noexcept {
  return fixed_params + 3 * p.inputs.size() + p.scalars.size() + p.stages.size() <= kernel_args::max_params;
}

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
  s += "extern \"C\" __global__ void __launch_bounds__(" + b + ") nd_rows(" + row_program_args(p).declaration() +
       ") {\n";
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
    s += "    const " + type(st.kernel_type) + " ndcuda_red" + k + " = ndcuda::cast<" + type(st.kernel_type) + ">(";
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

}  // namespace ndcuda::jit::detail
