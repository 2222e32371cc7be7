// ndcuda with libtorch on a real GPU: zero-copy exchange both ways, deleters once, views, the dtype map, streams
// and events ordering a real race both ways, and shared memory pools. Built only when CMake finds Torch.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <ndcuda/interop/torch.hpp>
#include <ndcuda/interop/torch_memory.hpp>
#include <ndcuda/ndcuda.hpp>
#include <optional>
#include <string>
#include <support/gpu.hpp>
#include <support/random_inputs.hpp>
#include <vector>

namespace nd = ndcuda;

namespace {

at::TensorOptions on_gpu(at::ScalarType t, int device = 0) {
  return at::TensorOptions().dtype(t).device(at::kCUDA, static_cast<c10::DeviceIndex>(device));
}

// A tensor's elements on the host, in C order, as float (torch does the gather and the cast).
std::vector<float> host_values(const at::Tensor& t) {
  const at::Tensor h = t.to(at::kFloat).contiguous().cpu();
  return {h.data_ptr<float>(), h.data_ptr<float>() + h.numel()};
}

// An ndarray sharing `base`'s memory whose owner counts its releases: proves DLPack's deleter ran exactly once.
nd::ndarray<float> counted_view(const nd::ndarray<float>& base, std::shared_ptr<std::atomic<int>> released) {
  std::shared_ptr<const void> owner(base.owner().get(), [keep = base.owner(), released](const void*) { ++*released; });
  return nd::ndarray<float>(std::move(owner), base.data(), nd::view_layout{base.shape(), base.strides(), 0},
                            base.device(), base.stream());
}

// Runs first, so that a plain run of the whole binary also swaps torch's allocator before torch allocates;
// ctest runs each test in its own process anyway.
TEST(TorchMemory, NdcudaResourceServesTorchAllocations) {
  NDCUDA_REQUIRE_GPU();
  if (c10::cuda::CUDACachingAllocator::get()->initialized()) {
    GTEST_SKIP() << "torch allocated CUDA memory before this test, so its allocator can no longer be swapped; run "
                    "this test alone (ctest does)";
  }
  auto counted = std::make_shared<nd::statistics_adaptor>(nd::default_resource(0));
  nd::use_ndcuda_memory_in_torch([counted](int device) -> std::shared_ptr<nd::memory_resource> {
    return device == 0 ? counted : nd::default_resource(device);
  });
  const std::uint64_t before = counted->stats().allocation_count;
  {
    // On torch's default (legacy) stream, then on a pool stream.
    const std::vector<float> values = nd::testing::normal_values<float>(1 << 20, 0.0, 1.0);
    at::Tensor t = at::from_blob(const_cast<float*>(values.data()), {1 << 20}, at::kFloat).to(on_gpu(at::kFloat));
    at::Tensor twice = t * 2.0f;
    EXPECT_GE(counted->stats().allocation_count, before + 2);
    EXPECT_GE(counted->stats().used_bytes, std::size_t{2} * sizeof(float) << 20);
    const std::vector<float> back = host_values(twice);
    for (std::size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(back[i], 2.0f * values[i]) << "at " << i;
    }
    const c10::cuda::CUDAStreamGuard on_pool(c10::cuda::getStreamFromPool());
    at::Tensor sum = twice.sum(at::kDouble);
    double expected = 0;
    for (const float v : values) {
      expected += 2.0 * v;
    }
    EXPECT_NEAR(sum.item<double>(), expected, 1e-9 * (1.0 + std::abs(expected)) + 1e-3);
    // A tensor that lives in ndcuda's pool goes to ndcuda and back like any other.
    const nd::ndarray<float> a = nd::from_torch<float>(twice);
    EXPECT_EQ(static_cast<const void*>(a.data()), twice.data_ptr());
    EXPECT_EQ(a.to_host(), back);
  }
  c10::cuda::device_synchronize();
  EXPECT_EQ(counted->stats().live_allocations, 0u) << counted->stats();
  EXPECT_ANY_THROW(nd::use_ndcuda_memory_in_torch());  // torch has allocated: too late to swap
}

TEST(TorchInterop, ToTorchSharesMemoryAndReleasesOnce) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> values = nd::testing::normal_values<float>(64 * 33, 0.0, 1.0);
  auto released = std::make_shared<std::atomic<int>>(0);
  std::optional<nd::ndarray<float>> a(counted_view(nd::asarray<float>(values, {64, 33}), released));
  std::optional<at::Tensor> t(nd::to_torch(*a));
  EXPECT_EQ(t->data_ptr(), static_cast<void*>(a->data()));  // zero copy
  EXPECT_EQ(t->scalar_type(), at::kFloat);
  EXPECT_EQ(t->device(), at::Device(at::kCUDA, 0));
  EXPECT_EQ(t->sizes().vec(), (std::vector<std::int64_t>{64, 33}));
  EXPECT_EQ(t->strides().vec(), (std::vector<std::int64_t>{33, 1}));
  EXPECT_EQ(host_values(*t), values);  // to_torch ordered torch's stream after the upload

