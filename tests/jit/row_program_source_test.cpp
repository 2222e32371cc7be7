// Row programs' parameter list without a GPU (src/jit/row_program_source.cpp): the one kernel_args
// that spells nd_rows's signature and packs its launches, against the signature written out by
// hand, and the bound past which a program is not launched (row_program_fits, make_row_kernels).
#include "jit/row_program_source.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <ndcuda/core/error.hpp>
#include <string>
#include <vector>

#include "jit/kernel_args.hpp"
#include "jit/row_program_launch.hpp"

namespace nd = ndcuda;
namespace jd = nd::jit::detail;
using nd::dtype;

namespace {

// A program with `inputs` float16 inputs, `scalars` float64 scalars and `stages` sums.
jd::row_program program(std::size_t inputs, std::size_t scalars, std::size_t stages) {
  jd::row_program p;
  p.out = dtype::float32;
  p.inputs.assign(inputs, dtype::float16);
  p.scalars.assign(scalars, dtype::float64);
  for (std::size_t i = 0; i < stages; ++i) {
    p.stages.push_back(jd::row_stage{"ndcuda::sum_reducer<float, float, float>", dtype::float32, dtype::float32,
                                     dtype::float32, "out = (float)in0", false});
  }
  p.final_body = "out = (float)in0 / ndcuda_red0";
  p.label = "x / sum(x)";
  return p;
}

}  // namespace

TEST(RowProgramArgs, SpellTheSignatureAsWrittenByHand) {
  const jd::row_program p = program(2, 1, 2);
  const std::string expected =
      "float* ndcuda_out, long long ndcuda_out_rs, long long ndcuda_out_cs, "
      "const __half* ndcuda_p0, long long ndcuda_rs0, long long ndcuda_cs0, "
      "const __half* ndcuda_p1, long long ndcuda_rs1, long long ndcuda_cs1, double s0, "
      "double ndcuda_param0, double ndcuda_param1, long long ndcuda_rows, long long ndcuda_cols";
  EXPECT_EQ(jd::row_program_args(p).declaration(), expected);
  for (const int items : {0, 8}) {
    const std::string source = jd::row_program_source(p, 256, items);
    EXPECT_NE(source.find("__launch_bounds__(256) nd_rows(" + expected + ") {\n"), std::string::npos) << source;
    EXPECT_NE(source.find("#include <cuda_fp16.h>"), std::string::npos);
  }
}

TEST(RowProgramArgs, PackEveryValueAtItsParameter) {
  const jd::row_program p = program(1, 1, 1);
  const jd::kernel_args args = jd::row_program_args(p);
  ASSERT_EQ(args.size(), 10u);  // out and 2 strides, in0 and 2 strides, s0, param0, rows, columns
  jd::kernel_args::packer packed(args);
  const double s0 = 2.5;
  const void* scalars[] = {&s0};
  packed.pointer(reinterpret_cast<const void*>(0x100)).index(7).index(1);
  packed.pointer(reinterpret_cast<const void*>(0x200)).index(-3).index(0);
  packed.scalars(scalars, 1).value(1.0).index(5).index(1 << 20);
  ASSERT_EQ(packed.count(), 10u);
  const std::vector<std::int64_t> indices{7, 1, -3, 0, 5, 1 << 20};
  const std::size_t at[] = {1, 2, 4, 5, 8, 9};
  for (std::size_t i = 0; i < indices.size(); ++i) {
    std::int64_t v = 0;
    ASSERT_EQ(packed.argument_bytes(at[i]), 8u);  // long long strides, even where they are small
    std::memcpy(&v, packed.argument(at[i]), sizeof v);
    EXPECT_EQ(v, indices[i]) << i;
  }
  double param = 0;
  std::memcpy(&param, packed.argument(7), sizeof param);
  EXPECT_EQ(param, 1.0);
  // The parameter is a double: a float there is refused before it reaches a launch.
  jd::kernel_args::packer wrong(args);
  wrong.pointer(nullptr).index(1).index(1).pointer(nullptr).index(1).index(1).scalars(scalars, 1);
  EXPECT_THROW(wrong.value(1.0f), nd::error);
}

TEST(RowProgramArgs, AProgramPastTheParameterLimitIsNeverLaunched) {
  // 31 inputs with their strides, 32 scalars, out, rows, columns: 130, and one parameter a stage.
  const std::size_t room = jd::kernel_args::max_params - 130;
  const jd::row_program fits = program(31, 32, room);
  EXPECT_TRUE(jd::row_program_fits(fits));
  EXPECT_EQ(jd::row_program_args(fits).size(), jd::kernel_args::max_params);
  EXPECT_NE(jd::make_row_kernels(fits, "rows fits"), nullptr);
  const jd::row_program over = program(31, 32, room + 1);
  EXPECT_FALSE(jd::row_program_fits(over));
  EXPECT_THROW((void)jd::row_program_args(over), nd::error);
  EXPECT_EQ(jd::make_row_kernels(over, "rows over"), nullptr);
}
