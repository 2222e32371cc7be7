// save_npy/load_npy on real ndarrays: random round trips for every dtype, the NumPy-written files of
// tests/data/npy, and the refusals. Rename to npy_array_test.cpp once array/ has landed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <ndcuda/interop/npy_array.hpp>
#include <support/gpu.hpp>
#include <support/scratch_files.hpp>
#include <vector>

namespace nd = ndcuda;
namespace fs = std::filesystem;

namespace {

const fs::path data_dir = fs::path(NDCUDA_TEST_DATA_DIR) / "npy";

using NpyArray = nd::testing::scratch_dir_test;  // a scratch directory per test

using nd::testing::file_bytes;

template <class T>
void expect_round_trip(const fs::path& dir) {
  SCOPED_TRACE(std::string(nd::name(nd::dtype_of<T>)));
  for (const nd::shape_t& shape :
       {nd::shape_t{}, nd::shape_t{0, 3}, nd::shape_t{7}, nd::shape_t{33, 65}, nd::shape_t{2, 3, 4, 5}}) {
    const auto n = static_cast<std::size_t>(nd::shape_size(shape));
    const auto values = nd::testing::random_bit_patterns<T>(n);
    const auto a = nd::asarray<T>(std::span<const T>(values.get(), n), shape);
    const fs::path path = dir / "a.npy";
    nd::save_npy(path, a);
    const auto b = nd::load_npy<T>(path);
    EXPECT_EQ(b.shape(), shape);
    const auto back = b.to_host();
    ASSERT_EQ(back.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      const T x = back[i];
      ASSERT_EQ(std::memcmp(&x, &values[i], sizeof(T)), 0)
          << "element " << i << " of shape " << nd::format_shape(shape);
    }
    // What ndcuda wrote is what np.save writes for the same data.
    const std::string preamble = nd::format_npy_preamble({nd::dtype_of<T>, shape, false});
    std::vector<std::byte> expected(preamble.size());
    std::memcpy(expected.data(), preamble.data(), preamble.size());
    const auto* raw = reinterpret_cast<const std::byte*>(values.get());
    expected.insert(expected.end(), raw, raw + n * sizeof(T));
    EXPECT_EQ(file_bytes(path), expected);
  }
}

}  // namespace

TEST_F(NpyArray, RandomRoundTripOfEveryNumPyDtype) {
  NDCUDA_REQUIRE_GPU();
  expect_round_trip<bool>(dir_);
  expect_round_trip<std::int8_t>(dir_);
  expect_round_trip<std::int16_t>(dir_);
  expect_round_trip<std::int32_t>(dir_);
  expect_round_trip<std::int64_t>(dir_);
  expect_round_trip<std::uint8_t>(dir_);
  expect_round_trip<std::uint16_t>(dir_);
  expect_round_trip<std::uint32_t>(dir_);
  expect_round_trip<std::uint64_t>(dir_);
  expect_round_trip<__half>(dir_);
  expect_round_trip<float>(dir_);
  expect_round_trip<double>(dir_);
  expect_round_trip<std::complex<float>>(dir_);
  expect_round_trip<std::complex<double>>(dir_);
}

TEST_F(NpyArray, LoadsFilesNumPyWrote) {
  NDCUDA_REQUIRE_GPU();
  const auto check = [](const char* name, auto tag) {
    using T = decltype(tag);
    SCOPED_TRACE(name);
    const auto a = nd::load_npy<T>(data_dir / (std::string(name) + ".npy"));
    const auto raw = file_bytes(data_dir / (std::string(name) + ".raw"));
    const auto host = a.to_host();
    ASSERT_EQ(host.size() * sizeof(T), raw.size());
    EXPECT_EQ(std::memcmp(host.data(), raw.data(), raw.size()), 0);
  };
  check("float32", float{});
  check("complex128", std::complex<double>{});
  check("fortran_f8", double{});  // transposed to C order on load
  check("big_endian_i4", std::int32_t{});
  check("big_endian_c8", std::complex<float>{});
  check("scalar_f8", double{});
  check("empty_f4", float{});
  check("version2_f4", float{});
  EXPECT_EQ(nd::load_npy<double>(data_dir / "fortran_f8.npy").shape(), (nd::shape_t{2, 3, 4}));
  EXPECT_EQ(nd::load_npy<double>(data_dir / "scalar_f8.npy").ndim(), 0);
  const auto flags = nd::load_npy<bool>(data_dir / "bool.npy").to_host();
  const auto raw = file_bytes(data_dir / "bool.raw");
  ASSERT_EQ(flags.size(), raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    EXPECT_EQ(flags[i], raw[i] != std::byte{0}) << i;
  }
}

TEST_F(NpyArray, RefusesWrongDtypeAndBfloat16) {
  NDCUDA_REQUIRE_GPU();
  try {
    (void)nd::load_npy<float>(data_dir / "int64.npy");
    FAIL() << "expected io_error";
  } catch (const nd::io_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds int64, load_npy<float> asked for float32"), std::string::npos)
        << e.what();
  }
  const std::vector<__nv_bfloat16> values(4, __nv_bfloat16(1.0f));
  const auto a = nd::asarray<__nv_bfloat16>(values, {4});
  EXPECT_THROW(nd::save_npy(dir_ / "bf.npy", a), nd::io_error);
  EXPECT_FALSE(fs::exists(dir_ / "bf.npy"));
}
