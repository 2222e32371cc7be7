// Every embedded template compiled by NVRTC for each architecture ndcuda targets (no GPU
// needed): one program per architecture instantiates the elementwise variants for every element
// type, the strided indexer, the block reduction and reduction kernel, the casts and the complex
// functions. Plus generated elementwise sources, as the library writes them.
#include <gtest/gtest.h>

#include <ndcuda/core/dtype.hpp>

#include "jit/elementwise_source.hpp"
#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

std::string kitchen_sink(std::vector<std::string>& kernels) {
  std::string s =
      "#include <cuda_fp16.h>\n"
      "#include <cuda_bf16.h>\n"
      "#include \"ndcuda/elementwise.cuh\"\n"
      "#include \"ndcuda/reduction.cuh\"\n"
      "template <class T> struct add_op {\n"
      "  __forceinline__ void operator()(T& out, const T& a, const T& b) const { out = a + b; }\n"
      "};\n"
      "template <class Acc, class In> struct sum_reducer {\n"
      "  Acc identity() const { return Acc(0); }\n"
      "  Acc map(const In& v) const { return ndcuda::cast<Acc>(v); }\n"
      "  Acc combine(const Acc& a, const Acc& b) const { return a + b; }\n"
      "  template <class I> Acc finalize(const Acc& a, I) const { return a; }\n"
      "};\n";
  std::vector<std::string> types;
  for (nd::dtype t : nd::all_dtypes) types.emplace_back(nd::cuda_type_name(t));
  int id = 0;
  const auto kernel = [&](const std::string& params, const std::string& body) {
    const std::string name = "k" + std::to_string(id++);
    kernels.push_back(name);
    s += "extern \"C\" __global__ void " + name + "(" + params + ") { " + body + " }\n";
  };
  for (nd::dtype t : nd::all_dtypes) {
    const std::string type(nd::cuda_type_name(t));
    const int widest = static_cast<int>(16 / nd::itemsize(t));
    for (const char* index : {"int", "long long"}) {
      for (int vec : {1, widest}) {
        kernel(type + "* o, const " + type + "* a, const " + type + "* b, " + index + " n",
               "ndcuda::elementwise_contiguous<" + std::to_string(vec) + ", " + index + ">(add_op<" + type +
                   ">(), n, o, a, b);");
      }
      for (int ndim : {1, 3}) {
        kernel(type + "* o, const " + type + "* a, const " + type + "* b, ndcuda::strided_indexer<" +
                   std::to_string(ndim) + ", 3, " + index + "> idx",
               "ndcuda::elementwise_strided<" + std::to_string(ndim) + ", " + index + ">(add_op<" + type +
                   ">(), idx, o, a, b);");
      }
    }
    // Every conversion into this type, in one kernel.
    std::string params = type + "* o";
    std::string body;
    for (std::size_t i = 0; i < types.size(); ++i) {
      params += ", const " + types[i] + "* a" + std::to_string(i);
      body += "o[" + std::to_string(i) + "] = ndcuda::cast<" + type + ">(a" + std::to_string(i) + "[0]); ";
    }
    kernel(params, body);
  }
  // The reduction: several block sizes, accumulators and layouts.
  const std::vector<std::pair<std::string, std::string>> reductions = {
      {"float", "float"},
      {"double", "double"},
      {"float", "__half"},
      {"float", "__nv_bfloat16"},
      {"ndcuda::complex<float>", "ndcuda::complex<float>"},
      {"ndcuda::complex<double>", "ndcuda::complex<double>"},
      {"long long", "int"},
      {"unsigned long long", "bool"}};
  int block = 32;
  for (const auto& [acc, in] : reductions) {
    for (const char* index : {"int", "long long"}) {
      kernel(acc + "* o, const " + in + "* a, ndcuda::strided_indexer<2, 2, " + index +
                 "> outer, ndcuda::strided_indexer<3, 1, " + index + "> inner",
             "ndcuda::reduce_strided<" + std::to_string(block) + ", 2, 3, " + index + ">(sum_reducer<" + acc + ", " +
                 in + ">(), outer, inner, o, a);");
    }
    block = block == 1024 ? 32 : block * 2;
  }
  // Every complex operator and function, in both precisions.
  for (const char* t : {"float", "double"}) {
    const std::string c = std::string("ndcuda::complex<") + t + ">";
    kernel(c + "* o, const " + c + "* a, const " + t + "* r",
           "const " + c + " z = a[0], w = a[1]; const " + t +
               " x = r[0];\n"
               "  " +
               c +
               " v = z + w - z * w / z + x - x * z + z / x + x / z - (+z) + (-w);\n"
               "  v += z; v -= x; v *= w; v /= z; v += x; v *= x; v /= x;\n"
               "  bool eq = z == w || z != w || z == x || x != z;\n"
               "  v += exp(z) + log(z) + log10(z) + sqrt(z) + pow(z, w) + pow(z, x) + pow(x, z);\n"
               "  v += sin(z) + cos(z) + tan(z) + sinh(z) + cosh(z) + tanh(z);\n"
               "  v += asin(z) + acos(z) + atan(z) + asinh(z) + acosh(z) + atanh(z);\n"
               "  v += conj(z) + proj(z) + ndcuda::polar(x, x) + " +
               c +
               "(abs(z) + arg(z) + norm(z) + real(z) + imag(z));\n"
               "  o[0] = eq ? v : " +
               c + "(v.real(), v.imag());");
  }
  return s;
}

}  // namespace

