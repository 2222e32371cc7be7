// .npz archives and text files against what NumPy 2 writes and reads (tests/data/gen_npz_cases_19.py):
// host reads and byte-identical writes, hostile archives, savetxt/loadtxt; then the ndarray entry points (GPU).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <ndcuda/interop/npz_array.hpp>
#include <ndcuda/interop/text_array.hpp>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <sstream>
#include <string>
#include <support/error_message.hpp>
#include <support/gpu.hpp>
#include <support/random_inputs.hpp>
#include <support/scratch_files.hpp>
#include <vector>

namespace nd = ndcuda;
namespace fs = std::filesystem;

namespace {

const fs::path data_dir = fs::path(NDCUDA_TEST_DATA_DIR) / "npz19";

using nd::testing::file_text;
using nd::testing::message_of;
using nd::testing::write_file;

using FileIo = nd::testing::scratch_dir_test;  // a scratch directory per test

std::string unhex(const std::string& h) {
  if (h == "-") {
    return {};
  }
  std::string out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) {
    out += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) {
    std::memcpy(out.data(), s.data(), s.size());
  }
  return out;
}

nd::shape_t parse_shape(const std::string& text) {
  nd::shape_t shape;
  if (text == "-") {
    return shape;
  }
  std::stringstream extents(text);
  for (std::string e; std::getline(extents, e, 'x');) {
    shape.push_back(std::stoll(e));
  }
  return shape;
}

std::vector<std::vector<std::string>> cases(const std::string& kind) {
  std::ifstream in(data_dir / "cases.txt");
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::stringstream fields(line);
    std::vector<std::string> row;
    for (std::string f; fields >> f;) {
      row.push_back(f);
    }
    if (!row.empty() && row[0] == kind) {
      rows.push_back(row);
    }
  }
  return rows;
}

// A regular file in memory holding `bytes`, reopened by path as the readers open files: the hostile-input
// loops below write hundreds of variants, which on a busy disk would cost seconds.
std::string in_memory_file(const std::string& bytes) {
  static const int fd = ::memfd_create("ndcuda_file_io_test", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, 0) != 0 ||
      (!bytes.empty() && ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size()))) {
    ADD_FAILURE() << "memfd_create/pwrite failed";
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

bool same(const nd::npy_file& a, const nd::npy_file& b) {
  return a.header == b.header && a.data == b.data;
}

bool needs_zlib(const std::string& archive) {
  return archive.find("deflated") != std::string::npos || archive == "versions.npz";
}

}  // namespace

TEST_F(FileIo, ReadsEveryNumPyArchiveExactly) {
  std::map<std::string, std::vector<nd::npz_member>> archives;
  for (const auto& row : cases("members")) {
    if (needs_zlib(row[1]) && !nd::npz_deflate_available()) {
      continue;
    }
    SCOPED_TRACE(row[1]);
    archives[row[1]] = nd::read_npz(data_dir / row[1]);
    std::string keys;
    for (const auto& m : archives[row[1]]) {
      keys += (keys.empty() ? "" : ",") + m.name;
    }
    EXPECT_EQ(keys, row[2]);
  }
  if (!nd::npz_deflate_available()) {
    GTEST_SKIP() << "built without zlib: the deflated archives were not read";
  }
  int checked = 0;
  for (const auto& row : cases("member")) {
    SCOPED_TRACE(row[1] + " " + row[2]);
    const auto& members = archives.at(row[1]);
    const auto it = std::find_if(members.begin(), members.end(), [&](const auto& m) { return m.name == row[2]; });
    ASSERT_NE(it, members.end());
    const nd::npy_header& h = it->array.header;
    EXPECT_EQ(h.type, nd::parse_npy_descr(row[3]).type);
    EXPECT_EQ(h.shape, parse_shape(row[4]));
    EXPECT_EQ(h.fortran_order, row[5] == "1");
    const std::vector<std::byte> c_order =
        h.fortran_order ? nd::npy_fortran_to_c_order(it->array.data, h.shape, nd::itemsize(h.type)) : it->array.data;
    EXPECT_EQ(c_order, bytes_of(unhex(row[6])));
    ++checked;
  }
  EXPECT_GE(checked, 50);
}

