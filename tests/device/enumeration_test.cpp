// device_count() and its NVML loader: never throws, explains a zero, and agrees with the driver.
// Cases that need a fresh process (the NVML library is chosen once per process, the driver reads
// CUDA_VISIBLE_DEVICES once) run this executable again as a probe with another environment.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/device/visible_devices.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/nvml.hpp"
#include "support/gpu.hpp"

extern char** environ;

namespace {

constexpr const char* probe_variable = "NDCUDA_TEST_ENUMERATION_PROBE";
constexpr const char* absent_nvml = "/nonexistent/libnvidia-ml.so.1";

const char* source_name(ndcuda::enumeration_source s) {
  switch (s) {
    case ndcuda::enumeration_source::nvml:
      return "nvml";
    case ndcuda::enumeration_source::driver:
      return "driver";
    case ndcuda::enumeration_source::unavailable:
      return "none";
  }
  return "?";
}

// Probe "enumeration": what ndcuda sees in this environment.
void probe_enumeration() {
  const int count = ndcuda::device_count();
  std::printf("count=%d\nsource=%s\nreason=%s\n", count, source_name(ndcuda::device_enumeration_source()),
              ndcuda::device_unavailable_reason().c_str());
}

// Probe "driver": the driver's own view, straight from libcuda (not through ndcuda, which is
// what is being checked): the UUID of each device it enumerates, in order.
void probe_driver() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) {
    std::printf("error=no libcuda.so.1\n");
    return;
  }
  using init_fn = int (*)(unsigned);
  using count_fn = int (*)(int*);
  using get_fn = int (*)(int*, int);
  using uuid_fn = int (*)(unsigned char*, int);
  auto init = reinterpret_cast<init_fn>(dlsym(cuda, "cuInit"));
  auto count = reinterpret_cast<count_fn>(dlsym(cuda, "cuDeviceGetCount"));
  auto get = reinterpret_cast<get_fn>(dlsym(cuda, "cuDeviceGet"));
  auto uuid = reinterpret_cast<uuid_fn>(dlsym(cuda, "cuDeviceGetUuid_v2"));
  if (init == nullptr || count == nullptr || get == nullptr || uuid == nullptr) {
    std::printf("error=libcuda.so.1 lacks an entry point\n");
    return;
  }
  if (int rc = init(0); rc != 0) {
    // CUDA_VISIBLE_DEVICES left nothing: CUDA_ERROR_NO_DEVICE (100), or CUDA_ERROR_INVALID_DEVICE
    // (101) when it names a device twice.
    if (rc == 100 || rc == 101) {
      std::printf("count=0\ninit=%d\n", rc);
    } else {
      std::printf("error=cuInit returned %d\n", rc);
    }
    return;
  }
  int n = 0;
  if (int rc = count(&n); rc != 0) {
    std::printf("error=cuDeviceGetCount returned %d\n", rc);
    return;
  }
  std::printf("count=%d\n", n);
  for (int i = 0; i < n; ++i) {
    int device = 0;
    unsigned char bytes[16] = {};
    if (get(&device, i) != 0 || uuid(bytes, device) != 0) {
      std::printf("error=no UUID for device %d\n", i);
      return;
    }
    std::printf("uuid=");
    for (int b = 0; b < 16; ++b) {
      std::printf("%s%02x", b == 4 || b == 6 || b == 8 || b == 10 ? "-" : "", bytes[b]);
    }
    std::printf("\n");
  }
}

// Whether this process has a CUDA context on any GPU, as NVML's process list says; -1 when that
// list is not available.
int has_context_somewhere() {
  const auto* nvml = ndcuda::detail::nvml::get();
  if (nvml == nullptr || nvml->device_get_compute_running_processes_v3 == nullptr) {
    return -1;
  }
  unsigned int gpus = 0;
  if (nvml->device_get_count_v2(&gpus) != ndcuda::detail::nvml::success) {
    return -1;
  }
  for (unsigned int g = 0; g < gpus; ++g) {
    ndcuda::detail::nvml::device_t device = nullptr;
    if (nvml->device_get_handle_by_index_v2(g, &device) != ndcuda::detail::nvml::success) {
      return -1;
    }
    std::vector<ndcuda::detail::nvml::process_info_t> infos(16);
    auto count = static_cast<unsigned int>(infos.size());
    ndcuda::detail::nvml::return_t rc = ndcuda::detail::nvml::success;
    while ((rc = nvml->device_get_compute_running_processes_v3(device, &count, infos.data())) ==
           ndcuda::detail::nvml::error_insufficient_size) {
      infos.resize(count + 16);  // more processes than room: NVML said how many
      count = static_cast<unsigned int>(infos.size());
    }
    if (rc != ndcuda::detail::nvml::success) {
      return -1;
    }
    for (unsigned int i = 0; i < count; ++i) {
      if (infos[i].pid == static_cast<unsigned int>(getpid())) {
        return 1;
      }
    }
  }
  return 0;
}

