// The one way ndcuda opens files by paths it did not create (src/core/untrusted_files.hpp, issue
// 37): reads refuse FIFOs, devices, folders and oversized files without blocking; writes go through
// a temporary renamed into place, so a planted link is replaced rather than followed and a failed
// write leaves the old file intact; messages quote input with a bound. Host only, no GPU.
#include "core/untrusted_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <ndcuda/interop/npy.hpp>
#include <ndcuda/interop/npz.hpp>
#include <ndcuda/interop/text_io.hpp>
#include <string>
#include <vector>

#include "support/error_message.hpp"
#include "support/scratch_files.hpp"

namespace fs = std::filesystem;
namespace nd = ndcuda;
using nd::detail::file_problem;
using nd::testing::file_text;
using nd::testing::write_file;

namespace {

using UntrustedFiles = nd::testing::scratch_dir_test;

std::size_t entries_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_F(UntrustedFiles, ReadsRefuseFifosFoldersDevicesAndOversizedFilesAtOnce) {
  const fs::path fifo = dir_ / "planted.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  file_problem problem;
  EXPECT_FALSE(nd::detail::read_regular_file(fifo, 1 << 20, true, problem));  // returns, no writer needed
  EXPECT_NE(problem.why.find("a FIFO"), std::string::npos) << problem.why;
  EXPECT_FALSE(nd::detail::read_regular_file(dir_, 1 << 20, true, problem));
  EXPECT_NE(problem.why.find("a folder"), std::string::npos) << problem.why;
  EXPECT_FALSE(nd::detail::read_regular_file("/dev/zero", 1 << 20, true, problem));
  EXPECT_NE(problem.why.find("a device"), std::string::npos) << problem.why;
  EXPECT_FALSE(nd::detail::is_regular_file(fifo, problem));

  const std::string text = "a regular file of some bytes\n";
  write_file(dir_ / "small", text);
  const auto read = nd::detail::read_regular_file(dir_ / "small", text.size(), true, problem);
  ASSERT_TRUE(read) << problem.why;
  EXPECT_EQ(*read, text);
  EXPECT_FALSE(nd::detail::read_regular_file(dir_ / "small", text.size() - 1, true, problem));
  EXPECT_NE(problem.why.find("more than"), std::string::npos) << problem.why;

  fs::create_symlink(dir_ / "small", dir_ / "link");
  EXPECT_TRUE(nd::detail::read_regular_file(dir_ / "link", 1 << 20, true, problem));
  EXPECT_FALSE(nd::detail::read_regular_file(dir_ / "link", 1 << 20, false, problem));
  EXPECT_NE(problem.why.find("symbolic link"), std::string::npos) << problem.why;
}

TEST_F(UntrustedFiles, AppendsCreateOrExtendARegularFileAndRefuseLinksFifosAndFolders) {
  file_problem problem;
  const fs::path log = dir_ / "kernels.rec";
  auto created = nd::detail::open_append_file(log, 0644, problem);
  ASSERT_TRUE(created) << problem.why;
  EXPECT_EQ(created->size, 0U);
  ASSERT_EQ(::write(created->fd.get(), "first\n", 6), 6);
  created.reset();
  auto again = nd::detail::open_append_file(log, 0644, problem);
  ASSERT_TRUE(again) << problem.why;
  EXPECT_EQ(again->size, 6U);
  ASSERT_EQ(::write(again->fd.get(), "second\n", 7), 7);
  again.reset();
  EXPECT_EQ(file_text(log), "first\nsecond\n");  // appended, not replaced

  const fs::path victim = dir_ / "victim.txt";
  write_file(victim, "keep");
  fs::create_symlink(victim, dir_ / "planted.rec");
  EXPECT_FALSE(nd::detail::open_append_file(dir_ / "planted.rec", 0644, problem));
  EXPECT_NE(problem.why.find("symbolic link"), std::string::npos) << problem.why;
  EXPECT_EQ(file_text(victim), "keep");
  const fs::path fifo = dir_ / "planted.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(nd::detail::open_append_file(fifo, 0644, problem));  // returns at once, no reader needed
  EXPECT_FALSE(nd::detail::open_append_file(dir_, 0644, problem));
}

TEST_F(UntrustedFiles, ReplacingWritesNeverFollowAPlantedLinkOrOpenAFifo) {
  const fs::path victim = dir_ / "victim";
  write_file(victim, "precious");
  const fs::path target = dir_ / "out.bin";
  fs::create_symlink(victim, target);
  file_problem problem;
  ASSERT_TRUE(nd::detail::replace_file(target, "new bytes", 0644, problem)) << problem.why;
  EXPECT_EQ(file_text(victim), "precious");  // the link was replaced, not written through
  EXPECT_FALSE(fs::is_symlink(target));
  EXPECT_EQ(file_text(target), "new bytes");

  const fs::path fifo = dir_ / "dump.cu";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_TRUE(nd::detail::replace_file(fifo, "source", 0644, problem)) << problem.why;  // no hang
  EXPECT_TRUE(fs::is_regular_file(fifo));
  EXPECT_EQ(entries_in(dir_), 3U);  // victim, out.bin, dump.cu: no temporary left behind

  // A special file under a folder is found, as the header-folder check needs.
  fs::create_directories(dir_ / "include" / "cuda");
  ASSERT_EQ(::mkfifo((dir_ / "include" / "cuda" / "cuda_fp16.h").c_str(), 0600), 0);
  EXPECT_EQ(nd::detail::first_special_file(dir_ / "include"), dir_ / "include" / "cuda" / "cuda_fp16.h");
  fs::remove(dir_ / "include" / "cuda" / "cuda_fp16.h");
  EXPECT_FALSE(nd::detail::first_special_file(dir_ / "include"));
}

TEST_F(UntrustedFiles, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const fs::path path = dir_ / "a.npy";
  const nd::npy_header header{nd::dtype::float32, {2}, false};
  const float values[2] = {1.5F, -2.0F};
  nd::write_npy_bytes(path, header, values, sizeof values);
  const std::string before = file_text(path);
  // Wrong byte count: refused before anything is created.
  EXPECT_THROW(nd::write_npy_bytes(path, header, values, 4), nd::io_error);
  EXPECT_EQ(file_text(path), before);
  // A folder that cannot take the temporary: refused, the old file untouched.
  ASSERT_EQ(::chmod(dir_.c_str(), 0500), 0);
  if (::access(dir_.c_str(), W_OK) != 0) {  // root writes anyway: then there is nothing to show
    EXPECT_THROW(nd::write_npy_bytes(path, header, values, sizeof values), nd::io_error);
    EXPECT_THROW(nd::savetxt_bytes(dir_ / "a.txt", nd::dtype::float32, {2}, values, {}), nd::io_error);
    EXPECT_EQ(file_text(path), before);
  }
  ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);
  EXPECT_EQ(entries_in(dir_), 1U);