TEST_F(FileIo, WritesArchivesByteIdenticalToNumPy) {
  for (const std::string archive : {"rebuild_stored.npz", "rebuild_deflated.npz"}) {
    const bool compressed = needs_zlib(archive);
    if (compressed && !nd::npz_deflate_available()) {
      continue;
    }
    SCOPED_TRACE(archive);
    std::vector<nd::npz_member> members;
    for (const auto& row : cases("member")) {
      if (row[1] == archive) {
        members.push_back(
            {row[2], {{nd::parse_npy_descr(row[3]).type, parse_shape(row[4]), false}, bytes_of(unhex(row[6]))}});
      }
    }
    ASSERT_EQ(members.size(), 18u);
    nd::write_npz(dir_ / archive, members, compressed);
    const std::string ours = file_text(dir_ / archive);
    const std::string numpy = file_text(data_dir / archive);
    ASSERT_EQ(ours.size(), numpy.size());
    EXPECT_TRUE(ours == numpy) << "first difference at byte "
                               << std::mismatch(ours.begin(), ours.end(), numpy.begin()).first - ours.begin();
  }
}

TEST_F(FileIo, WriterRefusesBadNamesAndNamesLikeNumPy) {
  const nd::npy_file one{{nd::dtype::int8, {1}, false}, {std::byte{1}}};
  const nd::stored_array a(one, "a");
  EXPECT_EQ(nd::npz_positional_name(3), "arr_3");
  // Keyword arrays first, then the positional ones: np.savez's dict order.
  const auto members = nd::detail::npz_members({a, {"x", a}, a}, dir_ / "m.npz");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].name, "x");
  EXPECT_EQ(members[1].name, "arr_0");
  EXPECT_EQ(members[2].name, "arr_1");
  const std::string clash = message_of<nd::error>([&] {
    (void)nd::detail::npz_members({a, {"arr_0", a}}, dir_ / "m.npz");
  });
  EXPECT_NE(clash.find("Cannot use un-named variables and keyword arr_0"), std::string::npos) << clash;
  const std::vector<nd::npz_member> twice = {{"w", one}, {"w", one}};
  const std::string dup = message_of<nd::error>([&] { nd::write_npz(dir_ / "d.npz", twice, false); });
  EXPECT_NE(dup.find("'w' is given twice"), std::string::npos) << dup;
  EXPECT_FALSE(fs::exists(dir_ / "d.npz"));
  const std::vector<nd::npz_member> bf = {{"b", {{nd::dtype::bfloat16, {1}, false}, {std::byte{0}, std::byte{0}}}}};
  EXPECT_NE(message_of<nd::error>([&] { nd::write_npz(dir_ / "b.npz", bf, false); }).find("bfloat16"),
            std::string::npos);
  // No arrays: the 22-byte end record alone, as np.savez writes it.
  nd::write_npz(dir_ / "none.npz", {}, false);
  EXPECT_EQ(file_text(dir_ / "none.npz"), std::string("PK\x05\x06") + std::string(18, '\0'));
  EXPECT_TRUE(nd::read_npz(dir_ / "none.npz").empty());
  // The archive ndcuda wrote reads back, including a non-ASCII key (UTF-8 flag, as Python sets it).
  const std::vector<nd::npz_member> utf = {{"\xc3\xa9t\xc3\xa9", one}};
  nd::write_npz(dir_ / "u.npz", utf, false);
  const auto back = nd::read_npz(dir_ / "u.npz");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].name, "\xc3\xa9t\xc3\xa9");
  EXPECT_TRUE(same(back[0].array, one));
}

