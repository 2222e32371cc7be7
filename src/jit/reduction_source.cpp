// Source generation for reductions. As for elementwise kernels, kept small: NVRTC's cost grows
// with every header and line, and the cold first call of a new reduction must stay near 100 ms.
#include "jit/reduction_source.hpp"

#include <algorithm>

#include "jit/elementwise_source.hpp"

namespace ndcuda::jit::detail {
namespace {

std::string type(dtype t) {
  return std::string(cuda_type_name(t));
}

// `map` is the map statement of the first pass, empty for the second: what it calls decides which
// ufunc helpers are parsed (reducers.cuh itself needs only ufuncs_core.cuh).
std::string header(const reduction_signature& sig, std::string_view map) {
  const auto uses = [&](dtype t) {
    return sig.value == t || sig.out == t || std::find(sig.in.begin(), sig.in.end(), t) != sig.in.end() ||
           std::find(sig.scalars.begin(), sig.scalars.end(), t) != sig.scalars.end() ||
           sig.map_statement.find(cuda_type_name(t)) != std::string::npos;  // astype<__half>() in the map
  };
  std::string s = ufunc_header_define(map);
  s += s.empty() ? "" : "\n";
  if (uses(dtype::float16)) {
    s += "#include <cuda_fp16.h>\n";
  }
  if (uses(dtype::bfloat16)) {
    s += "#include <cuda_bf16.h>\n";
  }
  for (const std::string& source : sig.sources) {
    if (!source.empty()) {  // before the templates whose loads it overloads
      s += "#include \"ndcuda/random.cuh\"\n";
      break;
    }
  }
  s += "#include \"ndcuda/reduction.cuh\"\n#include \"ndcuda/reducers.cuh\"\n\n";
  s += "typedef " + sig.reducer + " ndcuda_reducer;\n";
  return s;
}

// The output pointer, then the outer indexer over the output and every input.
int outer_operands(const reduction_signature& sig) {
  return static_cast<int>(sig.in.size()) + 1;
}

}  // namespace

std::string reduction_kernel_name(const reduction_signature& sig, const reduction_plan& plan) {
  return sig.name + "__" + plan.variant_name();
}

std::string finish_kernel_name(const reduction_signature& sig, const reduction_plan& plan) {
  return sig.name + "__f" + (plan.strategy == reduce_strategy::rows ? "r" : "c") + std::to_string(plan.out_ndim()) +
         (plan.index64 ? "_i64" : "_i32");
}

kernel_args reduction_args(const reduction_signature& sig, const reduction_plan& plan) {
  kernel_args args(plan.index64);
  args.pointer(type(sig.out) + "*", "out")
      .pointer("void*", "partials")
      .inputs(sig.in, sig.sources)
      .scalars(sig.scalars)
      .indexer("outer", plan.out_ndim(), outer_operands(sig))
      .indexer("inner", plan.red_ndim(), static_cast<int>(sig.in.size()))
      .index("chunk")
      .value("double", "param", sizeof(double));
  return args;
}

kernel_args finish_args(const reduction_signature& sig, const reduction_plan& plan) {
  kernel_args args(plan.index64);
  args.pointer(type(sig.out) + "*", "out")
      .pointer("const void*", "partials")
      .indexer("outer", plan.out_ndim(), outer_operands(sig))
      .index("splits")
      .value("long long", "count", sizeof(long long))
      .value("double", "param", sizeof(double));
  return args;
}

std::string reduction_source(const reduction_signature& sig, const reduction_plan& plan) {
  const std::string kernel = reduction_kernel_name(sig, plan);
  std::string s = "// ndcuda reduction '" + sig.name + "', variant " + plan.variant_name() + "\n";
  s += header(sig, sig.map_statement);
  s += "struct ndcuda_map {\n";
  for (std::size_t i = 0; i < sig.scalars.size(); ++i) {
    s += "  " + type(sig.scalars[i]) + " s" + std::to_string(i) + ";\n";
  }
  const std::string value = type(sig.value);
  s += "  __forceinline__ " + value + " operator()(";
  for (std::size_t i = 0; i < sig.in.size(); ++i) {
    s += (i == 0 ? "const " : ", const ") + (sig.is_source(i) ? sig.sources[i] + "::value_type" : type(sig.in[i])) +
         "& in" + std::to_string(i);
  }
  s += ") const {\n    " + value + " out;\n    " + sig.map_statement + ";\n    return out;\n  }\n};\n\n";

  std::string args;
  std::string map_init = "ndcuda_map{";
  for (std::size_t i = 0; i < sig.in.size(); ++i) {
    args += ", in" + std::to_string(i);
  }
  for (std::size_t i = 0; i < sig.scalars.size(); ++i) {
    map_init += (i == 0 ? "s" : ", s") + std::to_string(i);
  }
  map_init += "}";
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(reduce_block) + ") " + kernel + "(" +
       reduction_args(sig, plan).declaration() + ") {\n";
  s += std::string("  ") + dependent_launch_prologue + "\n";
  if (plan.strategy == reduce_strategy::rows) {
    // Rows whose length is a multiple of the vector skip the tail loop (TAIL = false).
    s += "  ndcuda::reduce_rows<" + std::to_string(reduce_block) + ", " + std::to_string(plan.group) + ", " +
         std::to_string(plan.vector) + (plan.vector > 1 && !plan.tail ? ", false" : "") + ">(" + map_init +
         ", ndcuda_reducer{param}, outer, inner, chunk, out, partials" + args + ");\n";
  } else {
    s += "  ndcuda::reduce_columns(" + map_init + ", ndcuda_reducer{param}, outer, inner, chunk, out, partials" + args +
         ");\n";
  }
  s += "}\n";
  return s;
}

std::string finish_source(const reduction_signature& sig, const reduction_plan& plan) {
  std::string s = "// ndcuda reduction '" + sig.name + "', second pass\n";
  s += header(sig, "");
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(reduce_block) + ") " +
       finish_kernel_name(sig, plan) + "(" + finish_args(sig, plan).declaration() + ") {\n";
  s += std::string("  ") + dependent_launch_prologue + "\n";
  if (plan.strategy == reduce_strategy::rows) {
    s += "  ndcuda::reduce_finish_rows<" + std::to_string(reduce_block) +
         ">(ndcuda_reducer{param}, outer, splits, count, out, partials);\n";
  } else {
    s += "  ndcuda::reduce_finish_columns(ndcuda_reducer{param}, outer, splits, count, out, partials);\n";
  }
  s += "}\n";
  return s;
}

}  // namespace ndcuda::jit::detail
