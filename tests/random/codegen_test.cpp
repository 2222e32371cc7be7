// Random draws as expression leaves, without a GPU: the generated bodies and sources (every
// distribution and dtype, fused into elementwise kernels of every layout variant and into
// reductions) compile with NVRTC; the API's shape rules and NumPy's parameter errors; keys.
#include <gtest/gtest.h>

#include <ndcuda/ops/elementwise.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <ndcuda/random.hpp>

#include "jit/elementwise_source.hpp"
#include "jit/elementwise_state.hpp"
#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "support/fake_array.hpp"

namespace nd = ndcuda;
namespace rd = ndcuda::random::detail;
namespace jd = ndcuda::jit::detail;
using nd::dtype;

namespace {

const nd::compute_capability sm90{9, 0};

using nd::testing::fake;

// A draw whose offset cell is a fake device address: code generation never touches it.
template <int E, int W, class T>
nd::detail::random_leaf<E, W, nd::dtype_of<T>> fake_draw(nd::shape_t shape) {
  static std::uintptr_t next = 0x20000;  // each draw its own offset cell, as reserve() gives
  next += 8;
  rd::reservation r{
      {{1, 2}, reinterpret_cast<const std::uint64_t*>(next), 0}, nullptr, nd::stream::wrap(cudaStreamPerThread, 0), 0};
  return {r, nd::contiguous_layout(std::move(shape))};
}

template <class Out, class X>
std::string body_of(const X& x) {
  const nd::detail::inputs_of<X> in(x);
  nd::detail::emit_context c{in.mapping.data()};
  const nd::detail::node_code root = nd::detail::emitter<X>::emit(c);
  return c.values.body(nd::dtype_of<Out>, root);
}

template <class Out, class X>
const jd::elementwise_state& state_of(const X& x) {
  const nd::detail::inputs_of<X> in(x);
  return nd::detail::expression_state<Out, X>(in);
}

// Compiles `state`'s kernel for each layout variant the engines may pick for it (`all`), or for
// the dense and the N-d strided ones (32-bit) only: big bodies cost NVRTC seconds per variant.
void compile_variants(const jd::elementwise_state& state, bool all = true) {
  for (bool index64 : {false, true}) {
    if (index64 && !all) {
      break;
    }
    std::vector<jd::elementwise_plan> plans;
    jd::elementwise_plan dense;
    dense.index64 = index64;
    dense.vector = static_cast<int>(16 / state.itemsizes[0]);
    plans.push_back(dense);
    for (int kind : {0, 1, 2, 3}) {
      if ((!all && kind != 3) || index64) {  // 64-bit indexing only changes the index type
        continue;
      }
      jd::elementwise_plan p;
      p.contiguous = false;
      p.index64 = index64;
      p.shape = kind == 3 ? nd::shape_t{4, 8, 16} : nd::shape_t{64, 64};
      p.staged = kind == 1 ? (std::uint32_t{1} << state.signature.in.size()) - 1 : 0;
      p.vector = kind == 2 ? static_cast<int>(16 / state.itemsizes[0]) : 1;
      plans.push_back(p);
    }
    for (const auto& plan : plans) {
      const std::string source = jd::elementwise_source(state.body, state.name, state.signature, plan);
      const auto key = jd::make_key(source, "case.cu", {jd::elementwise_kernel_name(state.name, plan)},
                                    jd::generated_kernel_options(), {90, false});
      ASSERT_NO_THROW((void)jd::nvrtc_compile(key)) << source;
    }
  }
}

}  // namespace