TEST_F(FileIo, HostileArchivesGiveClearErrors) {
  const std::string good = file_text(data_dir / "rebuild_stored.npz");
  // Every truncation of a whole archive is refused with an io_error, never a crash or a bad read.
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::string path = in_memory_file(good.substr(0, n));
    EXPECT_NE(message_of<nd::error>([&] { (void)nd::read_npz(path); }), nd::testing::no_expected_exception) << n;
  }
  // Every single-byte change is read exactly or refused (the CRC-32 catches changed data; a name
  // changed in the central directory or in a local header no longer matches the other).
  const std::string small = file_text(data_dir / "zip64_records.npz");
  const auto expected = nd::read_npz(data_dir / "zip64_records.npz");
  for (std::size_t i = 0; i < small.size(); ++i) {
    std::string bad = small;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    try {
      const auto got = nd::read_npz(in_memory_file(bad));
      ASSERT_EQ(got.size(), expected.size()) << i;
      for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].name, expected[k].name) << "byte " << i;
        EXPECT_TRUE(same(got[k].array, expected[k].array)) << "byte " << i;
      }
    } catch (const nd::error&) {
    }
  }
  // Specific refusals say what is wrong.
  const auto expect_error = [&](const std::string& bytes, const std::string& part) {
    write_file(dir_ / "e.npz", bytes);
    const std::string e = message_of<nd::error>([&] { (void)nd::read_npz(dir_ / "e.npz"); });
    EXPECT_NE(e.find(part), std::string::npos) << e;
  };
  expect_error("", "it is empty");
  expect_error(std::string(100, 'x'), "not a zip file");
  expect_error(file_text(fs::path(NDCUDA_TEST_DATA_DIR) / "npy" / "float32.npy"), "read it with nd::load<T>");
  std::string crc = good;
  crc[good.find("\x93NUMPY") + 130] ^= 1;  // data of the first member (bool, 128-byte header)
  expect_error(crc, "CRC-32");
  std::string method = good;
  method[8] = 12;  // bzip2, in the central directory too
  method[good.find("PK\x01\x02") + 10] = 12;
  expect_error(method, "compression method 12");
  std::string encrypted = good;
  encrypted[good.find("PK\x01\x02") + 8] = 1;
  expect_error(encrypted, "encrypted");
  std::string renamed = good;
  renamed.replace(good.find("bool.npy", good.find("PK\x01\x02")), 8, "bool.txt");
  expect_error(renamed, "is not a .npy file");
  EXPECT_NE(message_of<nd::error>([&] { (void)nd::read_npz(dir_ / "missing.npz"); }).find("cannot open"),
            std::string::npos);
  EXPECT_NE(message_of<nd::error>([&] { (void)nd::read_npz(dir_); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(message_of<nd::error>([&] { (void)nd::read_npy(data_dir / "rebuild_stored.npz"); }).find("nd::load_npz"),
            std::string::npos);
  if (nd::npz_deflate_available()) {
    // A deflated member that claims far more than deflate can produce is refused before allocation.
    std::string bomb = file_text(data_dir / "versions.npz");
    const std::size_t central = bomb.find("PK\x01\x02");
    bomb[central + 24 + 3] = 0x7f;  // uncompressed size ~2 GiB from a few dozen bytes
    expect_error(bomb, "more than deflate can");
  } else {
    expect_error(file_text(data_dir / "versions.npz"), "built without zlib");
  }
}

TEST_F(FileIo, SavetxtWritesWhatNumPyWrites) {
  for (const auto& row : cases("savetxt")) {
    SCOPED_TRACE(row[1]);
    nd::savetxt_options o;
    o.fmt = unhex(row[5]);
    o.delimiter = unhex(row[6]);
    o.newline = unhex(row[7]);
    o.header = unhex(row[8]);
    o.footer = unhex(row[9]);
    o.comments = unhex(row[10]);
    const std::string data = unhex(row[4]);
    nd::savetxt_bytes(dir_ / row[1], nd::parse_npy_descr(row[2]).type, parse_shape(row[3]), data.data(), o);
    EXPECT_EQ(file_text(dir_ / row[1]), file_text(data_dir / row[1]));
  }
}

TEST_F(FileIo, SavetxtRefusesWhatItCannotWrite) {
  const double x[2] = {1, 2};
  const auto e = [&](const nd::shape_t& shape, nd::dtype t, const std::string& fmt) {
    nd::savetxt_options o;
    o.fmt = fmt;
    return message_of<nd::error>([&] { nd::savetxt_bytes(dir_ / "x.txt", t, shape, x, o); });
  };
  EXPECT_NE(e({}, nd::dtype::float64, "%f").find("Expected 1D or 2D array, got 0D array instead"), std::string::npos);
  EXPECT_NE(e({1, 1, 2}, nd::dtype::float64, "%f").find("got 3D array"), std::string::npos);
  EXPECT_NE(e({2}, nd::dtype::complex64, "%f").find("complex"), std::string::npos);
  for (const char* fmt : {"%s", "%n", "%*d", "%", "%.5000f", "%p", "%c"}) {
    EXPECT_NE(e({2}, nd::dtype::float64, fmt).find("fmt '"), std::string::npos) << fmt;
  }
  EXPECT_NE(e({1, 2}, nd::dtype::float64, "%d %d %d").find("fmt has wrong number of % formats"), std::string::npos);
  const double nan[1] = {std::nan("")};
  EXPECT_NE(message_of<nd::error>([&] {
              nd::savetxt_bytes(dir_ / "n.txt", nd::dtype::float64, {1}, nan, {.fmt = "%d"});
            }).find("cannot convert float NaN to integer"),
            std::string::npos);
}

TEST_F(FileIo, LoadtxtReadsWhatNumPyReads) {
  for (const auto& row : cases("loadtxt")) {
    SCOPED_TRACE(row[1]);
    nd::loadtxt_options o;
    if (row[3] != "-") {
      o.delimiter = unhex(row[3]);
    }
    o.skiprows = std::stoll(row[4]);
    if (row[5] != "-") {
      std::stringstream cols(row[5]);
      for (std::string c; std::getline(cols, c, ',');) {
        o.usecols.push_back(std::stoll(c));
      }
    }
    o.comments = unhex(row[6]);
    o.ndmin = std::stoi(row[7]);
    nd::shape_t shape;
    const auto bytes = nd::loadtxt_bytes(data_dir / row[1], nd::parse_npy_descr(row[2]).type, o, shape);
    EXPECT_EQ(shape, parse_shape(row[8]));
    EXPECT_EQ(bytes, bytes_of(unhex(row[9])));
  }
}

TEST_F(FileIo, LoadtxtErrorsUseNumPysWords) {
  const auto e = [&](const std::string& text, nd::dtype t, const nd::loadtxt_options& o = {}) {
    write_file(dir_ / "l.txt", text);
    nd::shape_t shape;
    return message_of<nd::error>([&] { (void)nd::loadtxt_bytes(dir_ / "l.txt", t, o, shape); });
  };
  EXPECT_NE(e("1 2 3\n4 5\n", nd::dtype::float64)
                .find("the number of columns changed from 3 to 2 at row 2; use `usecols` to select a subset"),
            std::string::npos);
  EXPECT_NE(e("1 2 3\n4 x 5\n", nd::dtype::float64).find("could not convert string 'x' to float64 at row 1, column 2."),
            std::string::npos);
  // Rows count data lines only, as NumPy counts them.
  EXPECT_NE(e("#c\n\n1 2 3\n4 x 5\n", nd::dtype::float64).find("'x' to float64 at row 1, column 2."),
            std::string::npos);
  EXPECT_NE(e("h\n1 2 3\n\n4 5\n", nd::dtype::float64, {.skiprows = 1}).find("from 3 to 2 at row 2;"),
            std::string::npos);
  EXPECT_NE(e("1.0\n", nd::dtype::int64).find("could not convert string '1.0' to int64"), std::string::npos);
  EXPECT_NE(e("300\n", nd::dtype::int8).find("could not convert string '300' to int8"), std::string::npos);
  EXPECT_NE(e("-2\n", nd::dtype::uint8).find("could not convert string '-2' to uint8"), std::string::npos);
  EXPECT_NE(e("0x10\n", nd::dtype::float64).find("could not convert string '0x10'"), std::string::npos);
  EXPECT_NE(e("1 2 3\n", nd::dtype::float64, {.usecols = {5}}).find("invalid column index 5 at row 1 with 3 columns"),
            std::string::npos);
  EXPECT_NE(e("1\n", nd::dtype::float64, {.ndmin = 3}).find("Illegal value of ndmin keyword: 3"), std::string::npos);
  EXPECT_NE(e("1\n", nd::dtype::complex64).find("complex"), std::string::npos);
  // A hostile token is quoted with a bound (an 8 MiB token gave an 8 MB message) and a NUL in it
  // does not cut the message before its row and column.
  const std::string huge = e("1 " + std::string(std::size_t{8} << 20, 'z') + "\n", nd::dtype::float64);
  EXPECT_LT(huge.size(), 1000U);
  EXPECT_NE(huge.find("(8388608 characters)' to float64 at row 0, column 2."), std::string::npos)
      << huge.substr(0, 400);
  const std::string nul = e(std::string("1 a\0b 3\n", 8), nd::dtype::float64);
  EXPECT_NE(nul.find("'a\\x00b' to float64 at row 0, column 2."), std::string::npos) << nul;
  nd::shape_t shape;
  EXPECT_NE(message_of<nd::error>([&] {
              (void)nd::loadtxt_bytes(dir_ / "none.txt", nd::dtype::float64, {}, shape);
            }).find("cannot open"),
            std::string::npos);
}

// ---- ndarray entry points: need a GPU --------------------------------------------------------------

TEST_F(FileIo, GpuSaveLoadAndArchivesOfMixedDtypes) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<float> f = nd::testing::uniform_values<float>(6 * 7, -1e3, 1e3);
  const std::vector<std::complex<double>> z = nd::testing::uniform_values<std::complex<double>>(5, -1e3, 1e3);
  std::vector<bool> mask(9);
  for (std::size_t i = 0; i < mask.size(); ++i) {
    mask[i] = std::bernoulli_distribution(0.5)(nd::testing::rng());
  }
  const auto a = nd::asarray(f, {6, 7});
  const auto b = nd::asarray(mask, {3, 3});
  const auto c = nd::asarray(z, {5});

  // nd::save adds ".npy" as np.save does; nd::load reads it back bit for bit.
  nd::save(dir_ / "a", a);
  ASSERT_TRUE(fs::exists(dir_ / "a.npy"));
  EXPECT_EQ(nd::load<float>(dir_ / "a.npy").to_host(), f);
  EXPECT_THROW((void)nd::load<double>(dir_ / "a.npy"), nd::io_error);

  for (const bool compressed : {false, true}) {
    if (compressed && !nd::npz_deflate_available()) {
      continue;
    }
    const fs::path path = dir_ / (compressed ? "c.npz" : "s.npz");
    if (compressed) {
      nd::savez_compressed(path, {a, {"mask", b}, {"z", c}});
    } else {
      nd::savez(path, {a, {"mask", b}, {"z", c}});
    }
    const nd::npz_file archive = nd::load_npz(path);
    EXPECT_EQ(archive.files(), (std::vector<std::string>{"mask", "z", "arr_0"}));
    EXPECT_EQ(archive["arr_0"].type(), nd::dtype::float32);
    EXPECT_EQ(archive["arr_0"].shape(), (nd::shape_t{6, 7}));
    EXPECT_EQ(archive["arr_0"].as<float>().to_host(), f);
    EXPECT_EQ(archive["mask"].as<bool>().to_host(), mask);
    EXPECT_EQ(archive["z"].as<std::complex<double>>().to_host(), z);
    EXPECT_THROW((void)archive["z"].as<float>(), nd::type_error);
    EXPECT_THROW((void)archive["nope"], nd::io_error);
    // The host copy is what np.save would have written for the same data.
    EXPECT_EQ(archive["arr_0"].file().data.size(), f.size() * sizeof(float));
    EXPECT_EQ(std::memcmp(archive["arr_0"].file().data.data(), f.data(), f.size() * sizeof(float)), 0);
  }
  // bfloat16 has no NumPy descr: refused before anything is written.
  const auto bf = nd::zeros<__nv_bfloat16>({2});
  EXPECT_THROW(nd::savez(dir_ / "bf.npz", {a, {"bf", bf}}), nd::io_error);
  EXPECT_FALSE(fs::exists(dir_ / "bf.npz"));
  // A stored ndcuda archive is byte-identical to writing the same host members directly.
  const auto direct = nd::read_npz(dir_ / "s.npz");
  nd::write_npz(dir_ / "again.npz", direct, false);
  EXPECT_EQ(file_text(dir_ / "again.npz"), file_text(dir_ / "s.npz"));
}

// np.save(f, x * 2), np.savez(f, x.sum(0), m=x > 0), np.savetxt(f, x - 1): the writers take lazy
// values, computed in their own dtype.
TEST_F(FileIo, GpuWritersTakeLazyValues) {
  NDCUDA_REQUIRE_GPU();
  constexpr std::size_t rows = 4;
  constexpr std::size_t cols = 5;
  const std::vector<float> f = nd::testing::uniform_values<float>(rows * cols, -8.0, 8.0);
  const auto x = nd::asarray(f, {rows, cols});

  nd::save(dir_ / "twice", x * 2.0F);
  const std::vector<float> twice = nd::load<float>(dir_ / "twice.npy").to_host();
  std::vector<double> sums(cols, 0.0);
  std::vector<bool> positive(rows * cols);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(twice[i], f[i] * 2.0F) << i;
    sums[i % cols] += f[i];
    positive[i] = f[i] > 0.0F;
  }

  nd::savez(dir_ / "lazy.npz", {nd::sum(x, 0), {"m", x > 0.0F}});
  const nd::npz_file archive = nd::load_npz(dir_ / "lazy.npz");
  EXPECT_EQ(archive.files(), (std::vector<std::string>{"m", "arr_0"}));
  EXPECT_EQ(archive["m"].as<bool>().to_host(), positive);
  const std::vector<float> got_sums = archive["arr_0"].as<float>().to_host();
  ASSERT_EQ(got_sums.size(), cols);
  for (std::size_t j = 0; j < cols; ++j) {
    EXPECT_NEAR(got_sums[j], sums[j], 1e-4) << j;
  }

  nd::savetxt(dir_ / "less.txt", x - 1.0F, {.fmt = "%.9g"});
  const std::vector<float> less = nd::loadtxt<float>(dir_ / "less.txt").to_host();
  ASSERT_EQ(less.size(), f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(less[i], f[i] - 1.0F) << i;
  }
}

