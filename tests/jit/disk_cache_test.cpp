// The disk cache: where it lives, its entry format, and what happens with damaged entries,
// unwritable or full folders, and a size bound.
#include "jit/disk_cache.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "jit/cache_entry.hpp"
#include "jit/program_cache.hpp"
#include "jit_support.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::shared_ptr<jd::disk_cache> disk_at(const fs::path& dir, std::uint64_t max_bytes = 0) {
  jd::disk_cache_config config;
  config.directory = dir;
  config.max_bytes = max_bytes;
  return std::make_shared<jd::disk_cache>(config);
}

int count_files(const fs::path& dir, const std::string& suffix) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) n += e.path().string().ends_with(suffix) ? 1 : 0;
  return n;
}

int count_temp_files(const fs::path& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    n += e.path().filename().string().starts_with(jd::disk_cache::temp_marker) ? 1 : 0;
  }
  return n;
}

bool is_root() {
  return ::geteuid() == 0;
}

}  // namespace

TEST(JitDiskCache, LocationFollowsTheEnvironment) {
  nd::testing::scoped_env cache_on("NDCUDA_CACHE", std::nullopt);
  nd::testing::scoped_env size("NDCUDA_CACHE_MAX_SIZE", std::nullopt);
  {
    nd::testing::scoped_env dir("NDCUDA_CACHE_DIR", "/some/where");
    nd::testing::scoped_env xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(jd::disk_cache_config_from_environment().directory, fs::path("/some/where"));
  }
  nd::testing::scoped_env dir("NDCUDA_CACHE_DIR", std::nullopt);
  {
    nd::testing::scoped_env xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(jd::disk_cache_config_from_environment().directory, fs::path("/xdg/ndcuda"));
  }
  {
    nd::testing::scoped_env xdg("XDG_CACHE_HOME", "relative/ignored");  // the XDG spec says so
    nd::testing::scoped_env home("HOME", "/home/someone");
    EXPECT_EQ(jd::disk_cache_config_from_environment().directory, fs::path("/home/someone/.cache/ndcuda"));
  }
  nd::testing::scoped_env xdg("XDG_CACHE_HOME", std::nullopt);
  nd::testing::scoped_env home("HOME", "/home/someone");
  const auto config = jd::disk_cache_config_from_environment();
  EXPECT_TRUE(config.enabled);
  EXPECT_EQ(config.directory, fs::path("/home/someone/.cache/ndcuda"));
  EXPECT_EQ(config.max_bytes, std::uint64_t{1} << 30);
  for (const char* off : {"0", "off", "false", "NO"}) {
    nd::testing::scoped_env cache_off("NDCUDA_CACHE", off);
    const auto disabled = jd::disk_cache_config_from_environment();
    EXPECT_FALSE(disabled.enabled) << off;
    EXPECT_NE(disabled.disabled_reason.find("NDCUDA_CACHE"), std::string::npos);
  }
  nd::testing::scoped_env bound("NDCUDA_CACHE_MAX_SIZE", "512M");
  EXPECT_EQ(jd::disk_cache_config_from_environment().max_bytes, std::uint64_t{512} << 20);
}

TEST(JitDiskCache, SizesParseLikeUsersWriteThem) {
  EXPECT_EQ(jd::parse_size("0"), 0U);
  EXPECT_EQ(jd::parse_size("12345"), 12345U);
  EXPECT_EQ(jd::parse_size("64k"), 64U << 10);
  EXPECT_EQ(jd::parse_size("2G"), std::uint64_t{2} << 30);
  EXPECT_EQ(jd::parse_size("1T"), std::uint64_t{1} << 40);
  for (const char* bad : {"", "G", "-1", "1.5G", "12X", "99999999999999999999"}) {
    EXPECT_FALSE(jd::parse_size(bad).has_value()) << bad;
  }
}

