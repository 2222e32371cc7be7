// The DLPack host core with fake device pointers (never dereferenced): dtype mapping, the fields of
// exported tensors, deleters that run exactly once, and every refusal on import. No GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ndcuda/interop/dlpack.hpp>
#include <string>

namespace nd = ndcuda;

namespace {

void* fake_pointer(std::uintptr_t address) {
  return reinterpret_cast<void*>(address);
}

// An owner whose release is counted.
std::shared_ptr<const void> counted_owner(int& releases) {
  return std::shared_ptr<const void>(fake_pointer(0x1000), [&releases](const void*) { ++releases; });
}

// A consumer-side tensor as another framework would build it, with a counting deleter.
struct foreign_tensor {
  static inline int deletes = 0;
  DLManagedTensor managed{};
  std::int64_t shape[3] = {2, 3, 4};
  std::int64_t strides[3] = {12, 4, 1};

  explicit foreign_tensor(DLDataType dt = {kDLFloat, 32, 1}, DLDevice device = {kDLCUDA, 1}) {
    managed.dl_tensor.data = fake_pointer(0x20000);
    managed.dl_tensor.device = device;
    managed.dl_tensor.ndim = 3;
    managed.dl_tensor.dtype = dt;
    managed.dl_tensor.shape = shape;
    managed.dl_tensor.strides = nullptr;
    managed.dl_tensor.byte_offset = 0;
    managed.deleter = [](DLManagedTensor*) { ++deletes; };
  }
};

std::string import_error(DLManagedTensor* t, nd::dtype expected) {
  try {
    (void)nd::import_dl_managed_tensor(t, expected);
  } catch (const nd::dlpack_error& e) {
    return e.what();
  }
  return "<no dlpack_error thrown>";
}

}  // namespace

TEST(DlpackDtype, EveryDtypeMapsAndRoundTrips) {
  struct row {
    nd::dtype type;
    std::uint8_t code;
    std::uint8_t bits;
  };
  const row table[] = {
      {nd::dtype::bool_, 6, 8},
      {nd::dtype::int8, kDLInt, 8},
      {nd::dtype::int16, kDLInt, 16},
      {nd::dtype::int32, kDLInt, 32},
      {nd::dtype::int64, kDLInt, 64},
      {nd::dtype::uint8, kDLUInt, 8},
      {nd::dtype::uint16, kDLUInt, 16},
      {nd::dtype::uint32, kDLUInt, 32},
      {nd::dtype::uint64, kDLUInt, 64},
      {nd::dtype::float16, kDLFloat, 16},
      {nd::dtype::bfloat16, kDLBfloat, 16},
      {nd::dtype::float32, kDLFloat, 32},
      {nd::dtype::float64, kDLFloat, 64},
      {nd::dtype::complex64, kDLComplex, 64},
      {nd::dtype::complex128, kDLComplex, 128},
  };
  ASSERT_EQ(std::size(table), static_cast<std::size_t>(nd::dtype_count));
  for (const row& r : table) {
    SCOPED_TRACE(std::string(nd::name(r.type)));
    const DLDataType dt = nd::to_dl_dtype(r.type);
    EXPECT_EQ(dt.code, r.code);
    EXPECT_EQ(dt.bits, r.bits);
    EXPECT_EQ(dt.lanes, 1);
    EXPECT_EQ(nd::from_dl_dtype(dt), r.type);
    EXPECT_EQ(nd::format_dl_dtype(dt), nd::name(r.type));
  }
  EXPECT_EQ(nd::from_dl_dtype({kDLFloat, 32, 4}), std::nullopt);
  EXPECT_EQ(nd::from_dl_dtype({kDLFloat, 8, 1}), std::nullopt);
  EXPECT_EQ(nd::from_dl_dtype({kDLOpaqueHandle, 64, 1}), std::nullopt);
  EXPECT_EQ(nd::format_dl_dtype({8, 8, 1}), "type code 8 with 8 bits and 1 lane(s)");
  const DLDevice device = nd::to_dl_device(3);
  EXPECT_EQ(device.device_type, kDLCUDA);
  EXPECT_EQ(device.device_id, 3);
}