class JitTemplates : public ::testing::TestWithParam<int> {};

TEST_P(JitTemplates, EveryEmbeddedTemplateCompilesForTheArchitecture) {
  std::vector<std::string> kernels;
  const std::string source = kitchen_sink(kernels);
  const auto key =
      jd::make_key(source, "kitchen_sink.cu", kernels, jd::generated_kernel_options(), {GetParam(), false});
  jd::compiled_program program;
  ASSERT_NO_THROW(program = jd::nvrtc_compile(key));
  EXPECT_EQ(program.lowered_names.size(), kernels.size());
  EXPECT_GT(program.image.size(), 0U);
  EXPECT_EQ(program.log.find("warning"), std::string::npos) << program.log;
}

INSTANTIATE_TEST_SUITE_P(Archs, JitTemplates, ::testing::Values(75, 80, 90, 100),
                         [](const ::testing::TestParamInfo<int>& p) { return "sm_" + std::to_string(p.param); });

TEST(JitTemplates, GeneratedElementwiseSourcesCompile) {
  struct case_t {
    const char* body;
    jd::elementwise_signature signature;
    bool contiguous;
    int vector_or_ndim;
    bool index64;
  };
  using nd::dtype;
  const std::vector<case_t> cases = {
      {"out = x * 3.5f + y * y", {dtype::float32, {dtype::float32, dtype::float32}}, true, 4, false},
      {"out = x * y + z", {dtype::complex64, {dtype::complex64, dtype::complex64, dtype::complex64}}, false, 2, false},
      {"out = float(x) * 2.0f", {dtype::float32, {dtype::float16}}, true, 4, true},
      {"out = x + y", {dtype::bfloat16, {dtype::bfloat16, dtype::bfloat16}}, false, 3, false},
      {"out = x < y", {dtype::bool_, {dtype::int64, dtype::int64}}, false, 5, true},
      {"out = 7", {dtype::uint8, {}}, true, 16, false},
      {"double s = x + y + z + w;\nout = s + in4",
       {dtype::float64, std::vector<dtype>(5, dtype::float64)},
       true,
       2,
       false},
  };
  for (const auto& c : cases) {
    jd::elementwise_plan plan;
    plan.contiguous = c.contiguous;
    plan.index64 = c.index64;
    if (c.contiguous) {
      plan.vector = c.vector_or_ndim;
    } else {
      plan.shape.assign(static_cast<std::size_t>(c.vector_or_ndim), 2);
    }
    const std::string source = jd::elementwise_source(c.body, "case", c.signature, plan);
    const std::string name = jd::elementwise_kernel_name("case", plan);
    const auto key = jd::make_key(source, "case.cu", {name}, jd::generated_kernel_options(), {90, false});
    EXPECT_NO_THROW((void)jd::nvrtc_compile(key)) << source;
  }
}

TEST(JitTemplates, TwoDimensionalTiledAndRowVectorElementwiseSourcesCompileWithoutWarnings) {
  using nd::dtype;
  const std::vector<std::pair<const char*, jd::elementwise_signature>> cases = {
      {"out = x + y", {dtype::float32, {dtype::float32, dtype::float32}}},
      {"out = x * 2.0", {dtype::float64, {dtype::float64}}},
      {"out = x - y", {dtype::int8, {dtype::int8, dtype::int8}}},
      {"out = x * y + z", {dtype::complex64, {dtype::complex64, dtype::complex64, dtype::complex64}}},
      {"out = x + y", {dtype::float16, {dtype::float16, dtype::float16}}},
      {"out = s0 * x", {dtype::float32, {dtype::float32}, {dtype::float32}}},
      {"out = 7", {dtype::uint8, {}}},
  };
  for (const auto& [body, signature] : cases) {
    for (bool index64 : {false, true}) {
      // Scalar grid, tiled, and with row vectors (16 bytes of the output type, or 2 for complex64).
      for (int kind : {0, 1, 2}) {
        const bool tiled = kind == 1;
        jd::elementwise_plan plan;
        plan.contiguous = false;
        plan.index64 = index64;
        plan.shape = {64, 64};
        // Every input staged: the tile offsets of several inputs (of mixed sizes) are exercised.
        plan.staged = tiled ? (std::uint32_t{1} << signature.in.size()) - 1 : 0;
        plan.vector = kind == 2 ? static_cast<int>(16 / nd::itemsize(signature.out)) : 1;
        EXPECT_EQ(plan.row_vectors(), kind == 2);
        const std::string source = jd::elementwise_source(body, "case", signature, plan);
        const std::string name = jd::elementwise_kernel_name("case", plan);
        const auto key = jd::make_key(source, "case.cu", {name}, jd::generated_kernel_options(), {90, false});
        jd::compiled_program program;
        ASSERT_NO_THROW(program = jd::nvrtc_compile(key)) << source;
        EXPECT_EQ(program.log.find("warning"), std::string::npos) << program.log << source;
      }
    }
  }
}
