// to_dlpack/from_dlpack on real GPU memory: zero-copy round trips for every dtype, a tensor made by
// "another framework" (raw cudaMalloc), and release exactly once. Rename to dlpack_array_test.cpp
// once array/ has landed.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/interop/dlpack_array.hpp>
#include <optional>
#include <string>
#include <support/gpu.hpp>
#include <support/random_inputs.hpp>
#include <vector>

namespace nd = ndcuda;

namespace {

template <class T>
void expect_zero_copy_round_trip() {
  SCOPED_TRACE(std::string(nd::name(nd::dtype_of<T>)));
  const nd::shape_t shape{5, 17};
  const std::size_t n = 85;
  const auto values = nd::testing::random_bit_patterns<T>(n);
  // Optionals so that references can be dropped one at a time (ndarray assignment writes elements).
  std::optional<nd::ndarray<T>> a(nd::asarray<T>(std::span<const T>(values.get(), n), shape));
  std::weak_ptr<const void> memory = a->owner();
  a->stream().synchronize();
  DLManagedTensor* t = nd::to_dlpack(*a);
  EXPECT_EQ(t->dl_tensor.data, static_cast<void*>(a->data()));
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(t->dl_tensor.device.device_id, a->device());
  EXPECT_EQ(nd::from_dl_dtype(t->dl_tensor.dtype), nd::dtype_of<T>);
  std::optional<nd::ndarray<T>> b(nd::from_dlpack<T>(t));
  EXPECT_EQ(b->data(), a->data());  // shared, not copied
  EXPECT_EQ(b->shape(), shape);
  EXPECT_EQ(b->strides(), a->strides());
  const auto back = b->to_host();
  ASSERT_EQ(back.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const T x = back[i];
    ASSERT_EQ(std::memcmp(&x, &values[i], sizeof(T)), 0) << "element " << i;
  }
  a.reset();
  EXPECT_FALSE(memory.expired());  // b holds the memory through the tensor
  b.reset();
  EXPECT_TRUE(memory.expired());  // the tensor's deleter ran and released the original buffer
}

}  // namespace

TEST(DlpackArray, ZeroCopyRoundTripOfEveryDtype) {
  NDCUDA_REQUIRE_GPU();
  expect_zero_copy_round_trip<bool>();
  expect_zero_copy_round_trip<std::int8_t>();
  expect_zero_copy_round_trip<std::int16_t>();
  expect_zero_copy_round_trip<std::int32_t>();
  expect_zero_copy_round_trip<std::int64_t>();
  expect_zero_copy_round_trip<std::uint8_t>();
  expect_zero_copy_round_trip<std::uint16_t>();
  expect_zero_copy_round_trip<std::uint32_t>();
  expect_zero_copy_round_trip<std::uint64_t>();
  expect_zero_copy_round_trip<__half>();
  expect_zero_copy_round_trip<__nv_bfloat16>();
  expect_zero_copy_round_trip<float>();
  expect_zero_copy_round_trip<double>();
  expect_zero_copy_round_trip<std::complex<float>>();
  expect_zero_copy_round_trip<std::complex<double>>();
}

namespace {

// A tensor as another framework hands it over: its own cudaMalloc and a deleter that frees it.
struct raw_cuda_tensor {
  static inline int deletes = 0;
  DLManagedTensor managed{};
  std::int64_t shape[2] = {64, 33};

  raw_cuda_tensor() {
    void* p = nullptr;
    NDCUDA_CUDA_CHECK(cudaMalloc(&p, 64 * 33 * sizeof(float)));
    managed.dl_tensor.data = p;
    managed.dl_tensor.device = {kDLCUDA, 0};
    managed.dl_tensor.ndim = 2;
    managed.dl_tensor.dtype = {kDLFloat, 32, 1};
    managed.dl_tensor.shape = shape;
    managed.dl_tensor.strides = nullptr;  // C order, as pre-1.0 producers send it
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      (void)cudaFree(self->dl_tensor.data);
      ++deletes;
    };
  }
};

}  // namespace