TEST(DlpackExport, FieldsFollowTheSpec) {
  int releases = 0;
  DLManagedTensor* t = nd::make_dl_managed_tensor(
      {fake_pointer(0x40000), 256, {4, 5}, {1, 4}, nd::dtype::complex64, 2, counted_owner(releases)});
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dl_tensor.data, fake_pointer(0x40000));
  EXPECT_EQ(t->dl_tensor.byte_offset, 256u);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(t->dl_tensor.device.device_id, 2);
  EXPECT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLComplex);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 64);
  EXPECT_EQ(t->dl_tensor.dtype.lanes, 1);
  EXPECT_EQ(t->dl_tensor.shape[0], 4);
  EXPECT_EQ(t->dl_tensor.shape[1], 5);
  ASSERT_NE(t->dl_tensor.strides, nullptr);
  EXPECT_EQ(t->dl_tensor.strides[0], 1);  // a transposed view keeps its strides
  EXPECT_EQ(t->dl_tensor.strides[1], 4);
  EXPECT_NE(t->manager_ctx, nullptr);
  ASSERT_NE(t->deleter, nullptr);
  EXPECT_EQ(releases, 0);
  t->deleter(t);
  EXPECT_EQ(releases, 1);
}

TEST(DlpackExport, EmptyStridesMeanCOrderAndAreStillWritten) {
  int releases = 0;
  DLManagedTensor* t = nd::make_dl_managed_tensor(
      {fake_pointer(0x40000), 0, {2, 3, 4}, {}, nd::dtype::int16, 0, counted_owner(releases)});
  ASSERT_NE(t->dl_tensor.strides, nullptr);
  EXPECT_EQ(nd::strides_t(t->dl_tensor.strides, t->dl_tensor.strides + 3), (nd::strides_t{12, 4, 1}));
  t->deleter(t);
  EXPECT_EQ(releases, 1);
  DLManagedTensor* scalar =
      nd::make_dl_managed_tensor({fake_pointer(0x40000), 0, {}, {}, nd::dtype::bool_, 0, counted_owner(releases)});
  EXPECT_EQ(scalar->dl_tensor.ndim, 0);
  scalar->deleter(scalar);
  EXPECT_EQ(releases, 2);
}

TEST(DlpackExport, MismatchedStridesAreRefusedWithoutLeaking) {
  int releases = 0;
  EXPECT_THROW((void)nd::make_dl_managed_tensor(
                   {fake_pointer(0x40000), 0, {2, 3}, {1}, nd::dtype::int16, 0, counted_owner(releases)}),
               nd::dlpack_error);
  EXPECT_EQ(releases, 1);  // the owner given by value went away with the failed call
}

TEST(DlpackImport, NullStridesAreCOrderAndDeleterRunsOnceAfterLastOwner) {
  foreign_tensor f;
  foreign_tensor::deletes = 0;
  f.managed.dl_tensor.byte_offset = 64;
  nd::dlpack_import in = nd::import_dl_managed_tensor(&f.managed, nd::dtype::float32);
  EXPECT_EQ(in.data, fake_pointer(0x20000 + 64));
  EXPECT_EQ(in.shape, (nd::shape_t{2, 3, 4}));
  EXPECT_EQ(in.strides, (nd::strides_t{12, 4, 1}));
  EXPECT_EQ(in.type, nd::dtype::float32);
  EXPECT_EQ(in.device_type, kDLCUDA);
  EXPECT_EQ(in.device, 1);
  auto copy = in.owner;
  in.owner.reset();
  EXPECT_EQ(foreign_tensor::deletes, 0);
  copy.reset();
  EXPECT_EQ(foreign_tensor::deletes, 1);
}

TEST(DlpackImport, ATensorIsAdoptedOnceUntilItsDeleterRan) {
  foreign_tensor f;
  foreign_tensor::deletes = 0;
  nd::dlpack_import first = nd::import_dl_managed_tensor(&f.managed, nd::dtype::float32);
  const std::string e = import_error(&f.managed, nd::dtype::float32);
  EXPECT_NE(e.find("already imported"), std::string::npos) << e;
  EXPECT_EQ(foreign_tensor::deletes, 0);  // the refusal ran no deleter
  first.owner.reset();
  EXPECT_EQ(foreign_tensor::deletes, 1);
  // Deleted, the address may be a new tensor (a producer reusing its struct): taken again.
  nd::dlpack_import again = nd::import_dl_managed_tensor(&f.managed, nd::dtype::float32);
  again.owner.reset();
  EXPECT_EQ(foreign_tensor::deletes, 2);
}

