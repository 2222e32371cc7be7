// Source generation for elementwise variants. Kept deliberately small: NVRTC's cost is mostly
// fixed per compile, and every generated line adds to it.
#include "jit/elementwise_source.hpp"

#include <algorithm>
#include <ndcuda/core/error.hpp>

namespace ndcuda::jit::detail {
namespace {

constexpr const char* aliases[] = {"x", "y", "z", "w"};

// The helpers of kernels/ufuncs_core.cuh (the core families): a body that calls only these parses
// those instead of all of ufuncs.cuh, about 4 ms of each compile (docs/jit.md).
constexpr std::string_view core_ufuncs[] = {"nd_add",     "nd_subtract", "nd_multiply", "nd_true_divide", "nd_negative",
                                            "nd_maximum", "nd_minimum",  "nd_fmax",     "nd_fmin",        "nd_abs",
                                            "nd_isnan",   "nd_isinf",    "nd_isfinite"};

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string ufunc_header_define(std::string_view body) {
  bool any = false;
  for (std::size_t at = body.find("nd_"); at != std::string_view::npos; at = body.find("nd_", at + 3)) {
    if (at > 0 && identifier_char(body[at - 1])) {
      continue;  // inside another name (band_width), not a helper's
    }
    std::size_t end = at + 3;
    while (end < body.size() && identifier_char(body[end])) {
      ++end;
    }
    const std::string_view name = body.substr(at, end - at);
    if (std::find(std::begin(core_ufuncs), std::end(core_ufuncs), name) == std::end(core_ufuncs)) {
      return "";  // anything else (or a name of the user's own) gets every helper, as before
    }
    any = true;
  }
  return any ? "#define NDCUDA_KERNEL_CORE_UFUNCS 1" : "#define NDCUDA_KERNEL_WITHOUT_UFUNCS 1";
}

void check_kernel_identifier(std::string_view name, std::string_view what) {
  const auto valid = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
  };
  bool ok = !name.empty();
  for (std::size_t i = 0; ok && i < name.size(); ++i) {
    ok = valid(name[i], i == 0);
  }
  if (!ok) {
    throw error(std::string(what) + " name '" + std::string(name) +
                "' is not a C identifier; it names the generated kernel (and its NVTX range), so use letters, "
                "digits and '_', e.g. \"scaled_sum\"");
  }
}

std::string elementwise_kernel_name(std::string_view name, const elementwise_plan& plan) {
  std::string kernel(name);
  if (plan.contiguous) {
    kernel += "__c" + std::to_string(plan.vector) + (plan.tail && plan.vector > 1 ? "t" : "");
  } else {
    kernel += (plan.tiled() ? "__t" : "__s") + std::to_string(plan.ndim());
    if (plan.row_vectors()) {
      kernel += "v" + std::to_string(plan.vector);
    }
  }
  kernel += plan.index64 ? "_i64" : "_i32";
  return kernel;
}

kernel_args elementwise_args(const elementwise_signature& signature, const elementwise_plan& plan) {
  kernel_args args(plan.index64);
  args.pointer(std::string(cuda_type_name(signature.out)) + "*", "out")
      .inputs(signature.in, signature.sources)
      .scalars(signature.scalars);  // by value after the pointers; the body object carries them
  if (plan.contiguous) {
    args.index("n");
  } else {
    args.indexer("index", plan.ndim(), static_cast<int>(signature.in.size()) + 1);
    if (plan.tiled()) {
      args.value("unsigned", "staged", sizeof(std::uint32_t));
    }
  }
  return args;
}

std::string elementwise_source(std::string_view body, std::string_view name, const elementwise_signature& signature,
                               const elementwise_plan& plan) {
  const std::string out_type(cuda_type_name(signature.out));
  std::vector<std::string> in_types;
  for (std::size_t i = 0; i < signature.in.size(); ++i) {
    in_types.emplace_back(signature.is_source(i) ? signature.sources[i] + "::value_type"
                                                 : std::string(cuda_type_name(signature.in[i])));
  }
  // Computed inputs are random draws (random.cuh) or second outputs (output_slot.cuh, expr/pair_outputs.hpp).
  const auto is_slot = [](const std::string& t) { return t.rfind("ndcuda::detail::output_slot<", 0) == 0; };
  const bool any_source = std::any_of(signature.sources.begin(), signature.sources.end(),
                                      [&](const std::string& t) { return !t.empty() && !is_slot(t); });
  const bool any_slot = std::any_of(signature.sources.begin(), signature.sources.end(), is_slot);
  // A half type can also appear inside the body alone (expr.astype<__half>() in a float tree).
  const auto uses = [&](dtype t) {
    return signature.out == t || std::find(signature.in.begin(), signature.in.end(), t) != signature.in.end() ||
           std::find(signature.scalars.begin(), signature.scalars.end(), t) != signature.scalars.end() ||
           body.find(cuda_type_name(t)) != std::string_view::npos;
  };
  const std::string kernel = elementwise_kernel_name(name, plan);

  std::string s;
  int line = 1;
  const auto emit = [&](const std::string& text) {
    s += text;
    s += '\n';
    line += 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  emit("// ndcuda elementwise kernel '" + std::string(name) + "', " +
       (plan.contiguous      ? "contiguous, " + std::to_string(plan.vector) + " per vector"
        : plan.tiled()       ? std::string("2-d tiled")
        : plan.row_vectors() ? "2-d, " + std::to_string(plan.vector) + " per vector along rows"
                             : "strided, " + std::to_string(plan.ndim()) + "-d") +
       ", " + (plan.index64 ? "64" : "32") + "-bit indexing");
  if (const std::string define = ufunc_header_define(body); !define.empty()) {
    emit(define);
  }
  if (uses(dtype::float16)) {
    emit("#include <cuda_fp16.h>");
  }
  if (uses(dtype::bfloat16)) {
    emit("#include <cuda_bf16.h>");
  }
  if (any_source) {
    emit("#include \"ndcuda/random.cuh\"");  // before the templates whose loads it overloads
  }
  if (any_slot) {
    emit("#include \"ndcuda/output_slot.cuh\"");  // as random.cuh: before elementwise.cuh
  }
  emit("#include \"ndcuda/elementwise.cuh\"");
  if (body.find("ndcuda::nd_fold(") != std::string_view::npos) {
    emit("#include \"ndcuda/reducers.cuh\"");  // a short reduction inlined (expr/inline_reduction.hpp)
  }
  emit("");
  std::string params = out_type + "& out";
  for (std::size_t i = 0; i < in_types.size(); ++i) {
    params += ", const " + in_types[i] + "& in" + std::to_string(i);
  }
  emit("struct ndcuda_body {");
  for (std::size_t i = 0; i < signature.scalars.size(); ++i) {
    emit("  " + std::string(cuda_type_name(signature.scalars[i])) + " s" + std::to_string(i) + ";");
  }
  emit("  __forceinline__ void operator()(" + params + ") const {");
  for (std::size_t i = 0; i < in_types.size() && i < std::size(aliases); ++i) {
    emit("    const " + in_types[i] + "& " + aliases[i] + " = in" + std::to_string(i) + ";");
  }
  emit("    {");
  emit("#line 1 \"" + std::string(name) + " (body)\"");
  // The body: the user's statements, line numbers as they wrote them.
  s += std::string(body);
  s += ";\n";
  line += 1 + static_cast<int>(std::count(body.begin(), body.end(), '\n'));
  emit("#line " + std::to_string(line + 1) + " \"" + std::string(name) + ".cu\"");
  emit("    }");
  emit("  }");
  emit("};");
  emit("");
  const kernel_args args = elementwise_args(signature, plan);
  const std::string index(args.index_type());
  std::string call_args;
  for (std::size_t i = 0; i < in_types.size(); ++i) {
    call_args += ", in" + std::to_string(i);
  }
  std::string body_init = "ndcuda_body{";
  for (std::size_t i = 0; i < signature.scalars.size(); ++i) {
    body_init += (i == 0 ? "s" : ", s") + std::to_string(i);
  }
  body_init += "}";
  const std::string declaration = "(" + args.declaration() + ") {";
  std::string head;  // the kernel's declaration up to its opening brace
  std::string call;  // the template that does the work
  if (plan.contiguous) {
    head = "extern \"C\" __global__ void " + kernel + declaration;
    // Sizes that are a multiple of the vector need no scalar tail loop (TAIL = false).
    const bool whole = plan.vector > 1 && !plan.tail;
    call = "ndcuda::elementwise_contiguous<" + std::to_string(plan.vector) + ", " + index + (whole ? ", false" : "") +
           ">(" + body_init + ", n, out" + call_args + ");";
  } else if (plan.tiled()) {
    // The launcher's block is exactly tile_edge x tile_block_rows threads; the bound keeps the
    // register count low enough for that block on any body.
    head = "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(tile_edge * tile_block_rows) + ") " +
           kernel + declaration;
    call = "ndcuda::elementwise_tiled<" + std::to_string(tile_edge) + ", " + std::to_string(tile_block_rows) + ", " +
           index + ">(" + body_init + ", index, staged, out" + call_args + ");";
  } else if (plan.row_vectors()) {
    head = "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(row_vector_block) + ") " + kernel +
           declaration;
    call = "ndcuda::elementwise_2d_vector<" + std::to_string(plan.vector) + ", " + index + ">(" + body_init +
           ", index, out" + call_args + ");";
  } else if (plan.ndim() == 2) {
    head = "extern \"C\" __global__ void " + kernel + declaration;
    call = "ndcuda::elementwise_2d<" + std::to_string(narrow_columns) + ", " + index + ">(" + body_init +
           ", index, out" + call_args + ");";
  } else {
    head = "extern \"C\" __global__ void " + kernel + declaration;
    call = "ndcuda::elementwise_strided<" + std::to_string(plan.ndim()) + ", " + index + ">(" + body_init +
           ", index, out" + call_args + ");";
  }
  emit(head);
  emit(std::string("  ") + dependent_launch_prologue);
  emit("  " + call);
  emit("}");
  return s;
}

}  // namespace ndcuda::jit::detail
