// NVRTC as ndcuda drives it, without a GPU: architecture choice, readable compile errors, the
// NDCUDA_JIT_DUMP copies, and finding CCCL at run time.
#include <gtest/gtest.h>

#include <fstream>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/raw_kernel.hpp>

#include "jit/module.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/toolkit_headers.hpp"
#include "jit_support.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;
namespace fs = std::filesystem;

TEST(JitCompiler, TheTargetIsTheDevicesOwnArchitectureCappedAtWhatNvrtcKnows) {
  const std::vector<int> supported = {75, 80, 86, 87, 89, 90, 100, 103, 120};
  EXPECT_EQ(jd::select_target(90, supported), (jd::compile_target{90, false}));
  EXPECT_EQ(jd::select_target(86, supported), (jd::compile_target{86, false}));
  EXPECT_EQ(jd::select_target(75, supported), (jd::compile_target{75, false}));
  // Newer than anything NVRTC knows: PTX for the newest, which the driver finishes.
  EXPECT_EQ(jd::select_target(130, supported), (jd::compile_target{120, true}));
  // Unknown minor of a known major: the newest CUBIN of that major below it runs there.
  EXPECT_EQ(jd::select_target(101, supported), (jd::compile_target{100, false}));
  EXPECT_EQ(jd::select_target(88, supported), (jd::compile_target{87, false}));
  // Unknown major inside the range: PTX from below.
  EXPECT_EQ(jd::select_target(110, supported), (jd::compile_target{103, true}));
  EXPECT_THROW((void)jd::select_target(70, supported), nd::device_error);
  EXPECT_EQ(jd::compile_target(90, false).option(), "-arch=sm_90");
  EXPECT_EQ(jd::compile_target(121, true).option(), "-arch=compute_121");
}

TEST(JitCompiler, ThisNvrtcSupportsTheArchitecturesNdcudaTargets) {
  const auto& archs = jd::nvrtc_supported_archs();
  for (int arch : {75, 80, 90, 100}) {
    EXPECT_NE(std::find(archs.begin(), archs.end(), arch), archs.end()) << arch;
  }
  EXPECT_TRUE(std::is_sorted(archs.begin(), archs.end()));
  EXPECT_GE(jd::nvrtc_version().first, 12);
}

TEST(JitCompiler, APtxTargetGivesPtxText) {
  const auto key = jd::make_key("extern \"C\" __global__ void k(int* p) { *p = 7; }", "k.cu", {"k"}, {},
                                {jd::nvrtc_supported_archs().back(), true});
  const auto program = jd::nvrtc_compile(key);
  EXPECT_NE(program.image.find(".target sm_" + std::to_string(key.target.arch)), std::string::npos);
  EXPECT_EQ(program.image.back(), '\0') << "the driver needs NUL-terminated PTX";
  EXPECT_FALSE(jd::image_uses_device_heap(program.image, true));
}