TEST(DlpackImport, ExplicitStridesManagedAndPinnedMemory) {
  foreign_tensor f(DLDataType{kDLInt, 64, 1}, DLDevice{kDLCUDAManaged, 0});
  foreign_tensor::deletes = 0;
  f.managed.dl_tensor.strides = f.strides;
  f.strides[0] = -12;  // a reversed view
  auto in = nd::import_dl_managed_tensor(&f.managed, nd::dtype::int64);
  EXPECT_EQ(in.strides, (nd::strides_t{-12, 4, 1}));
  EXPECT_EQ(in.device_type, kDLCUDAManaged);
  in.owner.reset();
  foreign_tensor pinned(DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCUDAHost, 0});
  EXPECT_EQ(nd::import_dl_managed_tensor(&pinned.managed, nd::dtype::float32).device_type, kDLCUDAHost);
  EXPECT_EQ(foreign_tensor::deletes, 2);
}

TEST(DlpackImport, ExportImportRoundTripReleasesOwnerOnce) {
  int releases = 0;
  DLManagedTensor* t = nd::make_dl_managed_tensor(
      {fake_pointer(0x80000), 32, {3, 7}, {}, nd::dtype::bfloat16, 5, counted_owner(releases)});
  auto in = nd::import_dl_managed_tensor(t, nd::dtype::bfloat16);
  EXPECT_EQ(in.data, fake_pointer(0x80000 + 32));
  EXPECT_EQ(in.shape, (nd::shape_t{3, 7}));
  EXPECT_EQ(in.strides, (nd::strides_t{7, 1}));
  EXPECT_EQ(in.device, 5);
  EXPECT_EQ(releases, 0);
  in.owner.reset();
  EXPECT_EQ(releases, 1);
}

