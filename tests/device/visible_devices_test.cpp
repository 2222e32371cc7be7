// apply_cuda_visible_devices on synthetic GPU lists: the driver's CUDA_VISIBLE_DEVICES rules, on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <ndcuda/device/visible_devices.hpp>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/gpu.hpp"

namespace {

using ndcuda::apply_cuda_visible_devices;
using ndcuda::physical_device;
using ndcuda::visible_device;

// Four GPUs; 1 and 2 share the UUID prefix "GPU-8f9a1c3e-5", so only a longer prefix tells them apart.
const std::vector<physical_device> four_gpus = {
    {"GPU-0b5e7d21-9a3c-4f10-8e2d-6c1a2b3c4d5e", {}},
    {"GPU-8f9a1c3e-5d2b-4e6f-9a0b-1c2d3e4f5a6b", {}},
    {"GPU-8f9a1c3e-5e00-4000-8000-000000000000", {}},
    {"GPU-d41d8cd9-8f00-b204-e980-0998ecf8427e", {}},
};

std::vector<int> ordinals(const char* env, const std::vector<physical_device>& gpus = four_gpus) {
  std::vector<int> result;
  for (const visible_device& d : apply_cuda_visible_devices(env, gpus)) {
    EXPECT_EQ(d.mig_index, -1) << env;
    EXPECT_EQ(d.uuid, gpus.at(static_cast<std::size_t>(d.physical_index)).uuid) << env;
    result.push_back(d.physical_index);
  }
  return result;
}

using list = std::vector<int>;

TEST(VisibleDevices, UnsetShowsEveryGpuInOrder) {
  EXPECT_EQ(ordinals(nullptr), (list{0, 1, 2, 3}));
  EXPECT_TRUE(apply_cuda_visible_devices(nullptr, {}).empty());
}

TEST(VisibleDevices, EmptyAndMinusOneHideEverything) {
  EXPECT_EQ(ordinals(""), list{});
  EXPECT_EQ(ordinals("-1"), list{});
  EXPECT_EQ(ordinals("   "), list{});
  EXPECT_EQ(ordinals(","), list{});
}

TEST(VisibleDevices, OrdinalsSelectAndReorder) {
  EXPECT_EQ(ordinals("0"), (list{0}));
  EXPECT_EQ(ordinals("2"), (list{2}));
  EXPECT_EQ(ordinals("3,1"), (list{3, 1}));
  EXPECT_EQ(ordinals("3,2,1,0"), (list{3, 2, 1, 0}));
  EXPECT_EQ(ordinals("1,3,0,2"), (list{1, 3, 0, 2}));
  EXPECT_EQ(ordinals("00,01"), (list{0, 1}));
}

TEST(VisibleDevices, SpacesAroundOrdinalsAreIgnored) {
  EXPECT_EQ(ordinals(" 1 , 2 "), (list{1, 2}));
  EXPECT_EQ(ordinals("\t3,\t0"), (list{3, 0}));
  EXPECT_EQ(ordinals("1,\n 0\n"), (list{1, 0}));
}

TEST(VisibleDevices, SpacesAroundAPartialUuidEndTheList) {
  EXPECT_EQ(ordinals(" GPU-d41d"), list{});  // an ordinal token without a number
  EXPECT_EQ(ordinals("GPU-d41d, GPU-0b"), (list{3}));
  EXPECT_EQ(ordinals("GPU-d41d ,GPU-0b"), list{});
  // After the 32nd digit nothing counts.
  EXPECT_EQ(ordinals("GPU-d41d8cd9-8f00-b204-e980-0998ecf8427e ,GPU-0b"), (list{3, 0}));
}

TEST(VisibleDevices, OrdinalIsReadLikeStrtoul) {
  EXPECT_EQ(ordinals("1gpu"), (list{1}));
  EXPECT_EQ(ordinals("1gpu2,2ampere"), (list{1, 2}));
  EXPECT_EQ(ordinals("0x3"), (list{0}));
  EXPECT_EQ(ordinals("2.9"), (list{2}));
  EXPECT_EQ(ordinals("+2"), (list{2}));
  EXPECT_EQ(ordinals("+2,+0"), (list{2, 0}));
  EXPECT_EQ(ordinals("-0"), (list{0}));
  EXPECT_EQ(ordinals("1 2"), (list{1}));
}

TEST(VisibleDevices, NegativeStopsTheList) {
  EXPECT_EQ(ordinals("1,-1,2"), (list{1}));
  EXPECT_EQ(ordinals("2,0,-3"), (list{2, 0}));
  EXPECT_EQ(ordinals("-2,1"), list{});
}

TEST(VisibleDevices, EmptyTokenStopsTheList) {
  EXPECT_EQ(ordinals("1,,2"), (list{1}));
  EXPECT_EQ(ordinals("1, ,2"), (list{1}));
  EXPECT_EQ(ordinals(",1"), list{});
  EXPECT_EQ(ordinals("1,2,"), (list{1, 2}));
}

TEST(VisibleDevices, NonNumberStopsTheList) {
  EXPECT_EQ(ordinals("gpu1"), list{});
  EXPECT_EQ(ordinals("2,x,1"), (list{2}));
  EXPECT_EQ(ordinals("1,+,2"), (list{1}));
  EXPECT_EQ(ordinals("1,-,2"), (list{1}));
  EXPECT_EQ(ordinals("gpu-d41d"), list{});  // "GPU-" must be in capitals
  EXPECT_EQ(ordinals("GPU-d41d,Gpu-0b"), (list{3}));
}

TEST(VisibleDevices, OutOfRangeOrdinalStopsTheList) {
  EXPECT_EQ(ordinals("4"), list{});
  EXPECT_EQ(ordinals("1,4,2"), (list{1}));
  EXPECT_EQ(ordinals("0,1,2,3,4"), (list{0, 1, 2, 3}));
  EXPECT_EQ(ordinals("2,99999999999999999999999999,1"), (list{2}));
  EXPECT_EQ(ordinals("0", {}), list{});
}

TEST(VisibleDevices, FullAndPrefixUuids) {
  EXPECT_EQ(ordinals("GPU-0b5e7d21-9a3c-4f10-8e2d-6c1a2b3c4d5e"), (list{0}));
  EXPECT_EQ(ordinals("GPU-d41d8cd9-8f00-b204-e980-0998ecf8427e"), (list{3}));
  EXPECT_EQ(ordinals("GPU-d41d8cd9-8f00-b204-e980-0998ecf8427e,GPU-0b5e7d21-9a3c-4f10-8e2d-6c1a2b3c4d5e"),
            (list{3, 0}));
  EXPECT_EQ(ordinals("GPU-0b"), (list{0}));
  EXPECT_EQ(ordinals("GPU-8f9a1c3e-5d"), (list{1}));
  EXPECT_EQ(ordinals("GPU-8f9a1c3e-5e,GPU-8f9a1c3e-5d"), (list{2, 1}));
}

TEST(VisibleDevices, UuidDigitsAreReadLooselyUpToThe32nd) {
  EXPECT_EQ(ordinals("GPU-D41D8CD9-8F00-B204-E980-0998ECF8427E"), (list{3}));  // any case
  EXPECT_EQ(ordinals("GPU-d41d8cd98f00b204e9800998ecf8427e"), (list{3}));      // no dashes
  EXPECT_EQ(ordinals("GPU--d4-1d-"), (list{3}));                               // dashes anywhere
  EXPECT_EQ(ordinals("GPU-8F9A1C3E5D"), (list{1}));
  EXPECT_EQ(ordinals("GPU-d41d8cd9-8f00-b204-e980-0998ecf8427e-extra"), (list{3}));
  EXPECT_EQ(ordinals("GPU-d41d8cd9-8f00-b204-e980-0998ecf8427e0123"), (list{3}));
  EXPECT_EQ(ordinals("GPU-d41dzz"), list{});
  EXPECT_EQ(ordinals("GPU-d41d.8cd9"), list{});
  EXPECT_EQ(ordinals("GPU-d41d:8cd9"), list{});
  EXPECT_EQ(ordinals("GPU-0xd41d"), list{});
  EXPECT_EQ(ordinals("GPU-"), list{});
  EXPECT_EQ(ordinals("GPU-,GPU-0b"), list{});
}

TEST(VisibleDevices, MigPrefixAlsoNamesGpus) {
  EXPECT_EQ(ordinals("MIG-d41d"), (list{3}));
  EXPECT_EQ(ordinals("GPU-d41d,MIG-0b,GPU-8f9a1c3e5e"), (list{3, 0, 2}));
  EXPECT_EQ(ordinals("MIG-"), list{});
}

TEST(VisibleDevices, AmbiguousPrefixStopsTheList) {
  EXPECT_EQ(ordinals("GPU-8f9a"), list{});
  EXPECT_EQ(ordinals("3,GPU-8f9a1c3e-5,0"), (list{3}));
  // With one GPU any of its prefixes names it; the bare "GPU-" has no digit and names nothing.
  EXPECT_EQ(ordinals("GPU-8", {four_gpus[1]}), (list{0}));
  EXPECT_EQ(ordinals("GPU-", {four_gpus[1]}), list{});
}

TEST(VisibleDevices, UnknownUuidStopsTheList) {
  EXPECT_EQ(ordinals("GPU-ffff"), list{});
  EXPECT_EQ(ordinals("1,GPU-ffff,2"), (list{1}));
  EXPECT_EQ(ordinals("GPU-0b5e7d21-9a3c-4f10-8e2d-6c1a2b3c4d5f"), list{});
  EXPECT_EQ(ordinals("GPU-0b,GPU-ffff,GPU-d41d"), (list{0}));
  EXPECT_EQ(ordinals("MIG-ffff"), list{});
}

TEST(VisibleDevices, DuplicateEmptiesTheList) {
  EXPECT_EQ(ordinals("1,1"), list{});
  EXPECT_EQ(ordinals("0,2,3,2"), list{});
  EXPECT_EQ(ordinals("1,01"), list{});
  EXPECT_EQ(ordinals("1,1gpu"), list{});
  EXPECT_EQ(ordinals("GPU-d41d,GPU-d41d8cd9"), list{});
  EXPECT_EQ(ordinals("GPU-0b,GPU-d41d,MIG-0B5E"), list{});
  // An end of the list before the second naming wins: the list is cut, not emptied.
  EXPECT_EQ(ordinals("1,x,1"), (list{1}));
  EXPECT_EQ(ordinals("1,7,1"), (list{1}));
  EXPECT_EQ(ordinals("GPU-0b,GPU-ff,GPU-0b"), (list{0}));
}

TEST(VisibleDevices, OrdinalsAndUuidsDoNotMix) {
  EXPECT_EQ(ordinals("2,GPU-0b,3"), (list{2}));
  EXPECT_EQ(ordinals("GPU-d41d,1"), (list{3}));
  EXPECT_EQ(ordinals("3,GPU-d41d"), (list{3}));  // so no duplicate either
  EXPECT_EQ(ordinals("GPU-0b,0"), (list{0}));
}

// GPU 0 whole, GPU 1 in MIG mode with three MIG devices, GPU 2 in MIG mode with none, GPU 3 whole.
const std::vector<physical_device> mig_machine = {
    {"GPU-00000000-0000-0000-0000-000000000000", {}},
    {"GPU-11111111-1111-1111-1111-111111111111",
     {"MIG-aaaaaaaa-0000-5000-8000-000000000000", "MIG-bbbbbbbb-0000-5000-8000-000000000000",
      "MIG-bbbbcccc-0000-5000-8000-000000000000"}},
    {"GPU-22222222-2222-2222-2222-222222222222", {}, true},
    {"GPU-33333333-3333-3333-3333-333333333333", {}},
};

struct seen {
  int gpu;
  int mig;
  bool operator==(const seen&) const = default;
};
using seen_list = std::vector<seen>;

seen_list on_mig_machine(const char* env) {
  seen_list result;
  for (const visible_device& d : apply_cuda_visible_devices(env, mig_machine)) {
    const physical_device& gpu = mig_machine.at(static_cast<std::size_t>(d.physical_index));
    EXPECT_EQ(d.uuid, d.mig_index < 0 ? gpu.uuid : gpu.mig_uuids.at(static_cast<std::size_t>(d.mig_index))) << env;
    result.push_back({d.physical_index, d.mig_index});
  }
  return result;
}

TEST(VisibleDevices, MigUuidSelectsOneMigDevice) {
  EXPECT_EQ(on_mig_machine("MIG-bbbbbbbb"), (seen_list{{1, 1}}));
  EXPECT_EQ(on_mig_machine("MIG-bbbbc"), (seen_list{{1, 2}}));
  EXPECT_EQ(on_mig_machine("MIG-aaaaaaaa-0000-5000-8000-000000000000"), (seen_list{{1, 0}}));
  EXPECT_EQ(on_mig_machine("GPU-0000,MIG-bbbbc,GPU-3333"), (seen_list{{0, -1}, {1, 2}, {3, -1}}));
  EXPECT_EQ(on_mig_machine("MIG-bbbb"), seen_list{});  // ambiguous
  EXPECT_EQ(on_mig_machine("MIG-ffff,0"), seen_list{});
  EXPECT_EQ(on_mig_machine("MIG-aaaa,MIG-aaaaaaaa"), seen_list{});
  // Both prefixes match GPU and MIG UUIDs alike.
  EXPECT_EQ(on_mig_machine("GPU-aaaa"), (seen_list{{1, 0}}));
  EXPECT_EQ(on_mig_machine("MIG-3333"), (seen_list{{3, -1}}));
}

TEST(VisibleDevices, GpuInMigModeShowsItsFirstMigDevice) {
  EXPECT_EQ(on_mig_machine(nullptr), (seen_list{{0, -1}, {1, 0}, {3, -1}}));
  EXPECT_EQ(on_mig_machine("1"), (seen_list{{1, 0}}));
  EXPECT_EQ(on_mig_machine("GPU-1111,GPU-0000"), (seen_list{{1, 0}, {0, -1}}));
  EXPECT_EQ(on_mig_machine("MIG-1111"), (seen_list{{1, 0}}));
  // MIG mode without MIG devices: named, so not a stop, but nothing to show.
  EXPECT_EQ(on_mig_machine("2,3"), (seen_list{{3, -1}}));
  EXPECT_EQ(on_mig_machine("2,2"), seen_list{});
}

TEST(VisibleDevices, AtMostOneMigDevicePerProcess) {
  EXPECT_EQ(on_mig_machine("MIG-bbbbc,MIG-aaaa,GPU-0000"), (seen_list{{1, 2}, {0, -1}}));
  EXPECT_EQ(on_mig_machine("GPU-1111,MIG-bbbbb"), (seen_list{{1, 0}}));
  EXPECT_EQ(on_mig_machine("1,3"), (seen_list{{1, 0}, {3, -1}}));
}

// The digits of a UUID, dashes dropped.
std::string digits_of(const std::string& uuid) {
  std::string digits;
  for (char c : uuid.substr(4)) {
    if (c != '-') {
      digits += c;
    }
  }
  return digits;
}

// The length of the shortest prefix of GPU `which`'s digits that no other GPU shares.
std::size_t unique_digits(const std::vector<physical_device>& machine, std::size_t which) {
  const std::string mine = digits_of(machine[which].uuid);
  for (std::size_t n = 1; n < mine.size(); ++n) {
    bool shared = false;
    for (std::size_t other = 0; other < machine.size() && !shared; ++other) {
      shared = other != which && digits_of(machine[other].uuid).starts_with(mine.substr(0, n));
    }
    if (!shared) {
      return n;
    }
  }
  return mine.size();
}

// A valid spelling of GPU `which`: an ordinal with strtoul's leeway, or a UUID spelled loosely
// (a unique prefix, any case, dashes dropped or doubled, junk past the 32nd digit).
std::string spell(const std::vector<physical_device>& machine, std::size_t which, bool as_uuid, std::mt19937_64& rng) {
  auto coin = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
  if (!as_uuid) {
    std::string token = std::to_string(which);
    if (coin()) {
      token = "00" + token;
    }
    if (coin()) {
      token = "+" + token;
    }
    if (coin()) {
      token = (coin() ? " " : "\t") + token;
    }
    if (coin()) {
      token += std::array<const char*, 4>{" ", "gpu", ";7", " 9"}[rng() % 4];
    }
    return token;
  }
  const std::size_t length = std::uniform_int_distribution<std::size_t>(unique_digits(machine, which), 32)(rng);
  std::string token = coin() ? "GPU-" : "MIG-";
  std::size_t digits = 0;
  for (char c : machine[which].uuid.substr(4)) {
    if (digits == length) {
      break;
    }
    if (c == '-') {
      if (coin()) {
        token += coin() ? "--" : "-";
      }
      continue;
    }
    token += coin() ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    ++digits;
  }
  if (length == 32 && coin()) {
    token += coin() ? " " : "-tail";
  }
  return token;
}

TEST(VisibleDevices, RandomDistinctDevicesComeBackInOrder) {
  auto& rng = ndcuda::testing::rng();
  for (int trial = 0; trial < 2000; ++trial) {
    const int gpus = std::uniform_int_distribution<int>(1, 16)(rng);
    std::vector<physical_device> machine;
    for (int g = 0; g < gpus; ++g) {
      // Few distinct leading digits, so that GPUs often share a prefix and need a long one.
      char uuid[64];
      std::snprintf(uuid, sizeof uuid, "GPU-%02x%06x-0000-4000-8000-%012d", static_cast<unsigned>(rng() % 4),
                    static_cast<unsigned>(rng() & 0xffffff), g);
      machine.push_back({uuid, {}});
    }
    std::vector<std::size_t> pick(static_cast<std::size_t>(gpus));
    std::iota(pick.begin(), pick.end(), std::size_t{0});
    std::shuffle(pick.begin(), pick.end(), rng);
    pick.resize(static_cast<std::size_t>(std::uniform_int_distribution<int>(0, gpus)(rng)));
    const bool as_uuid = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    std::string env;
    for (std::size_t i = 0; i < pick.size(); ++i) {
      env += (i == 0 ? "" : ",") + spell(machine, pick[i], as_uuid, rng);
    }
    const auto visible = apply_cuda_visible_devices(env.c_str(), machine);
    ASSERT_EQ(visible.size(), pick.size()) << env;
    for (std::size_t i = 0; i < pick.size(); ++i) {
      EXPECT_EQ(visible[i].physical_index, static_cast<int>(pick[i])) << env;
      EXPECT_EQ(visible[i].uuid, machine[pick[i]].uuid) << env;
    }
    if (pick.empty()) {
      continue;
    }
    // Naming a picked device again empties the list.
    const std::size_t again = pick[std::uniform_int_distribution<std::size_t>(0, pick.size() - 1)(rng)];
    const std::string repeated = env + "," + spell(machine, again, as_uuid, rng);
    EXPECT_TRUE(apply_cuda_visible_devices(repeated.c_str(), machine).empty()) << repeated;
    // A name of the other kind, or an invalid one, ends the list and cuts nothing before it.
    for (const std::string& end : {spell(machine, again, !as_uuid, rng), std::string(as_uuid ? "GPU-x" : "-1"),
                                   std::string(), std::to_string(gpus)}) {
      const std::string cut = env + "," + end + "," + spell(machine, again, as_uuid, rng);
      EXPECT_EQ(apply_cuda_visible_devices(cut.c_str(), machine).size(), pick.size()) << cut;
    }
  }
}

}  // namespace