  // Torch writes, ndcuda reads the same bytes.
  t->mul_(-3.0f);
  c10::cuda::getCurrentCUDAStream().synchronize();
  const std::vector<float> after = a->to_host();
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(after[i], -3.0f * values[i]) << "at " << i;
  }

  a.reset();  // torch still holds the memory
  EXPECT_EQ(released->load(), 0);
  EXPECT_EQ(host_values(*t)[5], -3.0f * values[5]);
  t.reset();  // the last user: DLPack's deleter runs, once
  EXPECT_EQ(released->load(), 1);
}

TEST(TorchInterop, FromTorchSharesMemoryAndReleasesOnce) {
  NDCUDA_REQUIRE_GPU();
  const std::size_t n = 4097;
  const std::vector<float> values = nd::testing::normal_values<float>(n, 0.0, 1.0);
  void* raw = nullptr;
  ASSERT_EQ(cudaMalloc(&raw, n * sizeof(float)), cudaSuccess);
  auto freed = std::make_shared<std::atomic<int>>(0);
  std::optional<at::Tensor> t(at::from_blob(
      raw, {static_cast<std::int64_t>(n)},
      [freed](void* p) {
        ++*freed;
        (void)cudaFree(p);
      },
      on_gpu(at::kFloat)));
  t->copy_(at::from_blob(const_cast<float*>(values.data()), {static_cast<std::int64_t>(n)}, at::kFloat));

  std::optional<nd::ndarray<float>> a(nd::from_torch<float>(*t));  // ordered after torch's copy
  EXPECT_EQ(static_cast<void*>(a->data()), raw);
  EXPECT_EQ(a->shape(), (nd::shape_t{static_cast<nd::index_t>(n)}));
  EXPECT_EQ(a->to_host(), values);

  (*a)(nd::ellipsis) = *a * 2.0f + 1.0f;  // ndcuda writes, torch reads the same bytes
  a->stream().synchronize();
  const std::vector<float> seen = host_values(*t);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(seen[i], values[i] * 2.0f + 1.0f) << "at " << i;
  }

  t.reset();  // the array still holds the storage
  EXPECT_EQ(freed->load(), 0);
  EXPECT_EQ(a->to_host()[7], values[7] * 2.0f + 1.0f);
  a.reset();
  EXPECT_EQ(freed->load(), 1);
}