TEST(RandomCodegen, DrawsAreCallsOnTheirComputedInput) {
  const auto x = fake<float>({64});
  const auto z = rd::node<rd::normal_spec<dtype::float32>>(fake_draw<2, 2, float>({64}));
  const auto y = x + 0.1f * z;
  EXPECT_EQ(body_of<float>(y), "out = ndcuda::nd_add(in0, ndcuda::nd_multiply(s0, ndcuda::rng::normal_f32(in1)))");
  const auto& state = state_of<float>(y);
  ASSERT_EQ(state.signature.sources.size(), 2u);
  EXPECT_TRUE(state.signature.sources[0].empty());
  EXPECT_EQ(state.signature.sources[1], "ndcuda::detail::philox_source<2, 2>");
  // Its contiguous launches loop over waves (src/jit/elementwise.cpp); x + x's take a full grid.
  EXPECT_TRUE(state.computes_inputs);
  EXPECT_FALSE(state_of<float>(x + 0.1f * x).computes_inputs);
  jd::elementwise_plan dense;
  dense.vector = 4;
  const std::string source = jd::elementwise_source(state.body, state.name, state.signature, dense);
  EXPECT_NE(source.find("#include \"ndcuda/random.cuh\"\n#include \"ndcuda/elementwise.cuh\""), std::string::npos);
  EXPECT_NE(source.find("ndcuda::detail::philox_source<2, 2> in1"), std::string::npos) << source;
  // A draw used twice is one input (one set of values), not two draws.
  const auto zz = z * z;
  const nd::detail::inputs_of<std::remove_cvref_t<decltype(zz)>> in(zz);
  EXPECT_EQ(in.count, 1u);
}

TEST(RandomCodegen, EveryDistributionCompilesInEveryElementwiseVariant) {
  // All distributions and dtypes in two kernels (one NVRTC compile per layout variant each):
  // every device function is instantiated in every variant's loads (vectors, tiles, 2-d, N-d).
  const auto x = fake<float>({64});
  const auto d = fake<double>({64});
  using h = __half;
  using b = __nv_bfloat16;
  const auto f32 = [](double v) { return nd::detail::scalar_leaf<dtype::float32>{static_cast<float>(v)}; };
  const auto f64 = [](double v) { return nd::detail::scalar_leaf<dtype::float64>{v}; };
  const auto closed = rd::node<rd::random_spec<dtype::float32>>(fake_draw<1, 1, float>({64})) +
                      rd::node<rd::random_spec<dtype::float16>>(fake_draw<1, 1, h>({64})) +
                      rd::node<rd::random_spec<dtype::bfloat16>>(fake_draw<1, 1, b>({64})) +
                      rd::node<rd::random_spec<dtype::float64>>(fake_draw<1, 2, double>({64})) +
                      rd::node<rd::transform_spec<rd::normal_name, rd::affine_fn, dtype::float64>>(
                          rd::node<rd::normal_spec<dtype::float64>>(fake_draw<2, 4, double>({64})),
                          rd::param_node<dtype::float64>(d), f64(2.0)) +
                      rd::node<rd::normal_spec<dtype::float16>>(fake_draw<2, 2, h>({64})) +
                      rd::node<rd::transform_spec<rd::lognormal_name, rd::lognormal_fn, dtype::float32>>(
                          rd::node<rd::normal_spec<dtype::float32>>(fake_draw<2, 2, float>({64})),
                          rd::param_node<dtype::float32>(x), f32(0.5)) +
                      rd::node<rd::exponential_spec<dtype::float32>>(fake_draw<1, 1, float>({64})) +
                      rd::node<rd::exponential_spec<dtype::float64>>(fake_draw<1, 2, double>({64})) +
                      rd::node<rd::transform_spec<rd::uniform_name, rd::between_fn, dtype::float32>>(
                          rd::node<rd::random_spec<dtype::float32>>(fake_draw<1, 1, float>({64})),
                          rd::param_node<dtype::float32>(x), f32(3.0)) +
                      rd::node<rd::bits_spec>(fake_draw<1, 2, std::uint64_t>({64}));
  static_assert(std::remove_cvref_t<decltype(closed)>::arrays + std::remove_cvref_t<decltype(closed)>::scalars <=
                nd::detail::max_fused_leaves);
  compile_variants(state_of<double>(closed));
  const auto i8 = fake<std::int8_t>({64});
  const auto rejection =
      rd::node<rd::integers_spec<dtype::int8>>(fake_draw<1, 1, std::int8_t>({64}), rd::param_node<dtype::int8>(i8),
                                               nd::detail::scalar_leaf<dtype::int8>{100},
                                               nd::detail::scalar_leaf<dtype::int32>{0}) +
      rd::node<rd::integers_spec<dtype::uint64>>(
          fake_draw<1, 2, std::uint64_t>({64}), nd::detail::scalar_leaf<dtype::uint64>{0},
          nd::detail::scalar_leaf<dtype::uint64>{~0ull}, nd::detail::scalar_leaf<dtype::int32>{1}) +
      rd::node<rd::gamma_spec<dtype::float32>>(fake_draw<1, 0, float>({64}), rd::param_node<dtype::float32>(x)) +
      rd::node<rd::gamma_spec<dtype::float64>>(fake_draw<1, 0, double>({64}), f64(0.5)) +
      rd::node<rd::beta_spec<dtype::float32>>(fake_draw<1, 0, float>({64}), rd::param_node<dtype::float64>(d),
                                              f64(0.5)) +
      rd::node<rd::beta_spec<dtype::float64>>(fake_draw<1, 0, double>({64}), f64(2.0), f64(3.0)) +
      rd::node<rd::poisson_spec<dtype::int64>>(fake_draw<1, 0, std::int64_t>({64}), rd::param_node<dtype::float64>(d)) +
      rd::node<rd::binomial_spec<dtype::int64>>(fake_draw<1, 0, std::int64_t>({64}),
                                                rd::param_node<dtype::int64>(fake<std::int64_t>({64})), f64(0.3));
  static_assert(std::remove_cvref_t<decltype(rejection)>::arrays + std::remove_cvref_t<decltype(rejection)>::scalars <=
                nd::detail::max_fused_leaves);
  compile_variants(state_of<double>(rejection), false);
}