// Probe "untouched": after device_count(), does this process hold a CUDA context anywhere? It
// must not. Then a context is made on purpose, to show the check can see one.
void probe_untouched() {
  const int count = ndcuda::device_count();
  std::printf("count=%d\nsource=%s\ncontext_before=%d\n", count, source_name(ndcuda::device_enumeration_source()),
              has_context_somewhere());
  if (count > 0 && cudaFree(nullptr) == cudaSuccess) {
    std::printf("context_after=%d\n", has_context_somewhere());
  }
}

// Runs before main: in probe mode, answer and leave before GoogleTest starts.
[[maybe_unused]] const bool probe_mode = [] {
  const char* mode = std::getenv(probe_variable);
  if (mode == nullptr) {
    return false;
  }
  if (std::string_view(mode) == "driver") {
    probe_driver();
  } else if (std::string_view(mode) == "untouched") {
    probe_untouched();
  } else {
    probe_enumeration();
  }
  std::fflush(stdout);
  std::_Exit(0);
}();

using environment = std::map<std::string, std::optional<std::string>>;  // nullopt: unset

// Runs this executable as a probe with `changes` applied to the current environment; returns its
// output as key -> values.
std::multimap<std::string, std::string> run_probe(const char* mode, const environment& changes) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::string key(entry.substr(0, entry.find('=')));
    if (!changes.contains(key) && key != probe_variable) {
      env_strings.emplace_back(entry);
    }
  }
  for (const auto& [key, value] : changes) {
    if (value) {
      env_strings.push_back(key + "=" + *value);
    }
  }
  env_strings.push_back(std::string(probe_variable) + "=" + mode);
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (auto& s : env_strings) {
    envp.push_back(s.data());
  }
  envp.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) {
    ADD_FAILURE() << "pipe failed";
    return {};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  char self[] = "/proc/self/exe";
  char* argv[] = {self, nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self, &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string output;
  if (rc == 0) {
    char buffer[4096];
    ssize_t got = 0;
    while ((got = read(fds[0], buffer, sizeof buffer)) > 0) {
      output.append(buffer, static_cast<std::size_t>(got));
    }
  }
  close(fds[0]);
  if (rc != 0) {
    ADD_FAILURE() << "posix_spawn failed: " << rc;
    return {};
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "probe " << mode << " status " << status;
  std::multimap<std::string, std::string> result;
  std::string_view rest(output);
  while (!rest.empty()) {
    const auto line = rest.substr(0, rest.find('\n'));
    rest.remove_prefix(std::min(rest.size(), line.size() + 1));
    const auto eq = line.find('=');
    if (eq != std::string_view::npos) {
      result.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    }
  }
  return result;
}

std::string value(const std::multimap<std::string, std::string>& output, const std::string& key) {
  auto it = output.find(key);
  return it == output.end() ? std::string("<missing>") : it->second;
}

TEST(NvmlLoader, MissingLibraryIsAReasonNotAFailure) {
  auto lib = ndcuda::detail::nvml::library::load(absent_nvml);
  ASSERT_NE(lib, nullptr);
  EXPECT_FALSE(lib->ok());
  EXPECT_EQ(lib->name(), absent_nvml);
  EXPECT_NE(lib->reason().find(std::string("NVML (") + absent_nvml + ") not found"), std::string::npos)
      << lib->reason();
}

TEST(NvmlLoader, LibraryWithoutNvmlSymbolsIsRejected) {
  auto lib = ndcuda::detail::nvml::library::load("libc.so.6");
  EXPECT_FALSE(lib->ok());
  EXPECT_NE(lib->reason().find("has no entry point nvmlInit_v2"), std::string::npos) << lib->reason();
}

// NDCUDA_NVML_LIBRARY naming a FIFO or a device: dlopen would read it and hang (a FIFO) or read
// forever; the loader refuses anything but a regular file at a path, at once.
TEST(NvmlLoader, AFifoOrADeviceIsRefusedWithoutOpeningIt) {
  const auto fifo = std::filesystem::temp_directory_path() / ("ndcuda_nvml_" + std::to_string(::getpid()));
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo.string(), std::string("/dev/zero")}) {
    const auto start = std::chrono::steady_clock::now();
    auto lib = ndcuda::detail::nvml::library::load(path);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << path;
    EXPECT_FALSE(lib->ok()) << path;
    EXPECT_NE(lib->reason().find("not a regular file"), std::string::npos) << lib->reason();
  }
  std::filesystem::remove(fifo);
}