TEST(DlpackImport, RefusalsSayWhatIsWrongAndLeaveTheTensorToTheCaller) {
  foreign_tensor::deletes = 0;
  {
    foreign_tensor f(DLDataType{kDLInt, 64, 1});
    const std::string e = import_error(&f.managed, nd::dtype::float32);
    EXPECT_NE(e.find("it holds int64 but float32 was asked for; import it as from_dlpack<std::int64_t>"),
              std::string::npos)
        << e;
  }
  {
    foreign_tensor f(DLDataType{kDLFloat, 32, 4});
    EXPECT_NE(import_error(&f.managed, nd::dtype::float32).find("4 lane(s), a vector type"), std::string::npos);
  }
  {
    foreign_tensor f(DLDataType{8, 8, 1});
    EXPECT_NE(import_error(&f.managed, nd::dtype::uint8).find("which no ndcuda dtype matches"), std::string::npos);
  }
  {
    foreign_tensor f(DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
    const std::string e = import_error(&f.managed, nd::dtype::float32);
    EXPECT_NE(e.find("host memory (kDLCPU)"), std::string::npos) << e;
    EXPECT_NE(e.find("asarray"), std::string::npos) << e;
  }
  {
    foreign_tensor f(DLDataType{kDLFloat, 32, 1}, DLDevice{kDLROCM, 0});
    EXPECT_NE(import_error(&f.managed, nd::dtype::float32).find("device type 10, not CUDA"), std::string::npos);
  }
  {
    foreign_tensor f;
    f.managed.dl_tensor.ndim = -1;
    EXPECT_NE(import_error(&f.managed, nd::dtype::float32).find("-1 dimensions"), std::string::npos);
    f.managed.dl_tensor.ndim = 2;
    f.managed.dl_tensor.shape = nullptr;
    EXPECT_NE(import_error(&f.managed, nd::dtype::float32).find("no shape"), std::string::npos);
  }
  {
    foreign_tensor f;
    f.shape[1] = -3;
    EXPECT_NE(import_error(&f.managed, nd::dtype::float32).find("negative extent"), std::string::npos);
  }
  {
    foreign_tensor f;
    f.managed.dl_tensor.data = nullptr;
    EXPECT_NE(import_error(&f.managed, nd::dtype::float32).find("NULL"), std::string::npos);
    f.shape[0] = 0;  // an empty tensor may have a NULL data pointer
    auto in = nd::import_dl_managed_tensor(&f.managed, nd::dtype::float32);
    EXPECT_EQ(in.data, nullptr);
    in.owner.reset();
  }
  {
    foreign_tensor f(DLDataType{kDLComplex, 128, 1});
    f.managed.dl_tensor.byte_offset = 4;
    EXPECT_NE(import_error(&f.managed, nd::dtype::complex128).find("not aligned to 8 bytes"), std::string::npos);
  }
  EXPECT_NE(import_error(nullptr, nd::dtype::float32).find("NULL"), std::string::npos);
  EXPECT_EQ(foreign_tensor::deletes, 1);  // only the empty tensor that was imported
}

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
TEST(DlpackVersioned, ExportImportAndRefusals) {
  int releases = 0;
  DLManagedTensorVersioned* t = nd::make_dl_managed_tensor_versioned(
      {fake_pointer(0x80000), 0, {6}, {}, nd::dtype::uint32, 1, counted_owner(releases)});
  EXPECT_EQ(t->version.major, static_cast<std::uint32_t>(DLPACK_MAJOR_VERSION));
  EXPECT_EQ(t->flags, 0u);
  auto in = nd::import_dl_managed_tensor(t, nd::dtype::uint32);
  EXPECT_EQ(in.shape, (nd::shape_t{6}));
  in.owner.reset();
  EXPECT_EQ(releases, 1);

  DLManagedTensorVersioned* ro = nd::make_dl_managed_tensor_versioned(
      {fake_pointer(0x80000), 0, {6}, {}, nd::dtype::uint32, 1, counted_owner(releases)}, true);
  EXPECT_EQ(ro->flags, static_cast<std::uint64_t>(DLPACK_FLAG_BITMASK_READ_ONLY));
  EXPECT_THROW((void)nd::import_dl_managed_tensor(ro, nd::dtype::uint32), nd::dlpack_error);
  ro->version.major = 0;
  ro->flags = 0;
  EXPECT_THROW((void)nd::import_dl_managed_tensor(ro, nd::dtype::uint32), nd::dlpack_error);
  EXPECT_EQ(releases, 1);  // refused tensors stay the caller's
  ro->deleter(ro);
  EXPECT_EQ(releases, 2);
}
#endif

TEST(DlpackImport, MalformedShapesAndStridesAreDlpackErrorsBeforeOwnership) {
  foreign_tensor::deletes = 0;
  const auto expect_refused = [](foreign_tensor& f, const char* part) {
    const std::string e = import_error(&f.managed, nd::dtype::float32);
    EXPECT_NE(e.find(part), std::string::npos) << e;
    // check_dl_managed_tensor refuses alike, without taking anything.
    EXPECT_THROW((void)nd::check_dl_managed_tensor(&f.managed, nd::dtype::float32), nd::dlpack_error);
  };
  {
    foreign_tensor f;  // 2^62 * 2^62 * 4 elements: the extent overflows (was shape_error)
    f.shape[0] = 1LL << 62;
    f.shape[1] = 1LL << 62;
    expect_refused(f, "array is too big");
  }
  {
    foreign_tensor f;  // 2^62 float32 elements fit int64 but not their bytes
    f.shape[0] = 1LL << 60;
    f.shape[1] = 4;
    f.shape[2] = 1;
    expect_refused(f, "array is too big");
  }
  {
    foreign_tensor f;  // strides whose reach wraps int64
    f.managed.dl_tensor.strides = f.strides;
    f.strides[0] = std::numeric_limits<std::int64_t>::max();
    expect_refused(f, "do not describe real memory");
  }
  {
    foreign_tensor f;  // element offsets fit, byte offsets do not
    f.managed.dl_tensor.strides = f.strides;
    f.strides[0] = 1LL << 61;
    expect_refused(f, "do not describe real memory");
  }
  {
    foreign_tensor f;  // a reversed view reaching below address 0
    f.managed.dl_tensor.strides = f.strides;
    f.strides[0] = -(1LL << 40);
    expect_refused(f, "outside the address space");
  }
  {
    foreign_tensor f;  // data + byte_offset wraps the address space
    f.managed.dl_tensor.byte_offset = std::numeric_limits<std::uint64_t>::max() - 16;
    expect_refused(f, "beyond the address space");
  }
  {
    foreign_tensor f;  // a lying ndim is refused before the shape is read
    f.managed.dl_tensor.ndim = 1 << 30;
    expect_refused(f, "more than the 64");
  }
  EXPECT_EQ(foreign_tensor::deletes, 0);  // every refused tensor stays the caller's
  foreign_tensor ok;
  auto in = nd::check_dl_managed_tensor(&ok.managed, nd::dtype::float32);
  EXPECT_EQ(in.owner, nullptr);
  EXPECT_EQ(in.shape, (nd::shape_t{2, 3, 4}));
  auto owner = nd::adopt_dl_managed_tensor(&ok.managed);
  EXPECT_EQ(foreign_tensor::deletes, 0);
  owner.reset();
  EXPECT_EQ(foreign_tensor::deletes, 1);
}
