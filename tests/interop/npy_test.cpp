// The .npy host core against files written by NumPy 2 (tests/data/gen_npy_files.py): reads, byte-identical
// writes, header round trips and every error a user can hit. No GPU needed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <ndcuda/interop/npy.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/error_message.hpp"
#include "support/scratch_files.hpp"

namespace nd = ndcuda;
namespace fs = std::filesystem;

namespace {

const fs::path data_dir = fs::path(NDCUDA_TEST_DATA_DIR) / "npy";

struct manifest_row {
  std::string name;
  std::string descr;
  nd::shape_t shape;
  bool fortran_order;
};

std::vector<manifest_row> manifest() {
  std::ifstream in(data_dir / "manifest.csv");
  std::string line;
  std::getline(in, line);  // column names
  std::vector<manifest_row> rows;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    manifest_row row;
    std::string shape;
    std::string fortran;
    std::getline(fields, row.name, ',');
    std::getline(fields, row.descr, ',');
    std::getline(fields, shape, ',');
    std::getline(fields, fortran, ',');
    std::stringstream extents(shape);
    for (std::string extent; std::getline(extents, extent, 'x');) {
      row.shape.push_back(std::stoll(extent));
    }
    row.fortran_order = fortran == "1";
    rows.push_back(row);
  }
  return rows;
}

using nd::testing::file_bytes;
using nd::testing::message_of;
using nd::testing::write_file;

using Npy = nd::testing::scratch_dir_test;  // a scratch directory per test

}  // namespace

TEST(NpyDescr, EveryNumPyDtypeRoundTrips) {
  EXPECT_EQ(nd::npy_descr(nd::dtype::float32), "<f4");
  EXPECT_EQ(nd::npy_descr(nd::dtype::bool_), "|b1");
  EXPECT_EQ(nd::npy_descr(nd::dtype::complex64), "<c8");
  EXPECT_EQ(nd::npy_descr(nd::dtype::float16), "<f2");
  EXPECT_EQ(nd::npy_descr(nd::dtype::int64), "<i8");
  EXPECT_EQ(nd::npy_descr(nd::dtype::uint8), "|u1");
  EXPECT_EQ(nd::npy_descr(nd::dtype::complex128), "<c16");
  for (nd::dtype t : nd::all_dtypes) {
    if (t == nd::dtype::bfloat16) {
      continue;
    }
    const auto info = nd::parse_npy_descr(nd::npy_descr(t));
    EXPECT_EQ(info.type, t);
    EXPECT_FALSE(info.big_endian);
  }
  EXPECT_TRUE(nd::parse_npy_descr(">f8").big_endian);
  EXPECT_FALSE(nd::parse_npy_descr("=f8").big_endian);
  EXPECT_EQ(nd::parse_npy_descr("<b1").type, nd::dtype::bool_);
}

TEST(NpyDescr, BfloatAndForeignTypesAreRefusedClearly) {
  const std::string bf = message_of<nd::io_error>([] { (void)nd::npy_descr(nd::dtype::bfloat16); });
  EXPECT_NE(bf.find("bfloat16"), std::string::npos) << bf;
  EXPECT_NE(bf.find("ml_dtypes"), std::string::npos) << bf;
  EXPECT_NE(bf.find("float32"), std::string::npos) << bf;
  for (const char* descr : {"<U4", "|O", "<M8[ns]", "<f16", "f4", "<V2"}) {
    const std::string e = message_of<nd::io_error>([&] { (void)nd::parse_npy_descr(descr); });
    EXPECT_NE(e.find(std::string("'") + descr + "'"), std::string::npos) << e;
  }
}