TEST(NvmlLoader, ProcessWideLoaderAgreesWithItsReason) {
  const auto* nvml = ndcuda::detail::nvml::get();
  const std::string reason = ndcuda::detail::nvml::unavailable_reason();
  if (nvml == nullptr) {
    EXPECT_NE(reason.find("NVML"), std::string::npos) << reason;
    EXPECT_THROW((void)ndcuda::detail::nvml::list_physical_devices(), ndcuda::device_error);
  } else {
    EXPECT_TRUE(reason.empty()) << reason;
    EXPECT_FALSE(ndcuda::detail::nvml::memory_by_uuid(*nvml, "GPU-00000000-0000-0000-0000-000000000000").has_value());
    for (const auto& gpu : ndcuda::detail::nvml::list_physical_devices()) {
      EXPECT_TRUE(gpu.uuid.starts_with("GPU-")) << gpu.uuid;
      const auto memory = ndcuda::detail::nvml::memory_by_uuid(*nvml, gpu.uuid);
      ASSERT_TRUE(memory.has_value()) << gpu.uuid;
      EXPECT_GT(memory->total, 0u);
      EXPECT_LE(memory->free, memory->total);
      for (const auto& mig : gpu.mig_uuids) {
        EXPECT_TRUE(mig.starts_with("MIG-")) << mig;
      }
    }
  }
}

TEST(Enumeration, NeverThrowsAndExplainsZero) {
  int count = -1;
  EXPECT_NO_THROW(count = ndcuda::device_count());
  EXPECT_GE(count, 0);
  const std::string reason = ndcuda::device_unavailable_reason();
  if (count == 0) {
    EXPECT_FALSE(reason.empty());
    EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
    EXPECT_TRUE(reason.find("NVML") != std::string::npos || reason.find("driver") != std::string::npos ||
                reason.find("CUDA_VISIBLE_DEVICES") != std::string::npos)
        << reason;
    try {
      ndcuda::require_devices();
      ADD_FAILURE() << "require_devices() did not throw with no device";
    } catch (const ndcuda::device_error& e) {
      EXPECT_TRUE(std::string_view(e.what()).starts_with("no CUDA device available: ")) << e.what();
      EXPECT_NE(std::string_view(e.what()).find(reason), std::string_view::npos) << e.what();
    }
  } else {
    EXPECT_TRUE(reason.empty()) << reason;
    EXPECT_NO_THROW(ndcuda::require_devices(count));
    try {
      ndcuda::require_devices(count + 1);
      ADD_FAILURE() << "require_devices(" << count + 1 << ") did not throw with " << count << " visible";
    } catch (const ndcuda::device_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("needs " + std::to_string(count + 1)), std::string::npos) << what;
      EXPECT_NE(what.find("only " + std::to_string(count)), std::string::npos) << what;
    }
  }
  EXPECT_NO_THROW(ndcuda::require_devices(0));
}

TEST(Enumeration, SourceMatchesWhatIsInstalled) {
  const auto source = ndcuda::device_enumeration_source();
  if (ndcuda::detail::nvml::get() == nullptr) {
    EXPECT_NE(source, ndcuda::enumeration_source::nvml);
  }
  if (source == ndcuda::enumeration_source::unavailable) {
    EXPECT_EQ(ndcuda::device_count(), 0);
  }
}