TEST(JitDiskCache, TurnedOffItReadsAndWritesNothing) {
  nd::testing::temp_dir dir;
  jd::disk_cache_config config;
  config.enabled = false;
  config.directory = dir.path();
  auto disk = std::make_shared<jd::disk_cache>(config);
  nd::testing::counting_compiler compiler;
  jd::program_cache cache(compiler, disk);
  (void)cache.get(nd::testing::small_key("off"));
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(JitDiskCache, AnEntryRoundTripsAndIsWrittenWithoutLeavingTempFiles) {
  nd::testing::temp_dir dir;
  auto disk = disk_at(dir.path());
  const auto key = nd::testing::small_key("round-trip");
  const auto compiled = jd::nvrtc_compile(key);
  disk->store(key, compiled);
  const fs::path entry = disk->entry_path(key);
  ASSERT_TRUE(fs::is_regular_file(entry));
  EXPECT_EQ(entry.filename().string(), jd::to_hex(jd::digest(key)) + ".ndjit");
  const std::string bytes = read_file(entry);
  EXPECT_EQ(bytes.substr(0, 8), std::string(jd::entry_magic));
  EXPECT_EQ(count_temp_files(dir.path()), 0);
  const auto loaded = disk->load(key);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->image, compiled.image);
  EXPECT_EQ(loaded->lowered_names, compiled.lowered_names);
  // A different key never reads this entry, even when pointed at its bytes.
  std::string why;
  EXPECT_FALSE(jd::decode_entry(bytes, nd::testing::small_key("other"), why).has_value());
  EXPECT_NE(why.find("different kernel"), std::string::npos) << why;
  EXPECT_FALSE(jd::decode_entry(bytes, nd::testing::small_key("round-trip", 80), why).has_value());
  EXPECT_EQ(disk->counters().hits, 1U);
  EXPECT_EQ(disk->counters().writes, 1U);
}

TEST(JitDiskCache, ASecondCacheObjectFindsTheEntryInsteadOfCompiling) {
  nd::testing::temp_dir dir;
  auto disk = disk_at(dir.path());
  nd::testing::counting_compiler compiler;
  const auto key = nd::testing::small_key("warm");
  {
    jd::program_cache first(compiler, disk);
    EXPECT_FALSE(first.get(key)->from_disk());
  }
  jd::program_cache second(compiler, disk);  // as a new process would: empty memory, warm disk
  const auto program = second.get(key);
  EXPECT_TRUE(program->from_disk());
  EXPECT_EQ(*compiler.calls, 1);
  EXPECT_EQ(second.counters().disk_hits, 1U);
}

// Each way an entry can be damaged: the read is a miss, the kernel is recompiled, the entry is
// rewritten valid, and one warning is given however many entries are bad.
struct damage {
  const char* name;
  void (*apply)(const fs::path& entry);
};

void PrintTo(const damage& d, std::ostream* os) {
  *os << d.name;  // a readable test name in ctest, instead of the struct's bytes
}

class JitDiskCacheDamage : public ::testing::TestWithParam<damage> {};