TEST(RandomCodegen, DrawsFuseIntoReductions) {
  // Monte Carlo pi as one reduction: mean(u^2 + v^2 < 1) over two draws, no memory read.
  const auto u = rd::node<rd::random_spec<dtype::float32>>(fake_draw<1, 1, float>({1 << 20}));
  const auto v = rd::node<rd::random_spec<dtype::float32>>(fake_draw<1, 1, float>({1 << 20}));
  const auto inside = u * u + v * v < 1.0f;
  using N = std::remove_cvref_t<decltype(inside)>;
  const nd::detail::inputs_of<N> in(inside);
  EXPECT_EQ(in.count, 2u);
  const auto& state = nd::detail::reduction_state_for<nd::detail::reduce_kind::mean, void, N>(in);
  const std::vector<nd::strides_t> strides(2, nd::strides_t{1});
  EXPECT_NO_THROW(nd::detail::compile_reduction(state, sm90, nd::shape_t{1 << 20}, {true}, strides));
  const std::string source = nd::detail::reduction_source_for(state, nd::shape_t{1 << 20}, {true}, strides);
  EXPECT_NE(source.find("ndcuda::detail::philox_source<1, 1> in0"), std::string::npos) << source;
  // A 2-d draw summed along its rows (rows and columns strategies), float64 and normal.
  const auto g = rd::node<rd::normal_spec<dtype::float64>>(fake_draw<2, 4, double>({512, 300}));
  using G = std::remove_cvref_t<decltype(g)>;
  const nd::detail::inputs_of<G> gin(g);
  const auto& gs = nd::detail::reduction_state_for<nd::detail::reduce_kind::sum, void, G>(gin);
  const std::vector<nd::strides_t> gstrides(1, nd::strides_t{300, 1});
  EXPECT_NO_THROW(nd::detail::compile_reduction(gs, sm90, nd::shape_t{512, 300}, {false, true}, gstrides));
  EXPECT_NO_THROW(nd::detail::compile_reduction(gs, sm90, nd::shape_t{512, 300}, {true, false}, gstrides));
}