TEST(Enumeration, WithoutNvmlFallsBackToTheDriver) {
  const int here = ndcuda::device_count();
  const auto out = run_probe("enumeration", {{"NDCUDA_NVML_LIBRARY", absent_nvml}});
  const std::string source = value(out, "source");
  EXPECT_NE(source, "nvml");
  const std::string reason = value(out, "reason");
  if (source == "none") {
    EXPECT_EQ(value(out, "count"), "0");
    EXPECT_NE(reason.find(std::string("NVML (") + absent_nvml + ") not found"), std::string::npos) << reason;
    EXPECT_NE(reason.find("driver"), std::string::npos) << reason;
  } else {
    EXPECT_EQ(source, "driver");
    EXPECT_EQ(value(out, "count"), std::to_string(here)) << reason;
  }
}

TEST(Enumeration, WithoutNvmlTheDriverAppliesCudaVisibleDevices) {
  NDCUDA_REQUIRE_GPU();
  // "0,0" makes cuInit fail with CUDA_ERROR_INVALID_DEVICE rather than NO_DEVICE: still 0 devices.
  for (const char* hiding : {"", "-1", "0,0"}) {
    const auto out = run_probe("enumeration", {{"NDCUDA_NVML_LIBRARY", absent_nvml}, {"CUDA_VISIBLE_DEVICES", hiding}});
    const std::string reason = value(out, "reason");
    EXPECT_EQ(value(out, "count"), "0") << hiding;
    EXPECT_EQ(value(out, "source"), "driver") << hiding << ": " << reason;
    EXPECT_NE(reason.find("CUDA_VISIBLE_DEVICES=\"" + std::string(hiding) + "\""), std::string::npos) << reason;
  }
  const auto one = run_probe("enumeration", {{"NDCUDA_NVML_LIBRARY", absent_nvml}, {"CUDA_VISIBLE_DEVICES", "0"}});
  EXPECT_EQ(value(one, "count"), "1");
  EXPECT_EQ(value(one, "source"), "driver");
}

TEST(Enumeration, CountingCreatesNoContext) {
  NDCUDA_REQUIRE_GPU();
  const auto out = run_probe("untouched", {});
  if (value(out, "context_after") != "1") {
    GTEST_SKIP() << "NVML's process list does not show this process's contexts here";
  }
  EXPECT_EQ(value(out, "context_before"), "0");
  EXPECT_EQ(value(out, "count"), std::to_string(ndcuda::device_count()));
}

TEST(Enumeration, MatchesTheRuntimeCount) {
  NDCUDA_REQUIRE_GPU();
  const int ours = ndcuda::device_count();  // before the runtime: this must not need it
  int runtime = -1;
  ASSERT_EQ(cudaGetDeviceCount(&runtime), cudaSuccess);
  EXPECT_EQ(ours, runtime);
}

TEST(Enumeration, EmptyCudaVisibleDevicesHidesEverything) {
  NDCUDA_REQUIRE_GPU();
  if (ndcuda::device_enumeration_source() != ndcuda::enumeration_source::nvml) {
    GTEST_SKIP() << "the driver reads CUDA_VISIBLE_DEVICES once; only the NVML path re-reads it";
  }
  const int all = ndcuda::device_count();
  const char* saved = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> restore = saved ? std::optional<std::string>(saved) : std::nullopt;
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  const int hidden = ndcuda::device_count();
  const std::string reason = ndcuda::device_unavailable_reason();
  setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
  const int minus_one = ndcuda::device_count();
  if (restore) {
    setenv("CUDA_VISIBLE_DEVICES", restore->c_str(), 1);
  } else {
    unsetenv("CUDA_VISIBLE_DEVICES");
  }
  EXPECT_EQ(hidden, 0);
  EXPECT_EQ(minus_one, 0);
  EXPECT_NE(reason.find("CUDA_VISIBLE_DEVICES=\"\" hides all"), std::string::npos) << reason;
  EXPECT_EQ(ndcuda::device_count(), all);
}