TEST_P(JitDiskCacheDamage, IsAMissThatRecompilesRewritesAndWarnsOnce) {
  nd::testing::temp_dir dir;
  auto disk = disk_at(dir.path());
  nd::testing::counting_compiler compiler;
  const auto key_a = nd::testing::small_key("damaged-a");
  const auto key_b = nd::testing::small_key("damaged-b");
  {
    jd::program_cache writer(compiler, disk);
    (void)writer.get(key_a);
    (void)writer.get(key_b);
  }
  ASSERT_EQ(*compiler.calls, 2);
  GetParam().apply(disk->entry_path(key_a));
  GetParam().apply(disk->entry_path(key_b));

  nd::testing::captured_warnings warnings;
  auto fresh_disk = disk_at(dir.path());  // a new process: its warning has not been given yet
  jd::program_cache reader(compiler, fresh_disk);
  const auto a = reader.get(key_a);
  const auto b = reader.get(key_b);
  EXPECT_FALSE(a->from_disk());
  EXPECT_FALSE(b->from_disk());
  EXPECT_EQ(*compiler.calls, 4) << "both damaged entries are recompiled";
  EXPECT_EQ(warnings.count(), 1U) << "one warning for any number of damaged entries";
  if (warnings.count() > 0) {
    EXPECT_NE(warnings.messages()[0].find(disk->entry_path(key_a).filename().string()), std::string::npos)
        << warnings.messages()[0];
  }
  EXPECT_EQ(fresh_disk->counters().invalid, 2U);

  // Rewritten: yet another process reads both without compiling.
  jd::program_cache later(compiler, disk_at(dir.path()));
  EXPECT_TRUE(later.get(key_a)->from_disk());
  EXPECT_TRUE(later.get(key_b)->from_disk());
  EXPECT_EQ(*compiler.calls, 4);
  EXPECT_EQ(count_temp_files(dir.path()), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Damages, JitDiskCacheDamage,
    ::testing::Values(damage{"TruncatedPayload", [](const fs::path& p) { fs::resize_file(p, fs::file_size(p) - 5); }},
                      damage{"TruncatedHeader", [](const fs::path& p) { fs::resize_file(p, 20); }},
                      damage{"Zeroed", [](const fs::path& p) { write_file(p, std::string(fs::file_size(p), '\0')); }},
                      damage{"BitFlipInPayload",
                             [](const fs::path& p) {
                               std::string bytes = read_file(p);
                               bytes[bytes.size() - 3] = static_cast<char>(bytes[bytes.size() - 3] ^ 0x10);
                               write_file(p, bytes);
                             }},
                      damage{"BitFlipInHeaderSize",
                             [](const fs::path& p) {
                               std::string bytes = read_file(p);
                               bytes[48] = static_cast<char>(bytes[48] ^ 0x01);
                               write_file(p, bytes);
                             }},
                      damage{"BitFlipInKeyDigest",
                             [](const fs::path& p) {
                               std::string bytes = read_file(p);
                               bytes[20] = static_cast<char>(bytes[20] ^ 0x80);
                               write_file(p, bytes);
                             }},
                      damage{"Empty", [](const fs::path& p) { write_file(p, ""); }},
                      damage{"EmptyDirectoryInItsPlace",
                             [](const fs::path& p) {
                               fs::remove(p);
                               fs::create_directory(p);
                             }},
                      // Hostile files in an entry's place: each is refused by fstat before a byte is
                      // read (a FIFO would block a read, a sparse 1 TiB file would be read into
                      // memory), and the rename of the rewrite replaces it.
                      damage{"Fifo",
                             [](const fs::path& p) {
                               fs::remove(p);
                               ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
                             }},
                      damage{"SparseTebibyte", [](const fs::path& p) { fs::resize_file(p, std::uint64_t{1} << 40); }},
                      damage{"SymlinkToAValidEntry",
                             [](const fs::path& p) {
                               // Even a link to the right bytes: an entry is a file of the folder, never a link.
                               const fs::path elsewhere = p.parent_path() / ("elsewhere-" + p.filename().string());
                               fs::rename(p, elsewhere);
                               fs::create_symlink(elsewhere, p);
                             }},
                      damage{"AnotherKernelsEntry",
                             [](const fs::path& p) {
                               // A valid entry, but for another key (as if copied or renamed): the digest and the
                               // full key in it say so.
                               const auto other = nd::testing::small_key("someone-else");
                               write_file(p, jd::encode_entry(other, nd::testing::counting_compiler{}(other)));
                             }}),
    [](const ::testing::TestParamInfo<damage>& p) { return std::string(p.param.name); });

TEST(JitDiskCache, ANonEmptyDirectoryInPlaceOfAnEntryIsAMissAndTheKernelStillWorks) {
  nd::testing::temp_dir dir;
  auto disk = disk_at(dir.path());
  nd::testing::counting_compiler compiler;
  const auto key = nd::testing::small_key("blocked-by-folder");
  fs::create_directories(disk->entry_path(key) / "something");
  nd::testing::captured_warnings warnings;
  jd::program_cache cache(compiler, disk);
  EXPECT_NE(cache.get(key), nullptr);
  EXPECT_EQ(*compiler.calls, 1);
  EXPECT_EQ(warnings.count(), 1U);
  EXPECT_TRUE(fs::is_directory(disk->entry_path(key))) << "ndcuda removes only empty folders";
  EXPECT_EQ(count_temp_files(dir.path()), 0);
  EXPECT_TRUE(disk->writable()) << "one bad entry does not turn the cache off";
}

// Root may write anywhere chmod allows, so "unwritable" is made from paths no one can create:
// a folder under a regular file (ENOTDIR), and a folder inside /proc.
class JitDiskCacheUnwritable : public ::testing::TestWithParam<const char*> {};

TEST_P(JitDiskCacheUnwritable, DegradesToMemoryOnlyWithOneWarning) {
  nd::testing::temp_dir dir;
  const std::string kind = GetParam();
  fs::path target;
  if (kind == "UnderAFile") {
    write_file(dir.path() / "a-file", "not a folder");
    target = dir.path() / "a-file" / "cache";
  } else {
    target = "/proc/ndcuda-jit-cache-test";
  }
  auto disk = disk_at(target);
  nd::testing::counting_compiler compiler;
  nd::testing::captured_warnings warnings;
  jd::program_cache cache(compiler, disk);
  const auto first = cache.get(nd::testing::small_key("unwritable-1"));
  const auto second = cache.get(nd::testing::small_key("unwritable-2"));
  EXPECT_NE(first, nullptr);
  EXPECT_NE(second, nullptr);
  EXPECT_EQ(cache.get(nd::testing::small_key("unwritable-1")), first) << "memory still caches";
  EXPECT_EQ(*compiler.calls, 2);
  EXPECT_FALSE(disk->writable());
  ASSERT_EQ(warnings.count(), 1U);
  EXPECT_NE(warnings.messages()[0].find(target.string()), std::string::npos) << warnings.messages()[0];
  EXPECT_NE(warnings.messages()[0].find("memory only"), std::string::npos) << warnings.messages()[0];
}

INSTANTIATE_TEST_SUITE_P(Paths, JitDiskCacheUnwritable, ::testing::Values("UnderAFile", "InsideProc"));

TEST(JitDiskCache, AFullDiskDegradesToMemoryOnlyAndLeavesNoTempFile) {
  // RLIMIT_FSIZE makes write() fail with EFBIG past a few bytes, as a full disk fails with
  // ENOSPC, and it binds root too. SIGXFSZ would kill the process first, so it is ignored here.
  nd::testing::temp_dir dir;
  auto disk = disk_at(dir.path());
  nd::testing::counting_compiler compiler;
  nd::testing::captured_warnings warnings;
  jd::program_cache cache(compiler, disk);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit small = old_limit;
  small.rlim_cur = 16;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto a = cache.get(nd::testing::small_key("full-1"));
  const auto b = cache.get(nd::testing::small_key("full-2"));
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  ::signal(SIGXFSZ, old_handler);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(b, nullptr);
  EXPECT_FALSE(disk->writable());
  EXPECT_EQ(warnings.count(), 1U);
  EXPECT_EQ(count_temp_files(dir.path()), 0);
  EXPECT_EQ(count_files(dir.path(), ".ndjit"), 0);
}

TEST(JitDiskCache, TheSizeBoundEvictsTheLeastRecentlyUsedEntries) {
  nd::testing::temp_dir dir;
  nd::testing::counting_compiler compiler;
  const auto key = [](const char* tag) { return nd::testing::small_key(std::string("lru-") + tag); };
  const std::size_t entry_size = jd::encode_entry(key("a"), compiler(key("a"))).size();
  // Room for three and a half entries.
  auto disk = disk_at(dir.path(), entry_size * 7 / 2);
  for (const char* tag : {"a", "b", "c"}) disk->store(key(tag), compiler(key(tag)));
  // Age them: a oldest, then b, then c.
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(disk->entry_path(key("a")), now - std::chrono::minutes(30));
  fs::last_write_time(disk->entry_path(key("b")), now - std::chrono::minutes(20));
  fs::last_write_time(disk->entry_path(key("c")), now - std::chrono::minutes(10));
  ASSERT_TRUE(disk->load(key("a")).has_value());  // a use makes a the most recent
  disk->store(key("d"), compiler(key("d")));      // over the bound: b, now the oldest, goes
  EXPECT_TRUE(fs::exists(disk->entry_path(key("a"))));
  EXPECT_FALSE(fs::exists(disk->entry_path(key("b"))));
  EXPECT_TRUE(fs::exists(disk->entry_path(key("c"))));
  EXPECT_TRUE(fs::exists(disk->entry_path(key("d"))));
  EXPECT_EQ(disk->counters().evictions, 1U);
}

// The trust model (docs/jit.md): the folder is private, and nothing is read from or written to a
// folder another user could write, since an entry's checksum cannot stop such a writer.
TEST(JitDiskCache, FoldersAreCreatedPrivateAndEntriesOwnerOnlyWhateverTheUmask) {
  nd::testing::temp_dir dir;
  const fs::path nested = dir.path() / "made" / "by-ndcuda";
  auto disk = disk_at(nested);
  const auto key = nd::testing::small_key("private");
  const mode_t old_mask = ::umask(0);  // the most permissive umask: modes must not depend on it
  disk->store(key, nd::testing::counting_compiler{}(key));
  ::umask(old_mask);
  const auto mode_of = [](const fs::path& p) {
    struct stat info {};
    EXPECT_EQ(::lstat(p.c_str(), &info), 0) << p;
    return info.st_mode & 07777;
  };
  EXPECT_EQ(mode_of(dir.path() / "made"), 0700U);
  EXPECT_EQ(mode_of(nested), 0700U);
  EXPECT_EQ(mode_of(disk->entry_path(key)), 0600U);
  EXPECT_TRUE(disk->load(key).has_value());
}

class JitDiskCacheSharedFolder : public ::testing::TestWithParam<mode_t> {};

TEST_P(JitDiskCacheSharedFolder, IsRefusedWithOneWarningAndThePlantedEntryNeverRuns) {
  nd::testing::temp_dir dir;
  const auto key = nd::testing::small_key("planted");
  // Another user who can write the folder plants a valid-looking entry under the key, with a
  // correct checksum and key digest: only the folder's permissions can tell.
  jd::compiled_program planted;
  planted.image = "planted image";
  planted.lowered_names.assign(key.name_expressions.size(), "planted_kernel");
  auto writer = disk_at(dir.path());
  write_file(writer->entry_path(key), jd::encode_entry(key, planted));
  ASSERT_EQ(::chmod(dir.path().c_str(), GetParam()), 0);

  nd::testing::captured_warnings warnings;
  auto disk = disk_at(dir.path());
  nd::testing::counting_compiler compiler;
  jd::program_cache cache(compiler, disk);
  const auto program = cache.get(key);
  EXPECT_FALSE(program->from_disk());
  EXPECT_EQ(*compiler.calls, 1) << "compiled, not read from the shared folder";
  (void)cache.get(nd::testing::small_key("planted-2"));
  EXPECT_FALSE(disk->load(key).has_value());
  EXPECT_FALSE(disk->writable());
  EXPECT_NE(disk->refused_reason().find("writable by"), std::string::npos) << disk->refused_reason();
  ASSERT_EQ(warnings.count(), 1U) << "one warning for the folder, however many kernels";
  const std::string w = warnings.messages()[0];
  EXPECT_NE(w.find(dir.path().string()), std::string::npos) << w;
  EXPECT_NE(w.find("plant a compiled kernel"), std::string::npos) << w;
  EXPECT_NE(w.find("chmod 700"), std::string::npos) << w;
  EXPECT_NE(w.find("NDCUDA_CACHE_DIR"), std::string::npos) << w;
  EXPECT_NE(w.find("memory only"), std::string::npos) << w;
  // Nothing written there: our kernels are not handed to the folder's other writers either.
  EXPECT_EQ(count_files(dir.path(), ".ndjit"), 1);
  EXPECT_EQ(count_temp_files(dir.path()), 0);
  ASSERT_EQ(::chmod(dir.path().c_str(), 0700), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, JitDiskCacheSharedFolder, ::testing::Values(0777, 0770, 0757, 01777),
                         [](const ::testing::TestParamInfo<mode_t>& p) {
                           char name[16];
                           std::snprintf(name, sizeof name, "Mode%04o", static_cast<unsigned>(p.param));
                           return std::string(name);
                         });

TEST(JitDiskCache, AFolderOfAnotherUserIsRefusedAndSoIsAnEntryOfAnotherUser) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to give files to another user";
  }
  constexpr uid_t other = 54321;
  {
    nd::testing::temp_dir dir;
    ASSERT_EQ(::chown(dir.path().c_str(), other, other), 0);
    nd::testing::captured_warnings warnings;
    auto disk = disk_at(dir.path());
    EXPECT_FALSE(disk->folder_trusted());
    EXPECT_NE(disk->refused_reason().find("belongs to user id 54321"), std::string::npos) << disk->refused_reason();
    EXPECT_EQ(warnings.count(), 1U);
  }
  // In our own folder, an entry another user owns is a miss, recompiled and replaced by ours.
  nd::testing::temp_dir dir;
  auto disk = disk_at(dir.path());
  nd::testing::counting_compiler compiler;
  const auto key = nd::testing::small_key("foreign-entry");
  disk->store(key, compiler(key));
  ASSERT_EQ(::chown(disk->entry_path(key).c_str(), other, other), 0);
  nd::testing::captured_warnings warnings;
  jd::program_cache cache(compiler, disk_at(dir.path()));
  EXPECT_FALSE(cache.get(key)->from_disk());
  ASSERT_EQ(warnings.count(), 1U);
  EXPECT_NE(warnings.messages()[0].find("belongs to user id 54321"), std::string::npos) << warnings.messages()[0];
  struct stat info {};
  ASSERT_EQ(::stat(disk->entry_path(key).c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, ::geteuid()) << "rewritten as ours";
}

TEST(JitDiskCache, TheSweepAndClearDeleteOnlyFilesNdcudaWrote) {
  nd::testing::temp_dir dir;
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  const std::string entry_name = std::string(64, 'a') + ".ndjit";
  const std::vector<std::string> not_ours = {
      ".notes.tmp",                     // a user's own hidden temp file
      ".0123456789abcdef.999.0.tmp",    // looks like an older ndcuda's temp name: still not this pattern
      ".ndcuda-tmp-",                   // the marker alone
      ".ndcuda-tmp-0123 notes",         // the marker, then something else
      "mine.ndjit",                     // not a 64-digit name
      std::string(64, 'A') + ".ndjit",  // upper-case digits: not a name ndcuda makes
      "README.txt",
  };
  for (const std::string& name : not_ours) {
    write_file(dir.path() / name, "a user's file");
    fs::last_write_time(dir.path() / name, two_hours_ago);
  }
  // A link named like an entry, to a user's file elsewhere: neither the link nor its target goes.
  nd::testing::temp_dir elsewhere;
  write_file(elsewhere.path() / "precious", "keep me");
  fs::create_symlink(elsewhere.path() / "precious", dir.path() / entry_name);
  // ndcuda's own: a stale temp file (a writer died), a fresh one (a writer is busy).
  const std::string stale = std::string(jd::disk_cache::temp_marker) + "0123456789abcdef-999-0";
  const std::string fresh = std::string(jd::disk_cache::temp_marker) + "fedcba9876543210-998-0";
  write_file(dir.path() / stale, "half written");
  fs::last_write_time(dir.path() / stale, two_hours_ago);
  write_file(dir.path() / fresh, "being written now");

  auto disk = disk_at(dir.path(), 1 << 20);
  nd::testing::counting_compiler compiler;
  const auto key = nd::testing::small_key("temp");
  disk->store(key, compiler(key));  // the first store of a process scans the folder
  EXPECT_FALSE(fs::exists(dir.path() / stale));
  EXPECT_TRUE(fs::exists(dir.path() / fresh)) << "a recent one may be in use";
  EXPECT_EQ(disk->clear(), 2U) << "the entry and the fresh temp file";
  EXPECT_FALSE(fs::exists(disk->entry_path(key)));
  EXPECT_FALSE(fs::exists(dir.path() / fresh));
  for (const std::string& name : not_ours) {
    EXPECT_TRUE(fs::exists(dir.path() / name)) << name;
  }
  EXPECT_TRUE(fs::is_symlink(dir.path() / entry_name));
  EXPECT_EQ(read_file(elsewhere.path() / "precious"), "keep me");
}

TEST(JitDiskCache, NamesOfEntriesAndTempFilesAreNdcudasOwn) {
  EXPECT_TRUE(jd::disk_cache::is_entry_name(std::string(64, 'f') + ".ndjit"));
  EXPECT_FALSE(jd::disk_cache::is_entry_name(std::string(63, 'f') + ".ndjit"));
  EXPECT_FALSE(jd::disk_cache::is_entry_name(std::string(64, 'g') + ".ndjit"));
  EXPECT_FALSE(jd::disk_cache::is_entry_name(std::string(64, 'f') + ".ndjit.tmp"));
  EXPECT_TRUE(jd::disk_cache::is_temp_name(".ndcuda-tmp-0123abcd-42-7"));
  EXPECT_FALSE(jd::disk_cache::is_temp_name(".ndcuda-tmp-"));
  EXPECT_FALSE(jd::disk_cache::is_temp_name(".ndcuda-tmp-../x"));
  EXPECT_FALSE(jd::disk_cache::is_temp_name("ndcuda-tmp-0123"));
  EXPECT_FALSE(jd::disk_cache::is_temp_name(".x.tmp"));
}