TEST(NpyHeader, DictIsFormattedExactlyAsNumPy) {
  EXPECT_EQ(nd::format_npy_header_dict({nd::dtype::float32, {3, 4}, false}),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" + std::string(20, ' '));
  EXPECT_EQ(nd::format_npy_header_dict({nd::dtype::float64, {}, false}),
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(nd::format_npy_header_dict({nd::dtype::bool_, {2, 300}, true}),
            "{'descr': '|b1', 'fortran_order': True, 'shape': (2, 300), }" + std::string(18, ' '));
}

TEST(NpyHeader, PreambleRoundTripsAndIsAligned) {
  const std::vector<nd::npy_header> headers = {
      {nd::dtype::float32, {3, 4}, false},
      {nd::dtype::int8, {}, false},
      {nd::dtype::complex128, {0}, true},
      {nd::dtype::uint64, {1, 2, 3, 4, 5, 6, 7, 8}, false},
      {nd::dtype::float16, {123456789012345}, false},
  };
  for (const auto& header : headers) {
    const std::string preamble = nd::format_npy_preamble(header);
    EXPECT_EQ(preamble.size() % 64, 0u);
    EXPECT_EQ(preamble.back(), '\n');
    EXPECT_EQ(preamble.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const std::size_t len = static_cast<unsigned char>(preamble[8]) | static_cast<unsigned char>(preamble[9]) << 8;
    EXPECT_EQ(len + 10, preamble.size());
    EXPECT_EQ(nd::parse_npy_header_dict(preamble.substr(10)), header);
  }
}

TEST(NpyHeader, HugeHeaderSwitchesToVersion2) {
  const nd::npy_header header{nd::dtype::uint8, nd::shape_t(30000, 1), false};
  const std::string preamble = nd::format_npy_preamble(header);
  EXPECT_EQ(preamble[6], '\x02');
  EXPECT_EQ(preamble.size() % 64, 0u);
  std::size_t len = 0;
  for (int i = 3; i >= 0; --i) {
    len = len << 8 | static_cast<unsigned char>(preamble[8 + static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(len + 12, preamble.size());
  EXPECT_EQ(nd::parse_npy_header_dict(preamble.substr(12)), header);
}

TEST(NpyHeader, ParserAcceptsOtherWritersSpelling) {
  const auto h = nd::parse_npy_header_dict("{\"shape\": (5L,), \"fortran_order\": True, \"descr\": \"<i2\"}");
  EXPECT_EQ(h, (nd::npy_header{nd::dtype::int16, {5}, true}));
  for (const char* bad :
       {"", "{'descr': '<f4', 'shape': (2,), }", "{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} trailing"}) {
    EXPECT_THROW((void)nd::parse_npy_header_dict(bad), nd::io_error) << bad;
  }
}

TEST(NpyRead, EveryFileNumPyWroteMatchesItsRawBytes) {
  const auto rows = manifest();
  ASSERT_GE(rows.size(), 22u);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const nd::npy_file file = nd::read_npy(data_dir / (row.name + ".npy"));
    EXPECT_EQ(file.header.type, nd::parse_npy_descr(row.descr).type);
    EXPECT_EQ(file.header.shape, row.shape);
    EXPECT_EQ(file.header.fortran_order, row.fortran_order);
    const std::vector<std::byte> c_order =
        file.header.fortran_order
            ? nd::npy_fortran_to_c_order(file.data, file.header.shape, nd::itemsize(file.header.type))
            : file.data;
    EXPECT_EQ(c_order, file_bytes(data_dir / (row.name + ".raw")));
  }
}

TEST_F(Npy, WritesByteIdenticalToNpSave) {
  for (const auto& row : manifest()) {
    if (nd::parse_npy_descr(row.descr).big_endian || row.name.starts_with("version")) {
      continue;  // ndcuda writes little-endian, version 1.0 when it fits, as np.save of a native array does
    }
    SCOPED_TRACE(row.name);
    const nd::npy_file file = nd::read_npy(data_dir / (row.name + ".npy"));
    const fs::path out = dir_ / (row.name + ".npy");
    nd::write_npy_bytes(out, file.header, file.data.data(), file.data.size());
    EXPECT_EQ(file_bytes(out), file_bytes(data_dir / (row.name + ".npy")));
  }
}

TEST_F(Npy, WriteThenReadRoundTrips) {
  const std::vector<std::int32_t> values = {1, -2, 3, -4, 5, -6};
  const nd::npy_header header{nd::dtype::int32, {2, 3}, false};
  nd::write_npy_bytes(dir_ / "a.npy", header, values.data(), values.size() * sizeof(std::int32_t));
  const nd::npy_file file = nd::read_npy(dir_ / "a.npy");
  EXPECT_EQ(file.header, header);
  ASSERT_EQ(file.data.size(), 24u);
  EXPECT_EQ(std::memcmp(file.data.data(), values.data(), 24), 0);
}

TEST(NpyFortran, TransposesToCOrder) {
  // Shape (2, 3) in Fortran order holds columns: a00 a10 a01 a11 a02 a12.
  const std::vector<std::byte> f = {std::byte{0},  std::byte{10}, std::byte{1},
                                    std::byte{11}, std::byte{2},  std::byte{12}};
  const std::vector<std::byte> c = {std::byte{0},  std::byte{1},  std::byte{2},
                                    std::byte{10}, std::byte{11}, std::byte{12}};
  EXPECT_EQ(nd::npy_fortran_to_c_order(f, nd::shape_t{2, 3}, 1), c);
  EXPECT_EQ(nd::npy_fortran_to_c_order(f, nd::shape_t{6}, 1), f);
  EXPECT_THROW((void)nd::npy_fortran_to_c_order(f, nd::shape_t{2, 2}, 1), nd::io_error);
}

TEST_F(Npy, TruncatedDataNamesBytesShapeAndDtype) {
  const std::string preamble = nd::format_npy_preamble({nd::dtype::float32, {3, 4}, false});
  write_file(dir_ / "file.npy", preamble + std::string(40, '\0'));
  const std::string e = message_of<nd::io_error>([&] { (void)nd::read_npy(dir_ / "file.npy"); });
  EXPECT_NE(e.find("file.npy' holds 40 bytes of data but shape (3, 4) float32 needs 48"), std::string::npos) << e;
}

TEST_F(Npy, TruncatedHeaderEmptyFileAndBadMagic) {
  const std::string preamble = nd::format_npy_preamble({nd::dtype::float32, {3, 4}, false});
  write_file(dir_ / "short.npy", preamble.substr(0, 30));
  EXPECT_NE(message_of<nd::io_error>([&] { (void)nd::read_npy(dir_ / "short.npy"); }).find("truncated"),
            std::string::npos);
  write_file(dir_ / "tiny.npy", preamble.substr(0, 9));
  EXPECT_NE(message_of<nd::io_error>([&] { (void)nd::read_npy(dir_ / "tiny.npy"); }).find("truncated"),
            std::string::npos);
  write_file(dir_ / "empty.npy", "");
  EXPECT_NE(
      message_of<nd::io_error>([&] { (void)nd::read_npy(dir_ / "empty.npy"); }).find("is not a .npy file: it is empty"),
      std::string::npos);
  write_file(dir_ / "text.npy", "1.0 2.0 3.0\n4.0 5.0 6.0\n");
  EXPECT_NE(message_of<nd::io_error>([&] { (void)nd::read_npy(dir_ / "text.npy"); }).find("magic"), std::string::npos);
  std::string v4 = preamble;
  v4[6] = '\x04';
  write_file(dir_ / "v4.npy", v4);
  EXPECT_NE(message_of<nd::io_error>([&] { (void)nd::read_npy(dir_ / "v4.npy"); }).find("version 4.0"),
            std::string::npos);
}

TEST_F(Npy, PathsThatAreNotFiles) {
  EXPECT_NE(message_of<nd::io_error>([&] { (void)nd::read_npy(dir_); }).find("is a directory"), std::string::npos);
  const std::string missing = message_of<nd::io_error>([&] { (void)nd::read_npy(dir_ / "missing.npy"); });
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
  EXPECT_NE(missing.find("No such file"), std::string::npos) << missing;
  const float x = 1.0f;
  const nd::npy_header header{nd::dtype::float32, {}, false};
  const std::string no_dir =
      message_of<nd::io_error>([&] { nd::write_npy_bytes(dir_ / "no" / "x.npy", header, &x, 4); });
  EXPECT_NE(no_dir.find("cannot write"), std::string::npos) << no_dir;
  EXPECT_NE(no_dir.find("its folder does not exist"), std::string::npos) << no_dir;
  const std::string folder = message_of<nd::io_error>([&] { nd::write_npy_bytes(dir_, header, &x, 4); });
  EXPECT_NE(folder.find("it is a folder"), std::string::npos) << folder;
  const std::string wrong_size = message_of<nd::io_error>([&] { nd::write_npy_bytes(dir_ / "x.npy", header, &x, 8); });
  EXPECT_NE(wrong_size.find("got 8 bytes of data but shape () float32 needs 4"), std::string::npos) << wrong_size;
}

TEST(NpyMessages, DtypeMismatchSaysHowToLoad) {
  EXPECT_EQ(nd::npy_dtype_mismatch_message("file.npy", nd::dtype::int64, nd::dtype::float32),
            "'file.npy' holds int64, load_npy<float> asked for float32; load it with load_npy<std::int64_t> or "
            "convert the array in NumPy with astype before saving");
}

// Hostile files: every size a file claims is checked against the file before anything is
// allocated, special files are refused at once, and messages stay short.
namespace {

// A preamble of format `major` whose header length field says `dict_len`, followed by `body`.
std::string raw_npy(int major, std::uint32_t dict_len, const std::string& body) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) {
    out += static_cast<char>((dict_len >> (8 * i)) & 0xff);
  }
  return out + body;
}

std::string npy_error_of(const fs::path& path) {
  try {
    (void)nd::read_npy(path);
  } catch (const nd::error& e) {  // io_error, shape_error or out_of_memory, never std::bad_alloc
    return e.what();
  }
  return "<no error thrown>";
}

}  // namespace

TEST_F(Npy, AHeaderLengthBeyondTheFileIsRefusedBeforeAllocating) {
  // 128 bytes whose v2 header length claims 4 GiB: refused from the file's size, not read into 4 GiB.
  write_file(dir_ / "claims4g.npy", raw_npy(2, 0xffffffffU, std::string(116, ' ')));
  const std::string e = npy_error_of(dir_ / "claims4g.npy");
  EXPECT_NE(e.find("truncated: its .npy header says 4294967295 bytes but the file holds 116"), std::string::npos) << e;
}

TEST_F(Npy, DataBeyondTheFileIsRefusedBeforeAllocating) {
  // 1.9 GiB of float32 claimed by a 128-byte file.
  const std::string preamble = nd::format_npy_preamble({nd::dtype::float32, {500000000}, false});
  write_file(dir_ / "short.npy", preamble + std::string(128 - preamble.size() % 128, '\0'));
  const std::string e = npy_error_of(dir_ / "short.npy");
  EXPECT_NE(e.find("bytes of data but shape (500000000,) float32 needs 2000000000 (the file is truncated)"),
            std::string::npos)
      << e;
}

TEST_F(Npy, HugeAndOverflowingShapesAreErrorsNotBadAlloc) {
  const nd::index_t two_62 = nd::index_t{1} << 62;
  struct hostile {
    nd::npy_header header;
    const char* expected;
  };
  for (const hostile& h : {
           hostile{{nd::dtype::uint8, {two_62}, false}, "the file is truncated"},
           hostile{{nd::dtype::float64, {two_62}, false}, "needs more bytes than fit in size_t"},
           hostile{{nd::dtype::complex128, {two_62 / 2}, false}, "needs more bytes than fit in size_t"},
           hostile{{nd::dtype::uint8, {two_62, 4}, false}, "more than 2^63-1 elements"},
           // NumPy refuses extents whose non-zero product overflows even when another one is 0.
           hostile{{nd::dtype::uint8, {0, two_62, two_62}, false}, "array is too big"},
           hostile{{nd::dtype::uint8, {0, two_62}, false}, ""},  // no elements: a valid empty array
       }) {
    const std::string dict = nd::format_npy_header_dict(h.header);
    write_file(dir_ / "huge.npy", raw_npy(1, static_cast<std::uint32_t>(dict.size()), dict));
    SCOPED_TRACE(dict);
    if (*h.expected == '\0') {
      EXPECT_TRUE(nd::read_npy(dir_ / "huge.npy").data.empty());
      continue;
    }
    const std::string e = npy_error_of(dir_ / "huge.npy");
    EXPECT_NE(e.find(h.expected), std::string::npos) << e;
  }
}

TEST_F(Npy, MessagesQuoteAtMostTwoHundredCharactersOfAHeader) {
  // A 100 KB header: readable, but not a valid dict. The message quotes its start and its length.
  const std::string junk =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'junk': '" + std::string(100000, 'A') + "'}";
  write_file(dir_ / "long.npy", raw_npy(2, static_cast<std::uint32_t>(junk.size()), junk));
  const std::string e = npy_error_of(dir_ / "long.npy");
  EXPECT_LT(e.size(), 600u) << e.substr(0, 1000);
  EXPECT_NE(e.find("(100067 bytes in all)"), std::string::npos) << e.substr(0, 1000);
  // Keys and descrs are quoted the same way, and control bytes are spelled out.
  const std::string key = "{'" + std::string(5000, 'k') + "': 1}";
  const std::string key_error = message_of<nd::io_error>([&] { (void)nd::parse_npy_header_dict(key); });
  EXPECT_LT(key_error.size(), 800u) << key_error.substr(0, 1000);
  const std::string descr_error =
      message_of<nd::io_error>([&] { (void)nd::parse_npy_descr(std::string(3000, 'x') + "\x1b[2J"); });
  EXPECT_LT(descr_error.size(), 600u) << descr_error.substr(0, 1000);
  const std::string escape_error = message_of<nd::io_error>([&] { (void)nd::parse_npy_descr("<f\x1b[2J"); });
  EXPECT_EQ(escape_error.find('\x1b'), std::string::npos) << escape_error;
  EXPECT_NE(escape_error.find("<f\\x1b[2J"), std::string::npos) << escape_error;
}

TEST_F(Npy, HeadersOverAMegabyteAreRefused) {
  const std::string big = std::string((1 << 20) + 1, ' ');
  write_file(dir_ / "big.npy", raw_npy(2, static_cast<std::uint32_t>(big.size()), big));
  const std::string e = npy_error_of(dir_ / "big.npy");
  EXPECT_NE(e.find("has a .npy header of 1048577 bytes; ndcuda reads headers of at most 1048576"), std::string::npos)
      << e;
  EXPECT_LT(e.size(), 400u);
}

TEST_F(Npy, AFifoFailsAtOnceInsteadOfBlocking) {
  const fs::path fifo = dir_ / "pipe.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto result = std::async(std::launch::async, [&] { return npy_error_of(fifo); });
  if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    // Unblock the reader (a writer opens the other end and closes it) so the test can end.
    ::close(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK));
    ADD_FAILURE() << "read_npy blocked on a FIFO";
  }
  const std::string e = result.get();
  EXPECT_NE(e.find("it is a FIFO (named pipe), not a regular file"), std::string::npos) << e;
  EXPECT_NE(npy_error_of("/dev/zero").find("it is a character device"), std::string::npos);
}