TEST_F(FileIo, GpuLoadsNumPyArchivesAndFortranMembers) {
  NDCUDA_REQUIRE_GPU();
  if (!nd::npz_deflate_available()) {
    GTEST_SKIP() << "built without zlib";
  }
  const nd::npz_file archive = nd::load_npz(data_dir / "mixed_deflated.npz");
  for (const auto& row : cases("member")) {
    if (row[1] != "mixed_deflated.npz" || (row[2] != "fortran" && row[2] != "big_i4")) {
      continue;
    }
    const std::string expected = unhex(row[6]);
    if (row[2] == "fortran") {
      const auto x = archive["fortran"].as<double>();
      EXPECT_EQ(x.shape(), (nd::shape_t{2, 3, 4}));
      const auto host = x.to_host();
      ASSERT_EQ(host.size() * sizeof(double), expected.size());
      EXPECT_EQ(std::memcmp(host.data(), expected.data(), expected.size()), 0);
    } else {
      const auto host = archive["big_i4"].as<std::int32_t>().to_host();
      ASSERT_EQ(host.size() * sizeof(std::int32_t), expected.size());
      EXPECT_EQ(std::memcmp(host.data(), expected.data(), expected.size()), 0);
    }
  }
}

TEST_F(FileIo, GpuTextRoundTrips) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> v = nd::testing::normal_values<double>(4 * 5, 0.0, 1e4);
  const auto a = nd::asarray(v, {4, 5});
  // '%.18e' keeps every double exactly.
  nd::savetxt(dir_ / "a.txt", a);
  const auto back = nd::loadtxt(dir_ / "a.txt");
  EXPECT_EQ(back.shape(), (nd::shape_t{4, 5}));
  EXPECT_EQ(back.to_host(), v);
  // A csv of selected float32 columns, against a host reference (17 digits: the double parses back exactly).
  nd::savetxt(dir_ / "a.csv", a, {.fmt = "%.17e", .delimiter = ",", .header = "c0,c1,c2,c3,c4"});
  const auto cols = nd::loadtxt<float>(dir_ / "a.csv", {.delimiter = ",", .skiprows = 1, .usecols = {4, 1}});
  ASSERT_EQ(cols.shape(), (nd::shape_t{4, 2}));
  const auto host = cols.to_host();
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(host[r * 2], static_cast<float>(v[r * 5 + 4])) << r;
    EXPECT_EQ(host[r * 2 + 1], static_cast<float>(v[r * 5 + 1])) << r;
  }
  const auto three = nd::zeros<float>({2, 2, 2});
  EXPECT_THROW(nd::savetxt(dir_ / "b.txt", three), nd::io_error);
}