// CUDA_VISIBLE_DEVICES values worth asking the driver about on this machine, built from its UUIDs.
std::vector<std::optional<std::string>> values_to_check(const std::vector<ndcuda::physical_device>& gpus) {
  const std::string n = std::to_string(gpus.size());
  const std::string u0 = gpus[0].uuid;
  const std::string h0 = u0.substr(4);
  std::string upper0 = u0;
  std::string bare0 = "GPU-";  // no dashes
  for (std::size_t i = 4; i < u0.size(); ++i) {
    upper0[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(u0[i])));
    if (u0[i] != '-') {
      bare0 += u0[i];
    }
  }
  std::vector<std::optional<std::string>> values = {
      std::nullopt, "", "-1", "0", "+0", " 0", "0 ", "\t0", "0gpu", "-0", "00", "0x1", "0 1", "0;1", "0,", ",0", "0,,0",
      "0,0", "0,-1,0", "0,x,0", "x", "gpu0", "0,x", n, "0," + n, "99999999999999999999",
      // UUIDs: prefixes, spelling, and what ends a list of them.
      u0, u0.substr(0, 12), u0.substr(0, 5), bare0, bare0.substr(0, 14), upper0,
      "GPU--" + h0.substr(0, 2) + "-" + h0.substr(2, 2), "MIG-" + h0, "MIG-" + h0.substr(0, 6), u0 + "-extra",
      u0 + "ff", u0 + " ", u0 + ",", u0 + ",,0", " " + u0, u0.substr(0, 10) + " ", u0.substr(0, 8) + "zz",
      u0.substr(0, 8) + "." + h0.substr(8, 4), "gpu-" + h0, "Gpu-" + h0, h0, "GPU-", "MIG-", "GPU-zz",
      "GPU-0x" + h0.substr(0, 4), "GPU-," + u0,
      // Duplicates, and mixing kinds.
      u0 + "," + u0, u0.substr(0, 7) + "," + u0, u0 + "," + upper0, u0 + ",0", "0," + u0, "0," + u0.substr(0, 10),
      "MIG-0", "0,MIG-0"};
  if (gpus.size() >= 2) {
    const std::string u1 = gpus[1].uuid;
    const std::string h1 = u1.substr(4);
    for (const std::string& v : std::vector<std::string>{"1",
                                                         "1,0",
                                                         "0,1",
                                                         "1,1",
                                                         "1 , 0",
                                                         "1,\t0",
                                                         "1,+0",
                                                         "1,0,1",
                                                         "0,1gpu,1",
                                                         "1,0," + n + ",1",
                                                         "0,1," + n + ",1",
                                                         u1 + "," + u0,
                                                         u1 + "," + u0 + "," + u1,
                                                         u1 + ",GPU-zz," + u0,
                                                         u0 + ", " + u1,
                                                         u0 + ",-1," + u1,
                                                         u0 + ",MIG-" + h1,
                                                         "MIG-" + h1 + "," + u0,
                                                         u0 + "," + u1 + ",0",
                                                         "1," + u0,
                                                         u1.substr(0, 10) + ",0",
                                                         u1 + ",1",
                                                         "GPU-" + h0.substr(0, 1),
                                                         "GPU-" + h1.substr(0, 1)}) {
      values.emplace_back(v);
    }
  }
  return values;
}

// The strongest check of apply_cuda_visible_devices: the real driver, one process per value.
TEST(Enumeration, DriverAgreesOnCudaVisibleDevicesValues) {
  NDCUDA_REQUIRE_GPU();
  if (ndcuda::device_enumeration_source() != ndcuda::enumeration_source::nvml) {
    GTEST_SKIP() << "needs NVML to list the GPUs";
  }
  const auto gpus = ndcuda::detail::nvml::list_physical_devices();
  ASSERT_FALSE(gpus.empty());
  for (const auto& v : values_to_check(gpus)) {
    std::vector<std::string> expected;
    for (const auto& d : ndcuda::apply_cuda_visible_devices(v ? v->c_str() : nullptr, gpus)) {
      expected.push_back(d.uuid.substr(4));  // the driver's UUID bytes carry no "GPU-"/"MIG-"
    }
    // PCI_BUS_ID: the order NVML lists GPUs in, which ordinals index here.
    const auto out =
        run_probe("driver", {{"CUDA_VISIBLE_DEVICES", v}, {"CUDA_DEVICE_ORDER", std::string("PCI_BUS_ID")}});
    const std::string shown = v ? "\"" + *v + "\"" : std::string("unset");
    EXPECT_EQ(out.count("error"), 0u) << shown << ": " << value(out, "error");
    std::vector<std::string> actual;
    for (auto [it, end] = out.equal_range("uuid"); it != end; ++it) {
      actual.push_back(it->second);
    }
    EXPECT_EQ(value(out, "count"), std::to_string(actual.size())) << shown;
    EXPECT_EQ(actual, expected) << "CUDA_VISIBLE_DEVICES=" << shown;
  }
}

}  // namespace