TEST(DlpackArray, ImportsAForeignTensorAndFreesItOnce) {
  NDCUDA_REQUIRE_GPU();
  nd::device_guard guard{0};
  raw_cuda_tensor::deletes = 0;
  raw_cuda_tensor raw;
  const auto values = nd::testing::random_bit_patterns<float>(64 * 33);
  NDCUDA_CUDA_CHECK(
      cudaMemcpy(raw.managed.dl_tensor.data, values.get(), 64 * 33 * sizeof(float), cudaMemcpyHostToDevice));
  // A producer hands over finished data. cudaMemcpy from pageable memory may return before its DMA
  // lands, and ndcuda reads on its own stream, so the producer (this test) waits for its copy.
  NDCUDA_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_THROW((void)nd::from_dlpack<double>(&raw.managed), nd::dlpack_error);
  EXPECT_EQ(raw_cuda_tensor::deletes, 0);  // refused: still ours
  {
    auto a = nd::from_dlpack<float>(&raw.managed);
    EXPECT_EQ(a.shape(), (nd::shape_t{64, 33}));
    EXPECT_TRUE(a.is_contiguous());
    const auto host = a.to_host();
    EXPECT_EQ(std::memcmp(host.data(), values.get(), host.size() * sizeof(float)), 0);
    auto view = a;  // a second reference: still one deleter call
    EXPECT_EQ(raw_cuda_tensor::deletes, 0);
  }
  EXPECT_EQ(raw_cuda_tensor::deletes, 1);
}

namespace {

// A tensor with fake device memory (never dereferenced) and a counting deleter.
struct fake_cuda_tensor {
  static inline int deletes = 0;
  DLManagedTensor managed{};
  std::int64_t shape[2] = {4, 8};

  explicit fake_cuda_tensor(int device) {
    managed.dl_tensor.data = reinterpret_cast<void*>(std::uintptr_t{0x40000});
    managed.dl_tensor.device = {kDLCUDA, device};
    managed.dl_tensor.ndim = 2;
    managed.dl_tensor.dtype = {kDLFloat, 32, 1};
    managed.dl_tensor.shape = shape;
    managed.deleter = [](DLManagedTensor*) { ++deletes; };
  }
};

std::string from_dlpack_error(DLManagedTensor* t, std::optional<nd::stream> s) {
  try {
    (void)nd::from_dlpack<float>(t, std::move(s));
  } catch (const nd::dlpack_error& e) {
    return e.what();
  }
  return "<no dlpack_error thrown>";
}

}  // namespace