TEST(TorchInterop, StridedAndOffsetViewsKeepTheirLayout) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> values = nd::testing::normal_values<float>(6 * 8, 0.0, 1.0);
  const auto at_rc = [&](std::int64_t r, std::int64_t c) { return values[static_cast<std::size_t>(r * 8 + c)]; };
  const nd::ndarray<float> base = nd::asarray<float>(values, {6, 8});

  // ndcuda view -> torch: base[1:5, 2:8:2] starts 10 elements in, strides (8, 2).
  const nd::ndarray<float> v = base(nd::slice(1, 5), nd::slice(2, 8, 2));
  const at::Tensor tv = nd::to_torch(v);
  EXPECT_EQ(tv.data_ptr(), static_cast<void*>(base.data() + 10));
  EXPECT_EQ(tv.sizes().vec(), (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(tv.strides().vec(), (std::vector<std::int64_t>{8, 2}));
  std::vector<float> expected;
  for (std::int64_t r = 1; r < 5; ++r) {
    for (std::int64_t c = 2; c < 8; c += 2) {
      expected.push_back(at_rc(r, c));
    }
  }
  EXPECT_EQ(host_values(tv), expected);

  // A transpose keeps its strides (1, 8).
  const at::Tensor tt = nd::to_torch(base.T());
  EXPECT_EQ(tt.strides().vec(), (std::vector<std::int64_t>{1, 8}));
  expected.clear();
  for (std::int64_t c = 0; c < 8; ++c) {
    for (std::int64_t r = 0; r < 6; ++r) {
      expected.push_back(at_rc(r, c));
    }
  }
  EXPECT_EQ(host_values(tt), expected);

  // Negative strides have no torch form.
  EXPECT_THROW((void)nd::to_torch(base(nd::all, nd::slice(7, std::nullopt, -1))), nd::dlpack_error);

  // torch view -> ndcuda: x[2:5, 1::3] has a storage offset of 2 * 9 + 1 and strides (9, 3); then its transpose.
  const at::Tensor x = nd::to_torch(nd::asarray<float>(nd::testing::normal_values<float>(7 * 9, 0.0, 1.0), {7, 9}));
  const at::Tensor xs = x.slice(0, 2, 5).slice(1, 1, 9, 3);
  const nd::ndarray<float> a = nd::from_torch<float>(xs);
  EXPECT_EQ(static_cast<void*>(a.data()), xs.data_ptr());
  EXPECT_EQ(static_cast<const char*>(xs.data_ptr()) - static_cast<const char*>(x.data_ptr()),
            static_cast<std::ptrdiff_t>((2 * 9 + 1) * sizeof(float)));
  EXPECT_EQ(a.shape(), (nd::shape_t{3, 3}));
  EXPECT_EQ(a.strides(), (nd::strides_t{9, 3}));
  EXPECT_EQ(a.to_host(), host_values(xs));
  const nd::ndarray<float> at_ = nd::from_torch<float>(xs.t());
  EXPECT_EQ(at_.strides(), (nd::strides_t{3, 9}));
  EXPECT_EQ(at_.to_host(), host_values(xs.t()));
}

TEST(TorchInterop, EmptyArraysAndTensorsCrossBothWays) {
  NDCUDA_REQUIRE_GPU();
  const at::Tensor t = nd::to_torch(nd::zeros<float>({0, 3}));
  EXPECT_EQ(t.sizes().vec(), (std::vector<std::int64_t>{0, 3}));
  EXPECT_TRUE(t.is_cuda());
  const nd::ndarray<double> a = nd::from_torch<double>(at::empty({4, 0}, on_gpu(at::kDouble)));
  EXPECT_EQ(a.shape(), (nd::shape_t{4, 0}));
  EXPECT_EQ(a.size(), 0);
}

// dtype -> torch scalar type, checked bit for bit both ways.
template <class T>
void expect_dtype_maps(at::ScalarType expected) {
  SCOPED_TRACE(std::string(nd::name(nd::dtype_of<T>)));
  const std::size_t n = 301;
  const auto values = nd::testing::random_bit_patterns<T>(n);
  const nd::ndarray<T> a = nd::asarray<T>(std::span<const T>(values.get(), n), {7, 43});
  const at::Tensor t = nd::to_torch(a);
  EXPECT_EQ(t.scalar_type(), expected);
  EXPECT_EQ(t.element_size(), static_cast<std::int64_t>(sizeof(T)));
  EXPECT_EQ(t.data_ptr(), static_cast<const void*>(a.data()));
  c10::cuda::getCurrentCUDAStream().synchronize();
  std::vector<unsigned char> bytes(n * sizeof(T));
  ASSERT_EQ(cudaMemcpy(bytes.data(), t.data_ptr(), bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(bytes.data(), static_cast<const void*>(values.get()), bytes.size()), 0);

  const nd::ndarray<T> back = nd::from_torch<T>(t);
  EXPECT_EQ(back.data(), a.data());
  const auto host = back.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    T got = host[i];
    ASSERT_EQ(std::memcmp(static_cast<const void*>(&got), static_cast<const void*>(&values[i]), sizeof(T)), 0)
        << "at " << i;
  }
}

TEST(TorchInterop, DtypesMapBothWays) {
  NDCUDA_REQUIRE_GPU();
  expect_dtype_maps<bool>(at::kBool);
  expect_dtype_maps<std::int8_t>(at::kChar);
  expect_dtype_maps<std::int16_t>(at::kShort);
  expect_dtype_maps<std::int32_t>(at::kInt);
  expect_dtype_maps<std::int64_t>(at::kLong);
  expect_dtype_maps<std::uint8_t>(at::kByte);
  expect_dtype_maps<std::uint16_t>(at::kUInt16);
  expect_dtype_maps<std::uint32_t>(at::kUInt32);
  expect_dtype_maps<std::uint64_t>(at::kUInt64);
  expect_dtype_maps<__half>(at::kHalf);
  expect_dtype_maps<__nv_bfloat16>(at::kBFloat16);
  expect_dtype_maps<float>(at::kFloat);
  expect_dtype_maps<double>(at::kDouble);
  expect_dtype_maps<std::complex<float>>(at::kComplexFloat);
  expect_dtype_maps<std::complex<double>>(at::kComplexDouble);
}

TEST(TorchInterop, HalfAndBfloat16ValuesComputeInTorch) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> source = nd::testing::normal_values<float>(1000, 0.0, 1.0);
  std::vector<__half> h(source.size());
  std::vector<__nv_bfloat16> b(source.size());
  double sum_h = 0;
  double sum_b = 0;
  for (std::size_t i = 0; i < source.size(); ++i) {
    h[i] = __float2half(source[i]);
    b[i] = __float2bfloat16(source[i]);
    sum_h += static_cast<double>(__half2float(h[i]));
    sum_b += static_cast<double>(__bfloat162float(b[i]));
  }
  // Summed in float64 by torch, every element exact: only the order of additions differs.
  const double got_h = nd::to_torch(nd::asarray<__half>(h, {1000})).sum(at::kDouble).item<double>();
  const double got_b = nd::to_torch(nd::asarray<__nv_bfloat16>(b, {1000})).sum(at::kDouble).item<double>();
  EXPECT_NEAR(got_h, sum_h, 1e-9 * (1.0 + std::abs(sum_h)));
  EXPECT_NEAR(got_b, sum_b, 1e-9 * (1.0 + std::abs(sum_b)));
  // And torch's halves read as ndcuda's.
  const at::Tensor th = at::arange(0, 64, on_gpu(at::kHalf)) * 0.5;
  const auto back = nd::from_torch<__half>(th).to_host();
  for (std::size_t i = 0; i < back.size(); ++i) {
    ASSERT_EQ(__half2float(back[i]), 0.5f * static_cast<float>(i));
  }
}