  // A savetxt that fails partway (NaN has no %d, as in NumPy) leaves the old text file.
  write_file(dir_ / "old.txt", "old text\n");
  const float with_nan[3] = {1.0F, 2.0F, std::nanf("")};
  EXPECT_THROW(nd::savetxt_bytes(dir_ / "old.txt", nd::dtype::float32, {3}, with_nan, {.fmt = "%d"}), nd::io_error);
  EXPECT_EQ(file_text(dir_ / "old.txt"), "old text\n");
  fs::remove(dir_ / "old.txt");

  // A text write through a planted link replaces the link.
  write_file(dir_ / "victim.txt", "keep me");
  fs::create_symlink(dir_ / "victim.txt", dir_ / "out.txt");
  nd::savetxt_bytes(dir_ / "out.txt", nd::dtype::float32, {2}, values, {.fmt = "%g"});
  EXPECT_EQ(file_text(dir_ / "victim.txt"), "keep me");
  EXPECT_EQ(file_text(dir_ / "out.txt"), "1.5\n-2\n");
}

TEST(UntrustedFilesQuote, MessagesQuoteInputWithABoundAndVisibleControlBytes) {
  EXPECT_EQ(nd::detail::quote_input("plain"), "plain");
  EXPECT_EQ(nd::detail::quote_input(std::string("a\0b\n", 4)), "a\\x00b\\x0a");
  const std::string huge(100000, 'x');
  const std::string quoted = nd::detail::quote_input(huge);
  EXPECT_LT(quoted.size(), 300U);
  EXPECT_NE(quoted.find("(100000 characters)"), std::string::npos);
}

// A member's local header must agree with its central directory entry: a one-byte change to either
// name (or to the method, CRC or sizes) was read silently as a different archive.
TEST_F(UntrustedFiles, NpzLocalHeadersMustAgreeWithTheCentralDirectory) {
  std::vector<std::byte> data(4 * sizeof(float));
  for (std::size_t i = 0; i < data.size(); ++i) {
    data[i] = static_cast<std::byte>(i * 37 + 11);
  }
  const std::vector<nd::npz_member> members{{"alpha", {{nd::dtype::float32, {4}, false}, data}},
                                            {"omega", {{nd::dtype::float32, {4}, false}, data}}};
  const fs::path path = dir_ / "a.npz";
  for (const bool compressed : {false, true}) {
    if (compressed && !nd::npz_deflate_available()) {
      continue;
    }
    nd::write_npz(path, members, compressed);
    ASSERT_EQ(nd::read_npz(path).size(), 2U);
    const std::string good = file_text(path);
    const auto altered = [&](std::size_t at, char to) {
      std::string bytes = good;
      bytes[at] = to;
      write_file(path, bytes);
      return nd::testing::message_of<nd::io_error>([&] { (void)nd::read_npz(path); });
    };
    const std::size_t local_name = good.find("omega.npy");     // the local header comes first
    const std::size_t central_name = good.rfind("omega.npy");  // then the central directory
    ASSERT_LT(local_name, central_name);
    for (const std::size_t at : {local_name, central_name}) {
      const std::string why = altered(at, 'O');
      EXPECT_NE(why.find("the central directory gives"), std::string::npos) << why;
    }
    // The method (offset 8) and the CRC (offset 14) of the first local header.
    EXPECT_NE(altered(8, compressed ? '\0' : '\x08').find("compression method"), std::string::npos);
    EXPECT_NE(altered(14, static_cast<char>(good[14] ^ 1)).find("CRC-32"), std::string::npos);
  }
}
