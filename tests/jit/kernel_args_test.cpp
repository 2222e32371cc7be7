// kernel_args without a GPU: the parameter list it spells, and the packing it checks (kinds,
// sizes, 32- and 64-bit indexers, computed inputs by value, the heap past the inline buffer).
#include "jit/kernel_args.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <ndcuda/core/error.hpp>
#include <string>
#include <vector>

namespace nd = ndcuda;
namespace jd = nd::jit::detail;
using nd::dtype;

namespace {

template <class T>
T read(const jd::kernel_args::packer& p, std::size_t arg, std::size_t word = 0) {
  T v;
  std::memcpy(&v, p.argument(arg) + word * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

TEST(KernelArgs, SpellsTheParameterList) {
  const std::vector<dtype> in{dtype::float32, dtype::float16};
  const std::vector<std::string> sources{"", "ndcuda::philox_source<1, 2>"};
  const std::vector<dtype> scalars{dtype::complex64};
  jd::kernel_args args(false);
  args.pointer("float*", "out").inputs(in, sources).scalars(scalars).indexer("index", 2, 3).index("n");
  args.value("double", "param", sizeof(double));
  EXPECT_EQ(args.declaration(),
            "float* out, const float* in0, ndcuda::philox_source<1, 2> in1, ndcuda::complex<float> s0, "
            "ndcuda::strided_indexer<2, 3, int> index, int n, double param");
  EXPECT_EQ(args.size(), 7u);
  EXPECT_EQ(args[2].bytes, jd::source_param_bytes);
  EXPECT_EQ(args[3].bytes, 8u);
  EXPECT_EQ(args[4].bytes, (1u + 2u + 2u * 3u) * 4u);
  jd::kernel_args wide(true);
  wide.indexer("outer", 1, 2).index("chunk");
  EXPECT_EQ(wide.declaration(), "ndcuda::strided_indexer<1, 2, long long> outer, long long chunk");
  EXPECT_EQ(wide[0].bytes, (1u + 1u + 2u) * 8u);
}

TEST(KernelArgs, PacksInOrderAndWidth) {
  const std::vector<dtype> in{dtype::float32, dtype::int8};
  const std::vector<std::string> sources{"", "src_t"};
  const std::vector<dtype> scalars{dtype::int16};
  for (const bool wide : {false, true}) {
    jd::kernel_args args(wide);
    args.pointer("float*", "out").inputs(in, sources).scalars(scalars).indexer("index", 2, 3).index("n");
    args.value("unsigned", "staged", 4);
    jd::kernel_args::packer p(args);
    unsigned char block[jd::source_param_bytes];
    for (std::size_t i = 0; i < sizeof block; ++i) {
      block[i] = static_cast<unsigned char>(i + 1);
    }
    const void* inputs[] = {reinterpret_cast<const void*>(0x1000), block};
    const std::int16_t s0 = -7;
    const void* scalar_values[] = {&s0};
    const std::vector<nd::strides_t> strides{{5, 1}, {1, 4}, {0, 1}};
    p.pointer(reinterpret_cast<const void*>(0x2000))
        .inputs(inputs, 2)
        .scalars(scalar_values, 1)
        .indexer(20, nd::shape_t{4, 5}, strides)
        .index(20)
        .value(3u);
    ASSERT_EQ(p.count(), 7u);
    EXPECT_EQ(read<const void*>(p, 0), reinterpret_cast<const void*>(0x2000));
    EXPECT_EQ(read<const void*>(p, 1), reinterpret_cast<const void*>(0x1000));
    EXPECT_EQ(p.argument_bytes(2), jd::source_param_bytes);  // the computed input's bytes, copied
    EXPECT_EQ(std::memcmp(p.argument(2), block, sizeof block), 0);
    EXPECT_EQ(read<std::int16_t>(p, 3), -7);
    const std::vector<nd::index_t> expected{20, 4, 5, 5, 1, 1, 4, 0, 1};
    ASSERT_EQ(p.argument_bytes(4), expected.size() * (wide ? 8 : 4));
    for (std::size_t w = 0; w < expected.size(); ++w) {
      EXPECT_EQ(wide ? read<std::int64_t>(p, 4, w) : read<std::int32_t>(p, 4, w), expected[w]) << w;
    }
    EXPECT_EQ(p.argument_bytes(5), wide ? 8u : 4u);
    EXPECT_EQ(wide ? read<std::int64_t>(p, 5) : read<std::int32_t>(p, 5), 20);
    EXPECT_EQ(read<unsigned>(p, 6), 3u);
  }
}

TEST(KernelArgs, RefusesWhatTheListDoesNotDeclare) {
  jd::kernel_args args(false);
  args.pointer("float*", "out").index("n").value("double", "param", sizeof(double));
  jd::kernel_args::packer p(args);
  EXPECT_THROW(p.index(3), nd::error);  // a pointer comes first
  p.pointer(nullptr);
  EXPECT_THROW(p.value(1.0f), nd::error);  // a float where an int is declared
  p.index(3);
  EXPECT_THROW(p.value(1.0f), nd::error);  // 4 bytes where a double is declared
  p.value(1.0);
  EXPECT_THROW(p.pointer(nullptr), nd::error);  // nothing left
  jd::kernel_args one(false);
  one.indexer("index", 2, 2);
  jd::kernel_args::packer q(one);
  const std::vector<nd::strides_t> three{{1, 1}, {1, 1}, {1, 1}};
  EXPECT_THROW(q.indexer(1, nd::shape_t{1, 1}, three), nd::error);  // 3 operands for 2
}

TEST(KernelArgs, LargeIndexersMoveToTheHeap) {
  constexpr int ndim = 16;
  constexpr int operands = 20;
  jd::kernel_args args(true);
  args.pointer("float*", "out").indexer("index", ndim, operands).index("n");
  jd::kernel_args::packer p(args);
  const nd::shape_t shape(ndim, 2);
  std::vector<nd::strides_t> strides;
  for (int a = 0; a < operands; ++a) {
    strides.emplace_back(ndim, a);
  }
  p.pointer(reinterpret_cast<const void*>(0x40)).indexer(1 << ndim, shape, strides).index(7);
  ASSERT_EQ(p.argument_bytes(1), (1u + ndim + ndim * operands) * 8u);
  EXPECT_EQ(read<const void*>(p, 0), reinterpret_cast<const void*>(0x40));  // survived the move
  EXPECT_EQ(read<std::int64_t>(p, 1, 0), 1 << ndim);
  EXPECT_EQ(read<std::int64_t>(p, 1, 1 + ndim + ndim * (operands - 1)), operands - 1);
  EXPECT_EQ(read<std::int64_t>(p, 2), 7);
}