TEST(TorchInterop, RefusalsSayWhatToDoAndLeaveTheTensorAlone) {
  NDCUDA_REQUIRE_GPU();
  const at::Tensor f = at::ones({3}, on_gpu(at::kFloat));
  try {
    (void)nd::from_torch<std::int32_t>(f);
    ADD_FAILURE() << "no exception";
  } catch (const nd::dlpack_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("from_torch<int32>"), std::string::npos) << m;
    EXPECT_NE(m.find("torch.float32"), std::string::npos) << m;
    EXPECT_NE(m.find("float32 in ndcuda"), std::string::npos) << m;
  }
  EXPECT_EQ(f.use_count(), 1);                                                 // nothing exported, nothing kept
  EXPECT_THROW((void)nd::from_torch<float>(at::ones({3})), nd::dlpack_error);  // host tensor
  EXPECT_THROW((void)nd::from_torch<float>(at::ones({3}, on_gpu(at::kFloat)).requires_grad_()), nd::dlpack_error);
  EXPECT_THROW((void)nd::from_torch<float>(at::Tensor()), nd::dlpack_error);
  EXPECT_THROW((void)nd::from_torch_stream(c10::cuda::getDefaultCUDAStream(0)), nd::error);
  EXPECT_EQ(f.sum().item<float>(), 3.0f);
}