TEST(JitCompiler, ABrokenUserKernelThrowsACompileErrorAUserCanAct_on) {
  const std::string source =
      "extern \"C\" __global__ void broken(float* x, int n) {\n"
      "  int i = threadIdx.x;\n"
      "  if (i < n) x[i] = undefined_thing * 2;\n"
      "}\n";
  nd::raw_kernel kernel(source, "broken", {"-DSCALE=2"});
  try {
    kernel.compile({9, 0});
    FAIL() << "expected a compile_error";
  } catch (const nd::compile_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'broken.cu'"), std::string::npos) << what;  // the kernel's name
    EXPECT_NE(what.find("sm_90"), std::string::npos) << what;
    EXPECT_NE(what.find("-DSCALE=2"), std::string::npos) << what;  // the options
    EXPECT_NE(what.find("-arch=sm_90"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined_thing"), std::string::npos) << what;  // NVRTC's log
    EXPECT_NE(what.find("broken.cu(3)"), std::string::npos) << what;     // ... pointing at line 3
    EXPECT_NE(what.find("3 |   if (i < n) x[i] = undefined_thing * 2;"), std::string::npos) << what;  // numbered
    EXPECT_NE(what.find("NDCUDA_JIT_DUMP"), std::string::npos) << what;
    EXPECT_EQ(e.source(), source);
    EXPECT_NE(e.log().find("undefined_thing"), std::string::npos);
  }
}

TEST(JitCompiler, AnElementwiseBodyErrorPointsIntoTheBody) {
  nd::elementwise_kernel<float(float, float)> kernel("float t = x * y;\nout = t + nope", "bad_body");
  try {
    kernel.compile({8, 0});
    FAIL() << "expected a compile_error";
  } catch (const nd::compile_error& e) {
    EXPECT_NE(e.log().find("bad_body (body)(2)"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("nope"), std::string::npos) << e.log();
  }
}

TEST(JitCompiler, BadNamesAndBodiesAreRefusedBeforeCompiling) {
  EXPECT_THROW((nd::elementwise_kernel<float(float)>("out = x", "not an identifier")), nd::error);
  EXPECT_THROW((nd::elementwise_kernel<float(float)>("out = x", "9lives")), nd::error);
  EXPECT_THROW((nd::elementwise_kernel<float(float)>("  ;\n", "empty")), nd::error);
  EXPECT_THROW(nd::raw_kernel("extern \"C\" __global__ void k() {}", ""), nd::error);
  nd::raw_kernel with_arch("extern \"C\" __global__ void k() {}", "k", {"-arch=sm_80"});
  EXPECT_THROW(with_arch.compile({9, 0}), nd::compile_error);
}

TEST(JitCompiler, TemplateKernelsAreFoundThroughTheirNameExpression) {
  const auto key = jd::make_key("template <class T> __global__ void scale(T* p, T a) { *p *= a; }", "scale.cu",
                                {"scale<float>", "scale<double>"}, {}, {90, false});
  const auto program = jd::nvrtc_compile(key);
  ASSERT_EQ(program.lowered_names.size(), 2U);
  EXPECT_EQ(program.lowered_names[0], "_Z5scaleIfEvPT_S0_");
  EXPECT_EQ(program.lowered_names[1], "_Z5scaleIdEvPT_S0_");
}

TEST(JitCompiler, DeviceMallocIsDetectedInTheImage) {
  const auto with_heap = jd::nvrtc_compile(
      jd::make_key("extern \"C\" __global__ void k(int** p) { *p = new int[4]; }", "k.cu", {"k"}, {}, {90, false}));
  EXPECT_TRUE(jd::image_uses_device_heap(with_heap.image, false));
  const auto ptx = jd::nvrtc_compile(
      jd::make_key("extern \"C\" __global__ void k(int** p) { free(*p); }", "k.cu", {"k"}, {}, {90, true}));
  EXPECT_TRUE(jd::image_uses_device_heap(ptx.image, true));
  const auto without = jd::nvrtc_compile(nd::testing::small_key("no-heap"));
  EXPECT_FALSE(jd::image_uses_device_heap(without.image, false));
}

TEST(JitCompiler, DumpSavesEverySourceWithItsOptionsAndTheEmbeddedHeaders) {
  nd::testing::temp_dir dir;
  nd::testing::scoped_env dump("NDCUDA_JIT_DUMP", dir.path().string());
  const auto key = nd::testing::small_key("dumped");
  (void)jd::nvrtc_compile(key);
  const auto broken = jd::make_key("extern \"C\" __global__ void b() { oops; }", "b.cu", {"b"}, {}, {90, false});
  EXPECT_THROW((void)jd::nvrtc_compile(broken), nd::compile_error);
  int sources = 0;
  int logs = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    sources += entry.path().extension() == ".cu" ? 1 : 0;
    logs += entry.path().extension() == ".log" ? 1 : 0;
    if (entry.path().extension() == ".log" && entry.path().filename().string().starts_with("b-sm_90-")) {
      std::ifstream in(entry.path());
      const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      EXPECT_NE(text.find("status: failed"), std::string::npos) << text;
      EXPECT_NE(text.find("-arch=sm_90"), std::string::npos) << text;
      EXPECT_NE(text.find("oops"), std::string::npos) << text;
    }
  }
  EXPECT_EQ(sources, 2);
  EXPECT_EQ(logs, 2);
  EXPECT_TRUE(fs::exists(dir.path() / "ndcuda" / "elementwise.cuh"));
}

TEST(JitToolkitHeaders, IncludesOutsideNdcudaAreRecognised) {
  auto needs = jd::scan_includes("#include \"ndcuda/elementwise.cuh\"\nint x;\n");
  EXPECT_FALSE(needs.toolkit);
  EXPECT_FALSE(needs.cccl);
  needs = jd::scan_includes("  #  include <cuda_fp16.h>\n// #include <cub/cub.cuh>\n");
  EXPECT_TRUE(needs.toolkit);
  EXPECT_FALSE(needs.cccl) << "a commented-out include is not an include";
  EXPECT_EQ(needs.first_toolkit_include, "cuda_fp16.h");
  needs = jd::scan_includes("#include <cub/block/block_reduce.cuh>\n#include <cuda/std/limits>\n");
  EXPECT_TRUE(needs.cccl);
  EXPECT_EQ(needs.first_cccl_include, "cub/block/block_reduce.cuh");
}

TEST(JitToolkitHeaders, CcclIsFoundNextToTheNvrtcInUse) {
  nd::testing::scoped_env unset("NDCUDA_CUDA_INCLUDE", std::nullopt);
  EXPECT_NE(jd::nvrtc_library_path().find("nvrtc"), std::string::npos);
  const auto found = jd::find_toolkit_headers();
  EXPECT_FALSE(found.cuda_include.empty()) << found.origin;
  EXPECT_FALSE(found.cccl_include.empty()) << found.origin;
  EXPECT_TRUE(fs::exists(fs::path(found.cccl_include) / "cuda" / "std" / "version"));
  // A kernel that uses CCCL compiles (cuda::std is light; CUB would cost a second).
  nd::raw_kernel kernel(
      "#include <cuda/std/limits>\n"
      "extern \"C\" __global__ void k(float* x) { *x = cuda::std::numeric_limits<float>::max(); }",
      "k");
  EXPECT_NO_THROW(kernel.compile({9, 0}));
}

TEST(JitToolkitHeaders, MissingCcclIsAClearErrorNamingTheVariable) {
  nd::testing::scoped_env bogus("NDCUDA_CUDA_INCLUDE", "/nonexistent/cuda/include");
  nd::raw_kernel needs_cccl("#include <cub/warp/warp_reduce.cuh>\nextern \"C\" __global__ void k() {}", "k");
  try {
    needs_cccl.compile({9, 0});
    FAIL() << "expected a compile_error";
  } catch (const nd::compile_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("CCCL"), std::string::npos) << what;
    EXPECT_NE(what.find("cub/warp/warp_reduce.cuh"), std::string::npos) << what;
    EXPECT_NE(what.find("NDCUDA_CUDA_INCLUDE"), std::string::npos) << what;
    EXPECT_NE(what.find("/nonexistent/cuda/include"), std::string::npos) << what;
  }
  // Kernels that need nothing from the toolkit are unaffected.
  EXPECT_NO_THROW(nd::raw_kernel("extern \"C\" __global__ void k2() {}", "k2").compile({9, 0}));
}
