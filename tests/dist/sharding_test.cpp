// Sharding arithmetic and communicator errors that need no GPU: block extents (uneven ones
// included), overlaps, the sharding of reductions, unique-id round trips and bootstrap messages.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ndcuda/dist.hpp>
#include <numeric>
#include <string>
#include <thread>

#include "support/gpu.hpp"

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

TEST(Sharding, BlocksCoverTheAxisInRankOrderWithUnevenSizes) {
  for (nd::index_t n : {0, 1, 2, 3, 7, 10, 1001}) {
    for (int p : {1, 2, 3, 4, 8}) {
      nd::index_t next = 0;
      nd::index_t smallest = n;
      nd::index_t largest = 0;
      for (int r = 0; r < p; ++r) {
        const auto b = dist::block_of(n, p, r);
        EXPECT_EQ(b.begin, next) << n << " over " << p << ", rank " << r;
        next = b.end;
        smallest = std::min(smallest, b.size());
        largest = std::max(largest, b.size());
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(largest - smallest, 1) << "blocks differ by more than one element";
    }
  }
  EXPECT_EQ(dist::block_of(10, 4, 0), (dist::block_range{0, 3}));
  EXPECT_EQ(dist::block_of(10, 4, 1), (dist::block_range{3, 6}));
  EXPECT_EQ(dist::block_of(10, 4, 2), (dist::block_range{6, 8}));
  EXPECT_EQ(dist::block_of(10, 4, 3), (dist::block_range{8, 10}));
  EXPECT_THROW((void)dist::block_of(10, 4, 4), nd::shape_error);
}

TEST(Sharding, ShardShapesAndIntersections) {
  EXPECT_EQ(dist::shard_shape({7, 5}, dist::sharding::block(1), 2, 1), (nd::shape_t{7, 2}));
  EXPECT_EQ(dist::shard_shape({7, 5}, dist::sharding::block(0), 2, 0), (nd::shape_t{4, 5}));
  EXPECT_EQ(dist::shard_shape({7, 5}, dist::sharding::replicated(), 2, 1), (nd::shape_t{7, 5}));
  EXPECT_EQ(dist::intersect({0, 4}, {2, 9}), (dist::block_range{2, 4}));
  EXPECT_EQ(dist::intersect({0, 2}, {5, 9}).size(), 0);
}

TEST(Sharding, NormalizeAxesAndCheckGrids) {
  EXPECT_EQ(dist::normalize(dist::sharding::block(-1), 3), dist::sharding::block(2));
  EXPECT_TRUE(dist::normalize(dist::sharding::replicated(), 0).is_replicated());
  EXPECT_THROW((void)dist::normalize(dist::sharding::block(3), 3), nd::shape_error);
  EXPECT_THROW((void)dist::normalize(dist::sharding::block(0), 0), nd::shape_error);
  EXPECT_EQ(dist::normalize(dist::sharding::block({0, -1}, {2, 2}), 2), dist::sharding::block({0, 1}, {2, 2}));
  // A grid of 2 x 2 ranks cannot lay an array over 3.
  try {
    (void)dist::normalize(dist::sharding::block({0, 1}, {2, 2}), 2, 3);
    FAIL() << "a grid of 4 ranks was accepted for 3";
  } catch (const nd::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("multiply to the rank count"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)dist::normalize(dist::sharding::block({1, -1}, {2, 2}), 2), nd::shape_error);  // axis twice
  EXPECT_THROW((void)dist::normalize(dist::sharding::block({0, 1}, {4}), 2), nd::shape_error);      // grid rank
  // A 1-D grid is kept in the form block(axis).
  EXPECT_EQ(dist::normalize(dist::sharding::block({1}, {3}), 2, 3), dist::sharding::block(1));
  EXPECT_EQ(dist::describe(dist::sharding::block(1)), "block(axis=1)");
  EXPECT_EQ(dist::describe(dist::sharding::block({0, 1}, {2, 1})), "block(axes=(0,1), grid=(2,1))");
  EXPECT_EQ(dist::describe(dist::sharding::replicated()), "replicated");
}

TEST(Sharding, ReductionsAlongTheShardedAxisReplicateOthersKeepTheCut) {
  const auto b1 = dist::sharding::block(1);
  EXPECT_TRUE(dist::reduced_sharding(b1, {1}, false).is_replicated());
  EXPECT_TRUE(dist::reduced_sharding(b1, {0, 1, 2}, false).is_replicated());
  EXPECT_EQ(dist::reduced_sharding(b1, {0}, false), dist::sharding::block(0));
  EXPECT_EQ(dist::reduced_sharding(b1, {0}, true), b1);
  EXPECT_EQ(dist::reduced_sharding(b1, {2}, false), b1);
  EXPECT_TRUE(dist::reduced_sharding(dist::sharding::replicated(), {0}, false).is_replicated());
}

TEST(UniqueId, HexRoundTripAndBadInput) {
  dist::unique_id id;
  for (std::size_t i = 0; i < id.bytes.size(); ++i) {
    id.bytes[i] = static_cast<char>(nd::testing::rng()());
  }
  const std::string hex = id.to_hex();
  EXPECT_EQ(hex.size(), 256U);
  EXPECT_EQ(dist::unique_id::from_hex(hex), id);
  EXPECT_EQ(dist::unique_id::from_hex(hex + "\n"), id);
  EXPECT_THROW((void)dist::unique_id::from_hex(hex.substr(1)), dist::communication_error);
  std::string bad = hex;
  bad[10] = 'g';
  EXPECT_THROW((void)dist::unique_id::from_hex(bad), dist::communication_error);
}

TEST(UniqueId, FileBootstrapWritesAtomicallyAndReadersTimeOut) {
  const auto dir = std::filesystem::temp_directory_path() / ("ndcuda_id_" + std::to_string(nd::testing::rng()()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "id").string();
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)dist::unique_id::read_file(path, std::chrono::milliseconds(200));
    FAIL() << "read_file returned without a file";
  } catch (const dist::communication_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
  dist::unique_id id;
  id.bytes[0] = 42;
  id.bytes[127] = -3;
  id.write_file(path);
  EXPECT_EQ(dist::unique_id::read_file(path, std::chrono::milliseconds(200)), id);
  std::filesystem::remove_all(dir);
}

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A fresh folder for one test, removed at the end.
struct scratch_folder {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ndcuda_id_" + std::to_string(nd::testing::rng()()));
  scratch_folder() { std::filesystem::create_directories(dir); }
  ~scratch_folder() { std::filesystem::remove_all(dir); }
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;
};

dist::unique_id random_id() {
  dist::unique_id id;
  for (auto& b : id.bytes) {
    b = static_cast<char>(nd::testing::rng()());
  }
  return id;
}

// read_file must end within its timeout (plus scheduling slack) with a message naming the path.
void expect_refused_in_time(const std::string& path, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)dist::unique_id::read_file(path, std::chrono::milliseconds(300));
    ADD_FAILURE() << "read_file accepted " << what;
  } catch (const dist::communication_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 600U) << "the message quotes the input: " << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3)) << what << " held the reader";
}

}  // namespace