// No GPU needed: these are refused before CUDA is touched.
TEST(TorchInterop, HostAndUndefinedTensorsAreRefusedWithoutCuda) {
  try {
    (void)nd::from_torch<float>(at::ones({3}));
    ADD_FAILURE() << "no exception";
  } catch (const nd::dlpack_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("from_torch was given a tensor on cpu"), std::string::npos) << m;
    EXPECT_NE(m.find("t.to(torch::kCUDA)"), std::string::npos) << m;
  }
  try {
    (void)nd::from_torch<float>(at::Tensor());
    ADD_FAILURE() << "no exception";
  } catch (const nd::dlpack_error& e) {
    EXPECT_NE(std::string(e.what()).find("undefined at::Tensor"), std::string::npos) << e.what();
  }
}

TEST(TorchInterop, StreamsCrossBothWays) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> values = nd::testing::normal_values<float>(5000, 0.0, 1.0);
  {
    // ndcuda work on torch's current stream.
    const c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromPool());
    const nd::stream ts = nd::from_torch_stream(c10::cuda::getCurrentCUDAStream());
    EXPECT_EQ(ts.handle(), c10::cuda::getCurrentCUDAStream().stream());
    EXPECT_FALSE(ts.owns_handle());
    EXPECT_EQ(nd::stream::wrap(c10::cuda::getCurrentCUDAStream()), ts);  // the same, spelled with wrap
    const nd::ndarray<float> a = nd::asarray<float>(values, {5000}, ts);
    const nd::ndarray<float> b = nd::sin(a) * 3.0f;                                     // queued on ts
    const std::vector<float> torch_sin = host_values(at::sin(nd::to_torch(a)) * 3.0f);  // same stream: in order
    const std::vector<float> nd_sin = b.to_host();
    for (std::size_t i = 0; i < values.size(); ++i) {
      ASSERT_NEAR(nd_sin[i], 3.0 * std::sin(static_cast<double>(values[i])), 1e-5) << "at " << i;
      ASSERT_NEAR(torch_sin[i], 3.0 * std::sin(static_cast<double>(values[i])), 1e-5) << "at " << i;
    }
  }
  {
    // torch work on an ndcuda stream.
    const nd::stream s;
    const c10::cuda::CUDAStreamGuard guard(nd::to_torch_stream(s));
    EXPECT_EQ(c10::cuda::getCurrentCUDAStream().stream(), s.handle());
    const nd::ndarray<float> a = nd::asarray<float>(values, {5000}, s);
    const at::Tensor t = nd::to_torch(a) + 1.0f;  // queued on s, after the upload
    const nd::ndarray<float> back = nd::from_torch<float>(t, s);
    const std::vector<float> got = back.to_host();
    for (std::size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(got[i], values[i] + 1.0f) << "at " << i;
    }
  }
}

