// Source generation for reductions. As for elementwise kernels, kept small: NVRTC's cost grows
// with every header and line, and the cold first call of a new reduction must stay near 100 ms.
#include "jit/reduction_source.hpp"

#include <algorithm>

#include "jit/elementwise_source.hpp"

namespace ndcuda::jit::detail {
namespace {

using ndcuda::detail::reduce_kind;

std::string type(dtype t) {
  return std::string(cuda_type_name(t));
}

std::string index_type(const reduction_plan& plan) {
  return plan.index64 ? "long long" : "int";
}

std::string header(const reduction_signature& sig) {
  const auto uses = [&](dtype t) {
    return sig.spec.value == t || sig.spec.out == t || std::find(sig.in.begin(), sig.in.end(), t) != sig.in.end() ||
           std::find(sig.scalars.begin(), sig.scalars.end(), t) != sig.scalars.end() ||
           sig.map_statement.find(cuda_type_name(t)) != std::string::npos;  // astype<__half>() in the map
  };
  std::string s;
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
  s += "typedef " + reducer_type(sig.spec) + " ndcuda_reducer;\n";
  return s;
}

std::string outer_indexer(const reduction_signature& sig, const reduction_plan& plan) {
  return "ndcuda::strided_indexer<" + std::to_string(plan.out_ndim()) + ", " + std::to_string(sig.in.size() + 1) +
         ", " + index_type(plan) + ">";
}

}  // namespace

std::string reducer_type(const ndcuda::detail::reduce_spec& spec) {
  const std::string v = type(spec.value);
  const std::string a = type(spec.acc);
  const std::string o = type(spec.out);
  const std::string vao = v + ", " + a + ", " + o;
  switch (spec.kind) {
    case reduce_kind::sum:
      return "ndcuda::sum_reducer<" + vao + ">";
    case reduce_kind::nansum:
      return "ndcuda::sum_reducer<" + vao + ", true>";
    case reduce_kind::mean:
      return "ndcuda::sum_reducer<" + vao + ", false, true>";
    case reduce_kind::prod:
      return "ndcuda::prod_reducer<" + vao + ">";
    case reduce_kind::nanmean:
      return "ndcuda::nanmean_reducer<" + vao + ">";
    case reduce_kind::min:
      return "ndcuda::extreme_reducer<" + vao + ", false>";
    case reduce_kind::max:
      return "ndcuda::extreme_reducer<" + vao + ", true>";
    case reduce_kind::nanmin:
      return "ndcuda::nan_extreme_reducer<" + vao + ", false>";
    case reduce_kind::nanmax:
      return "ndcuda::nan_extreme_reducer<" + vao + ", true>";
    case reduce_kind::var:
      return "ndcuda::var_reducer<" + vao + ", false>";
    case reduce_kind::std:
      return "ndcuda::var_reducer<" + vao + ", true>";
    case reduce_kind::argmin:
      return "ndcuda::arg_reducer<" + v + ", " + a + ", false>";
    case reduce_kind::argmax:
      return "ndcuda::arg_reducer<" + v + ", " + a + ", true>";
    case reduce_kind::all:
      return "ndcuda::logical_reducer<" + v + ", true>";
    case reduce_kind::any:
      return "ndcuda::logical_reducer<" + v + ", false>";
    case reduce_kind::count_nonzero:
      return "ndcuda::count_reducer<" + v + ">";
    case reduce_kind::norm1:
      return "ndcuda::norm_reducer<" + vao + ", 1>";
    case reduce_kind::norm2:
      return "ndcuda::norm_reducer<" + vao + ", 2>";
    case reduce_kind::norm_max:
      return "ndcuda::norm_reducer<" + vao + ", 3>";
    case reduce_kind::norm_min:
      return "ndcuda::norm_reducer<" + vao + ", -3>";
  }
  return "";
}

std::string reduction_kernel_name(const reduction_signature& sig, const reduction_plan& plan) {
  return sig.name + "__" + plan.variant_name();
}

std::string finish_kernel_name(const reduction_signature& sig, const reduction_plan& plan) {
  return sig.name + "__f" + (plan.strategy == reduce_strategy::rows ? "r" : "c") + std::to_string(plan.out_ndim()) +
         (plan.index64 ? "_i64" : "_i32");
}

std::string reduction_source(const reduction_signature& sig, const reduction_plan& plan) {
  const std::string kernel = reduction_kernel_name(sig, plan);
  const std::string index = index_type(plan);
  std::string s = "// ndcuda reduction '" + sig.name + "', variant " + plan.variant_name() + "\n";
  s += header(sig);
  s += "struct ndcuda_map {\n";
  for (std::size_t i = 0; i < sig.scalars.size(); ++i) {
    s += "  " + type(sig.scalars[i]) + " s" + std::to_string(i) + ";\n";
  }
  const std::string value = type(sig.spec.value);
  s += "  __forceinline__ " + value + " operator()(";
  for (std::size_t i = 0; i < sig.in.size(); ++i) {
    s += (i == 0 ? "const " : ", const ") + (sig.is_source(i) ? sig.sources[i] + "::value_type" : type(sig.in[i])) +
         "& in" + std::to_string(i);
  }
  s += ") const {\n    " + value + " out;\n    " + sig.map_statement + ";\n    return out;\n  }\n};\n\n";

  std::string params = type(sig.spec.out) + "* out, void* partials";
  std::string args;
  std::string map_init = "ndcuda_map{";
  for (std::size_t i = 0; i < sig.in.size(); ++i) {
    params += sig.is_source(i) ? ", " + sig.sources[i] + " in" + std::to_string(i)
                               : ", const " + type(sig.in[i]) + "* in" + std::to_string(i);
    args += ", in" + std::to_string(i);
  }
  for (std::size_t i = 0; i < sig.scalars.size(); ++i) {
    params += ", " + type(sig.scalars[i]) + " s" + std::to_string(i);
    map_init += (i == 0 ? "s" : ", s") + std::to_string(i);
  }
  map_init += "}";
  params += ", " + outer_indexer(sig, plan) + " outer, ndcuda::strided_indexer<" + std::to_string(plan.red_ndim()) +
            ", " + std::to_string(sig.in.size()) + ", " + index + "> inner, " + index + " chunk, double param";
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(reduce_block) + ") " + kernel + "(" + params +
       ") {\n";
  s += std::string("  ") + dependent_launch_prologue + "\n";
  if (plan.strategy == reduce_strategy::rows) {
    s += "  ndcuda::reduce_rows<" + std::to_string(reduce_block) + ", " + std::to_string(plan.group) + ", " +
         std::to_string(plan.vector) + ">(" + map_init + ", ndcuda_reducer{param}, outer, inner, chunk, out, partials" +
         args + ");\n";
  } else {
    s += "  ndcuda::reduce_columns(" + map_init + ", ndcuda_reducer{param}, outer, inner, chunk, out, partials" + args +
         ");\n";
  }
  s += "}\n";
  return s;
}

std::string finish_source(const reduction_signature& sig, const reduction_plan& plan) {
  const std::string index = index_type(plan);
  std::string s = "// ndcuda reduction '" + sig.name + "', second pass\n";
  s += header(sig);
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(reduce_block) + ") " +
       finish_kernel_name(sig, plan) + "(" + type(sig.spec.out) + "* out, const void* partials, " +
       outer_indexer(sig, plan) + " outer, " + index + " splits, long long count, double param) {\n";
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