// Runs anywhere: device 99 is not visible on any machine, with or without a stream (no CUDA call
// is made for it: the stream is wrapped, and the refusal comes first).
TEST(DlpackArray, ATensorOnAnInvisibleDeviceIsRefusedAndStaysTheCallers) {
  fake_cuda_tensor::deletes = 0;
  fake_cuda_tensor t(99);
  std::string e = from_dlpack_error(&t.managed, std::nullopt);
  EXPECT_NE(e.find("it is on CUDA device 99"), std::string::npos) << e;
  EXPECT_NE(e.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << e;
  e = from_dlpack_error(&t.managed, nd::stream::wrap(cudaStreamPerThread, 0));
  EXPECT_NE(e.find("it is on CUDA device 99"), std::string::npos) << e;
  EXPECT_EQ(fake_cuda_tensor::deletes, 0);  // refused: the deleter did not run
  // Malformed fields are dlpack_errors through from_dlpack too.
  fake_cuda_tensor overflow(0);
  overflow.shape[0] = 1LL << 62;
  e = from_dlpack_error(&overflow.managed, std::nullopt);
  EXPECT_NE(e.find("array is too big"), std::string::npos) << e;
  EXPECT_EQ(fake_cuda_tensor::deletes, 0);
  if (nd::device_count() == 0) {
    // Here no device is visible at all: device 0 is refused with the reason.
    fake_cuda_tensor zero(0);
    e = from_dlpack_error(&zero.managed, std::nullopt);
    EXPECT_NE(e.find("no CUDA device is visible"), std::string::npos) << e;
    EXPECT_EQ(fake_cuda_tensor::deletes, 0);
  }
}

TEST(DlpackArray, AStreamOfAnotherDeviceIsRefused) {
  NDCUDA_REQUIRE_GPU();
  fake_cuda_tensor::deletes = 0;
  fake_cuda_tensor t(0);
  // A wrapped handle names device 1 without creating anything there (it need not exist).
  const std::string e = from_dlpack_error(&t.managed, nd::stream::wrap(cudaStreamPerThread, 1));
  EXPECT_NE(e.find("the stream given is on device 1"), std::string::npos) << e;
  EXPECT_EQ(fake_cuda_tensor::deletes, 0);
  // With real memory behind it, the same tensor and a stream of its device are taken.
  nd::device_guard guard{0};
  void* memory = nullptr;
  NDCUDA_CUDA_CHECK(cudaMalloc(&memory, 4 * 8 * sizeof(float)));
  t.managed.dl_tensor.data = memory;
  {
    auto a = nd::from_dlpack<float>(&t.managed, nd::stream::wrap(cudaStreamPerThread, 0));
    EXPECT_EQ(a.shape(), (nd::shape_t{4, 8}));
    EXPECT_EQ(a.device(), 0);
    EXPECT_EQ(fake_cuda_tensor::deletes, 0);
  }
  EXPECT_EQ(fake_cuda_tensor::deletes, 1);
  NDCUDA_CUDA_CHECK(cudaFree(memory));
}

// The driver's view of the memory is checked against the tensor's claim before anything reads it:
// a kDLCUDA tensor over pageable host memory would otherwise be an illegal address at the first
// read, and the context would be lost.
TEST(DlpackArray, MemoryThatIsNotWhatTheTensorClaimsIsRefused) {
  NDCUDA_REQUIRE_GPU();
  nd::device_guard guard{0};
  fake_cuda_tensor::deletes = 0;
  const auto expect_refused = [](fake_cuda_tensor& t, const std::string& reason) {
    const std::string e = from_dlpack_error(&t.managed, std::nullopt);
    EXPECT_NE(e.find(reason), std::string::npos) << e;
    EXPECT_EQ(fake_cuda_tensor::deletes, 0) << "a refused tensor stays the caller's";
  };
  std::vector<float> pageable(4 * 8, 1.5F);
  fake_cuda_tensor on_host(0);
  on_host.managed.dl_tensor.data = pageable.data();
  expect_refused(on_host, "the driver does not know its memory");

  void* pinned = nullptr;
  NDCUDA_CUDA_CHECK(cudaMallocHost(&pinned, 4 * 8 * sizeof(float)));
  const std::vector<float> values = nd::testing::uniform_values<float>(4 * 8, -3.0, 3.0);
  std::memcpy(pinned, values.data(), values.size() * sizeof(float));
  fake_cuda_tensor pinned_as_device(0);
  pinned_as_device.managed.dl_tensor.data = pinned;
  expect_refused(pinned_as_device, "is pinned host memory, not device memory");
  pinned_as_device.managed.dl_tensor.device.device_type = kDLCUDAHost;  // its true kind: taken, readable
  {
    const auto a = nd::from_dlpack<float>(&pinned_as_device.managed);
    EXPECT_EQ(a.to_host(), values);
  }
  EXPECT_EQ(fake_cuda_tensor::deletes, 1);
  fake_cuda_tensor::deletes = 0;

  void* device_memory = nullptr;
  NDCUDA_CUDA_CHECK(cudaMalloc(&device_memory, 4 * 8 * sizeof(float)));
  fake_cuda_tensor not_managed(0);
  not_managed.managed.dl_tensor.data = device_memory;
  not_managed.managed.dl_tensor.device.device_type = kDLCUDAManaged;
  expect_refused(not_managed, "is not managed memory");
  fake_cuda_tensor host_claim(0);
  host_claim.managed.dl_tensor.data = device_memory;
  host_claim.managed.dl_tensor.device.device_type = kDLCUDAHost;
  expect_refused(host_claim, "is not pinned host memory");
  // A shape that reaches a terabyte past the allocation: its last byte is not memory.
  fake_cuda_tensor too_long(0);
  too_long.managed.dl_tensor.data = device_memory;
  too_long.shape[1] = std::int64_t{1} << 38;
  expect_refused(too_long, "the driver does not know its memory");
  NDCUDA_CUDA_CHECK(cudaFree(device_memory));
  NDCUDA_CUDA_CHECK(cudaFreeHost(pinned));
  // The device is still usable.
  EXPECT_EQ(nd::asarray(values, {4, 8}).to_host(), values);
}

TEST(DlpackArray, ASecondImportOfTheSameTensorIsRefused) {
  NDCUDA_REQUIRE_GPU();
  nd::device_guard guard{0};
  raw_cuda_tensor::deletes = 0;
  raw_cuda_tensor raw;
  {
    const auto a = nd::from_dlpack<float>(&raw.managed);
    try {
      (void)nd::from_dlpack<float>(&raw.managed);
      ADD_FAILURE() << "a second import of one tensor was taken";
    } catch (const nd::dlpack_error& e) {
      EXPECT_NE(std::string(e.what()).find("already imported"), std::string::npos) << e.what();
    }
    EXPECT_EQ(raw_cuda_tensor::deletes, 0);
    EXPECT_EQ(a.shape(), (nd::shape_t{64, 33}));
  }
  EXPECT_EQ(raw_cuda_tensor::deletes, 1);  // once, by the first import's last array
}