// A long write on one stream and a read on another: without the event the read starts at once and sees partly
// written data (reported below, not asserted: it is a race); with the event it must see every write.
TEST(TorchInterop, EventsOrderTheStreamsBothWays) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::int64_t n = std::int64_t{1} << 26;  // 256 MiB of float: each pass takes ~0.1 ms or more
  constexpr int passes = 60;
  const nd::stream ns;
  const c10::cuda::CUDAStream torch_side = c10::cuda::getStreamFromPool();
  const nd::stream ts = nd::from_torch_stream(torch_side);
  const c10::cuda::CUDAStreamGuard guard(torch_side);

  nd::ndarray<float> a = nd::zeros<float>({n}, ns);
  a += 1.0f;  // compiles the kernels now, not between the writes and the reads below
  (void)nd::min(a).item();
  (void)nd::max(a).item();
  a(nd::ellipsis) = 0.0f;
  ns.synchronize();
  const at::Tensor t = nd::to_torch(a);  // torch's view of the same memory

  // ndcuda writes, torch reads.
  const auto ndcuda_writes = [&] {
    for (int i = 0; i < passes; ++i) {
      a += 1.0f;
    }
  };
  ndcuda_writes();
  const float racy_min = t.min().item<float>();  // not ordered: may start before the writes end
  ns.synchronize();
  a(nd::ellipsis) = 0.0f;
  ndcuda_writes();
  nd::event written(0, false);
  written.record(ns);
  ts.wait(written);
  EXPECT_EQ(t.min().item<float>(), static_cast<float>(passes));
  EXPECT_EQ(t.max().item<float>(), static_cast<float>(passes));
  std::printf("[ ndcuda ] ndcuda -> torch without the event: torch saw min %g of %d (%s)\n", racy_min, passes,
              racy_min == passes ? "no race this time" : "race observed");

  // torch writes, ndcuda reads.
  torch_side.synchronize();
  t.zero_();
  const auto torch_writes = [&] {
    for (int i = 0; i < passes; ++i) {
      t.add_(1.0f);
    }
  };
  torch_writes();
  const float racy = nd::min(a).item();  // on ns, not ordered after torch_side
  torch_side.synchronize();
  t.zero_();
  torch_writes();
  nd::event torch_done(0, false);
  torch_done.record(ts);
  ns.wait(torch_done);
  EXPECT_EQ(nd::min(a).item(), static_cast<float>(passes));
  EXPECT_EQ(nd::max(a).item(), static_cast<float>(passes));
  std::printf("[ ndcuda ] torch -> ndcuda without the event: ndcuda saw min %g of %d (%s)\n", racy, passes,
              racy == passes ? "no race this time" : "race observed");
}

TEST(TorchMemory, TorchAllocatorServesNdarrays) {
  NDCUDA_REQUIRE_GPU();
  auto torch_pool = std::make_shared<nd::statistics_adaptor>(std::make_shared<nd::torch_memory_resource>(0));
  const nd::stream s;
  const std::vector<float> values = nd::testing::normal_values<float>(100000, 0.0, 1.0);
  {
    const std::shared_ptr<nd::memory_resource> previous = nd::set_default_resource(0, torch_pool);
    nd::ndarray<float> a = nd::asarray<float>(values, {100000}, s);
    nd::ndarray<float> b = a * 2.0f - 1.0f;
    nd::set_default_resource(0, previous);
    EXPECT_GE(torch_pool->stats().allocation_count, 2u);
    const std::vector<float> got = b.to_host();
    for (std::size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(got[i], values[i] * 2.0f - 1.0f) << "at " << i;
    }
  }
  s.synchronize();
  EXPECT_EQ(torch_pool->stats().live_allocations, 0u);

  // Returned on another stream than it was taken on: the resource orders the two.
  nd::torch_memory_resource direct(0);
  const nd::stream other;
  void* p = direct.allocate(1 << 20, s);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(cudaMemsetAsync(p, 0, 1 << 20, other.handle()), cudaSuccess);
  direct.deallocate(p, 1 << 20, other);
  EXPECT_EQ(direct.allocate(0, s), nullptr);
  int local = 0;
  EXPECT_THROW(direct.deallocate(&local, sizeof local, s), nd::error);
  other.synchronize();
}

}  // namespace