TEST(RandomApi, ParameterErrorsAreNumPysBeforeAnyDeviceWork) {
  auto g = nd::random::default_rng(42);
  EXPECT_THROW((void)g.normal<float>(0.0f, -1.0f, nd::shape_t{4}), nd::error);
  EXPECT_THROW((void)g.exponential<float>(-2.0, nd::shape_t{4}), nd::error);
  EXPECT_THROW((void)g.integers<int>(5, 5, nd::shape_t{4}), nd::error);
  EXPECT_THROW((void)g.integers<int>(6, 5, nd::shape_t{4}, true), nd::error);
  EXPECT_THROW((void)g.integers<std::uint8_t>(0, 300, nd::shape_t{4}), nd::error);  // out of bounds for uint8
  EXPECT_THROW((void)g.integers<std::uint8_t>(0, 257, nd::shape_t{4}), nd::error);  // 256 is the exclusive limit
  EXPECT_THROW((void)g.standard_gamma<double>(-1.0, nd::shape_t{4}), nd::error);
  EXPECT_THROW((void)g.beta<double>(0.0, 1.0, nd::shape_t{4}), nd::error);
  EXPECT_THROW((void)g.poisson(-1.0, nd::shape_t{4}), nd::error);
  EXPECT_THROW((void)g.binomial(10, 1.5, nd::shape_t{4}), nd::error);
  EXPECT_THROW((void)g.binomial(-1, 0.5, nd::shape_t{4}), nd::error);
  try {
    (void)g.integers<int>(5, 5, nd::shape_t{4});
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("low >= high"), std::string::npos) << e.what();
  }
}

TEST(RandomApi, DrawShapesFollowNumPy) {
  const auto mu = fake<float>({3});
  const auto m2 = fake<float>({4, 1});
  EXPECT_EQ(rd::draw_shape("normal", std::nullopt, mu, 1.0f), (nd::shape_t{3}));
  EXPECT_EQ(rd::draw_shape("normal", std::nullopt, mu, m2), (nd::shape_t{4, 3}));
  EXPECT_EQ(rd::draw_shape("normal", std::nullopt, 0.0, 1.0), (nd::shape_t{}));
  EXPECT_EQ(rd::draw_shape("normal", nd::shape_t{5, 4, 3}, mu, m2), (nd::shape_t{5, 4, 3}));
  EXPECT_EQ(rd::draw_shape("normal", nd::shape_t{2, 3}, mu + 1.0f), (nd::shape_t{2, 3}));
  // Parameters must broadcast to size, not the other way round.
  EXPECT_THROW((void)rd::draw_shape("normal", nd::shape_t{3}, m2), nd::shape_error);
  EXPECT_THROW((void)rd::draw_shape("normal", nd::shape_t{4}, mu), nd::shape_error);
}

TEST(RandomApi, KeysComeFromSeedSpawnAndJumps) {
  const auto a = nd::random::default_rng(42);
  EXPECT_EQ(a.key(), nd::random::default_rng(42).key());
  EXPECT_NE(a.key(), nd::random::default_rng(43).key());
  const auto children = a.spawn(3);
  const auto more = a.spawn(1);
  std::set<std::array<std::uint32_t, 2>> keys{a.key()};
  for (const auto& c : children) {
    keys.insert(c.key());
  }
  keys.insert(more[0].key());
  keys.insert(a.jumped().key());
  keys.insert(a.jumped(2).key());
  EXPECT_EQ(keys.size(), 7u);
  EXPECT_EQ(a.jumped(2).key(), a.jumped().jumped().key());
  // Spawning is deterministic: a fresh generator from the same seed spawns the same children.
  EXPECT_EQ(nd::random::default_rng(42).spawn(3)[2].key(), children[2].key());
  EXPECT_NE(children[0].spawn(1)[0].key(), children[1].spawn(1)[0].key());
}

TEST(RandomCodegen, GeneratorKernelsCompile) {
  EXPECT_NO_THROW(rd::compile_random_kernels(sm90));
}
