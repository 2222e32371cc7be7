// Programmatic dependent launch without a GPU: every generated kernel (each elementwise variant,
// both reduction passes) opens with ndcuda::dependent_launch_prologue(), compiles with NVRTC for
// sm_75, sm_90 and sm_100, and its PTX holds griddepcontrol.wait before any global memory access
// from sm_90 on and no griddepcontrol below; generated kernel states may use PDL, raw_kernel's not.
#include <gtest/gtest.h>

#include <algorithm>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <string>
#include <vector>

#include "jit/elementwise_source.hpp"
#include "jit/elementwise_state.hpp"
#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/reduction_plan.hpp"
#include "jit/reduction_source.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

struct generated {
  std::string what;
  std::string source;
  std::string kernel;
};

std::vector<generated> elementwise_variants() {
  using nd::dtype;
  const jd::elementwise_signature sig{dtype::float32, {dtype::float32, dtype::float32}, {dtype::float32}};
  std::vector<generated> out;
  const auto add = [&](const std::string& what, const jd::elementwise_plan& plan) {
    out.push_back({what, jd::elementwise_source("out = x * s0 + y", "pdl_case", sig, plan),
                   jd::elementwise_kernel_name("pdl_case", plan)});
  };
  jd::elementwise_plan contiguous;
  contiguous.contiguous = true;
  contiguous.vector = 4;
  add("contiguous", contiguous);
  jd::elementwise_plan strided;
  strided.contiguous = false;
  strided.index64 = true;
  strided.shape = {3, 5, 7};
  add("strided 3-d", strided);
  jd::elementwise_plan grid2d;
  grid2d.contiguous = false;
  grid2d.shape = {64, 64};
  add("2-d", grid2d);
  jd::elementwise_plan tiled = grid2d;
  tiled.staged = 3;
  add("2-d tiled", tiled);
  jd::elementwise_plan rows = grid2d;
  rows.vector = 4;
  add("2-d row vectors", rows);
  return out;
}

std::vector<generated> reduction_variants() {
  using nd::dtype;
  jd::reduction_signature sig;
  sig.reducer = "ndcuda::sum_reducer<float, float, float>";
  sig.value = sig.acc = sig.out = dtype::float32;
  sig.map_statement = "out = in0 * in1";
  sig.in = {dtype::float32, dtype::float32};
  sig.name = "pdl_sum";
  std::vector<generated> out;
  for (const bool columns : {false, true}) {
    jd::reduction_plan plan;
    plan.strategy = columns ? jd::reduce_strategy::columns : jd::reduce_strategy::rows;
    plan.group = columns ? jd::reduce_block : 32;
    plan.outputs = 64;
    plan.reduced = 4096;
    plan.out_shape = {64};
    plan.out_strides = {{1}, {4096}, {4096}};
    plan.red_shape = {4096};
    plan.red_strides = {{1}, {1}};
    const std::string kind = columns ? "columns" : "rows";
    out.push_back({"first pass, " + kind, jd::reduction_source(sig, plan), jd::reduction_kernel_name(sig, plan)});
    out.push_back({"second pass, " + kind, jd::finish_source(sig, plan), jd::finish_kernel_name(sig, plan)});
  }
  return out;
}

std::vector<generated> every_variant() {
  std::vector<generated> all = elementwise_variants();
  for (generated& g : reduction_variants()) {
    all.push_back(std::move(g));
  }
  return all;
}

jd::compiled_program compile(const generated& g, int arch, bool ptx) {
  return jd::nvrtc_compile(jd::make_key(g.source, g.kernel + ".cu", {g.kernel}, jd::generated_kernel_options(),
                                        jd::compile_target{arch, ptx}));
}

}  // namespace

TEST(DependentLaunch, EveryGeneratedKernelOpensWithThePrologue) {
  const std::string prologue = std::string("  ") + jd::dependent_launch_prologue + "\n";
  for (const generated& g : every_variant()) {
    SCOPED_TRACE(g.what);
    const std::size_t declaration = g.source.find("extern \"C\" __global__");
    ASSERT_NE(declaration, std::string::npos) << g.source;
    EXPECT_EQ(g.source.find("extern \"C\" __global__", declaration + 1), std::string::npos) << "one kernel per source";
    // The statement right after the kernel's opening brace: nothing may touch memory before it.
    const std::size_t body = g.source.find(") {\n", declaration);
    ASSERT_NE(body, std::string::npos) << g.source;
    EXPECT_EQ(g.source.compare(body + 4, prologue.size(), prologue), 0) << g.source;
  }
}

TEST(DependentLaunch, GeneratedKernelsCompileForSm75Sm90AndSm100) {
  for (const generated& g : every_variant()) {
    for (const int arch : {75, 90, 100}) {
      SCOPED_TRACE(g.what + ", sm_" + std::to_string(arch));
      jd::compiled_program program;
      ASSERT_NO_THROW(program = compile(g, arch, false)) << g.source;
      EXPECT_GT(program.image.size(), 0U);
      EXPECT_EQ(program.log.find("warning"), std::string::npos) << program.log;
    }
  }
}

TEST(DependentLaunch, PtxWaitsBeforeAnyGlobalAccessFromSm90AndHasNoGriddepcontrolBelow) {
  for (const generated& g : every_variant()) {
    SCOPED_TRACE(g.what);
    const std::string old_ptx = compile(g, 75, true).image;
    EXPECT_EQ(old_ptx.find("griddepcontrol"), std::string::npos) << "sm_75 has no PDL; the #if must keep it out";

    const std::string ptx = compile(g, 90, true).image;
    const std::size_t wait = ptx.find("griddepcontrol.wait");
    const std::size_t trigger = ptx.find("griddepcontrol.launch_dependents");
    ASSERT_NE(wait, std::string::npos) << ptx;
    ASSERT_NE(trigger, std::string::npos) << ptx;
    EXPECT_LT(wait, trigger);
    const std::size_t load = ptx.find("ld.global");
    const std::size_t store = ptx.find("st.global");
    ASSERT_TRUE(load != std::string::npos || store != std::string::npos) << ptx;
    EXPECT_LT(wait, std::min(load, store)) << "a global access precedes griddepcontrol.wait:\n" << ptx;
  }
}

TEST(DependentLaunch, OnlyGeneratedKernelStatesMayLaunchWithPdl) {
  using nd::dtype;
  const auto state =
      jd::make_elementwise_state("out = x + y", "pdl_flag", dtype::float32, {dtype::float32, dtype::float32});
  jd::elementwise_plan plan;
  plan.contiguous = true;
  plan.vector = 4;
  EXPECT_TRUE(state->variant(plan).kernel.waits_first);
  plan.contiguous = false;
  plan.shape = {8, 8, 8};
  EXPECT_TRUE(state->variant(plan).kernel.waits_first);
  // A user's kernel never calls the wait, so it must keep plain stream ordering.
  const auto raw = jd::make_kernel_state("extern \"C\" __global__ void k(float* p) { *p = 1; }", "k", {});
  EXPECT_FALSE(raw->waits_first);
  const jd::kernel_state direct("extern \"C\" __global__ void k(float* p) { *p = 1; }", "k", {});
  EXPECT_FALSE(direct.waits_first);
}