// Another user who can write the shared folder plants links at the id file's name and at the
// temporary name the old code used (path.tmp.<pid>): writing follows neither.
TEST(UniqueId, WritingFollowsNoPlantedLink) {
  const scratch_folder f;
  const auto victim = f.dir / "victim";
  const auto other_victim = f.dir / "other_victim";
  std::ofstream(victim) << "precious";
  std::ofstream(other_victim) << "also precious";
  const std::string path = (f.dir / "id").string();
  std::filesystem::create_symlink(victim, path + ".tmp." + std::to_string(::getpid()));
  std::filesystem::create_symlink(other_victim, path);
  const dist::unique_id id = random_id();
  id.write_file(path);
  EXPECT_EQ(read_text(victim), "precious");
  EXPECT_EQ(read_text(other_victim), "also precious");
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(path)));
  EXPECT_EQ(dist::unique_id::read_file(path, std::chrono::milliseconds(200)), id);
  // No temporary is left behind: the folder holds the id, the victims and the planted link.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(f.dir), std::filesystem::directory_iterator{}), 4);
}

// A FIFO, an endless device and an oversized file at the id's path: the reader neither blocks nor
// reads without bound, and ends with communication_error at its timeout.
TEST(UniqueId, ReadingNeverBlocksOrReadsWithoutBound) {
  const scratch_folder f;
  const std::string fifo = (f.dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_refused_in_time(fifo, "a FIFO");
  const std::string zero = (f.dir / "zero").string();
  std::filesystem::create_symlink("/dev/zero", zero);
  expect_refused_in_time(zero, "/dev/zero");
  const std::string big = (f.dir / "big").string();
  std::ofstream(big) << std::string(std::size_t{1} << 20, 'a');
  expect_refused_in_time(big, "a 1 MiB file");
  // Rank 0's rename replaces what was planted, and a reader already waiting gets the id.
  const dist::unique_id id = random_id();
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    id.write_file(fifo);
  });
  const dist::unique_id got = dist::unique_id::read_file(fifo, std::chrono::seconds(5));
  writer.join();
  EXPECT_EQ(got, id);
}

TEST(Communicator, EnvironmentWithoutRankSaysWhatToSet) {
  ::unsetenv("NDCUDA_RANK");
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  ::unsetenv("PMI_RANK");
  ::unsetenv("SLURM_PROCID");
  ::unsetenv("RANK");
  try {
    (void)dist::communicator::from_environment();
    FAIL() << "from_environment worked without a rank";
  } catch (const dist::communication_error& e) {
    EXPECT_NE(std::string(e.what()).find("NDCUDA_RANK"), std::string::npos) << e.what();
  }
}

TEST(Communicator, RefusesDevicesThatDoNotExist) {
  const int count = nd::device_count();
  EXPECT_THROW(dist::communicator({count}), nd::device_error);
  EXPECT_THROW(dist::communicator(std::vector<int>{}), nd::device_error);
  EXPECT_THROW((void)dist::communicator::join(dist::unique_id{}, 2, 2, 0), dist::communication_error);
}

TEST(Communicator, NcclTypesCoverWhatReductionsNeed) {
  using dist::reduce_op;
  EXPECT_TRUE(dist::communicator::supports(nd::dtype::float32, reduce_op::sum));
  EXPECT_TRUE(dist::communicator::supports(nd::dtype::int64, reduce_op::max));
  EXPECT_TRUE(dist::communicator::supports(nd::dtype::bfloat16, reduce_op::prod));
  EXPECT_TRUE(dist::communicator::supports(nd::dtype::complex64, reduce_op::sum));
  EXPECT_FALSE(dist::communicator::supports(nd::dtype::complex128, reduce_op::prod));
  EXPECT_FALSE(dist::communicator::supports(nd::dtype::complex64, reduce_op::max));
  EXPECT_FALSE(dist::communicator::supports(nd::dtype::int16, reduce_op::sum));
  EXPECT_FALSE(dist::communicator::supports(nd::dtype::bool_, reduce_op::sum));
}
