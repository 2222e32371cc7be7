// CUDA_VISIBLE_DEVICES, parsed as the driver parses it (rules at the declaration).
#include <algorithm>
#include <cstddef>
#include <ndcuda/device/visible_devices.hpp>
#include <optional>
#include <string_view>
#include <utility>

namespace ndcuda {
namespace {

// A device as the list names it: a whole GPU (mig == -1) or one MIG device of a GPU.
struct named_device {
  int gpu = -1;
  int mig = -1;
  bool operator==(const named_device&) const = default;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_value(char c) {
  if (is_digit(c)) {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

constexpr std::size_t uuid_digits = 32;

bool is_uuid_token(std::string_view token) {
  return token.starts_with("GPU-") || token.starts_with("MIG-");
}

// The hex digits of a UUID token after its "GPU-"/"MIG-", lower-cased, dashes dropped wherever they
// are. Reading ends after 32 digits (whatever follows is ignored); any other character before that
// makes the token invalid (nullopt), as does having no digit at all.
std::optional<std::string> uuid_digits_of(std::string_view token) {
  std::string digits;
  for (char c : token.substr(4)) {
    if (digits.size() == uuid_digits) {
      break;
    }
    if (c == '-') {
      continue;
    }
    const int v = hex_value(c);
    if (v < 0) {
      return std::nullopt;
    }
    digits += "0123456789abcdef"[v];
  }
  if (digits.empty()) {
    return std::nullopt;
  }
  return digits;
}

// strtoul's reading of a token: leading white space, an optional sign, then at least one digit;
// whatever follows the digits is ignored. nullopt when there is no number, or a negative one
// (strtoul turns "-N" into a huge value, out of range like any ordinal past the last GPU; "-0"
// stays 0). The value is capped at `limit`: anything at or above it stops the list anyway.
std::optional<std::size_t> parse_ordinal(std::string_view token, std::size_t limit) {
  while (!token.empty() && is_space(token.front())) {
    token.remove_prefix(1);
  }
  bool negative = false;
  if (!token.empty() && (token.front() == '+' || token.front() == '-')) {
    negative = token.front() == '-';
    token.remove_prefix(1);
  }
  if (token.empty() || !is_digit(token.front())) {
    return std::nullopt;
  }
  std::size_t value = 0;
  for (char c : token) {
    if (!is_digit(c)) {
      break;
    }
    value = std::min(value * 10 + static_cast<std::size_t>(c - '0'), limit);
  }
  if (negative && value != 0) {
    return std::nullopt;
  }
  return value;
}

// Every UUID on the machine, GPUs and MIG devices alike (the driver matches "GPU-" and "MIG-"
// tokens against both), reduced to its 32 lower-case hex digits.
struct known_uuid {
  named_device device;
  std::string digits;
};

std::vector<known_uuid> known_uuids(std::span<const physical_device> physical) {
  std::vector<known_uuid> known;
  for (std::size_t g = 0; g < physical.size(); ++g) {
    if (auto digits = uuid_digits_of(physical[g].uuid)) {
      known.push_back({{static_cast<int>(g), -1}, std::move(*digits)});
    }
    const auto& migs = physical[g].mig_uuids;
    for (std::size_t m = 0; m < migs.size(); ++m) {
      if (auto digits = uuid_digits_of(migs[m])) {
        known.push_back({{static_cast<int>(g), static_cast<int>(m)}, std::move(*digits)});
      }
    }
  }
  return known;
}

// The one device whose UUID starts with the token's digits; nullopt for none, several, or a
// malformed token.
std::optional<named_device> match_uuid(std::string_view token, const std::vector<known_uuid>& known) {
  if (!is_uuid_token(token)) {
    return std::nullopt;
  }
  const auto digits = uuid_digits_of(token);
  if (!digits) {
    return std::nullopt;
  }
  std::optional<named_device> found;
  for (const known_uuid& k : known) {
    if (k.digits.starts_with(*digits)) {
      if (found) {
        return std::nullopt;
      }
      found = k.device;
    }
  }
  return found;
}

std::optional<named_device> match_ordinal(std::string_view token, std::size_t gpus) {
  const auto ordinal = parse_ordinal(token, gpus);
  if (!ordinal || *ordinal >= gpus) {
    return std::nullopt;
  }
  return named_device{static_cast<int>(*ordinal), -1};
}

}  // namespace

std::vector<visible_device> apply_cuda_visible_devices(const char* env, std::span<const physical_device> physical) {
  std::vector<named_device> named;
  if (env == nullptr) {
    for (std::size_t g = 0; g < physical.size(); ++g) {
      named.push_back({static_cast<int>(g), -1});
    }
  } else {
    std::string_view rest(env);
    // The first token decides whether this is a list of UUIDs or of ordinals; a token of the
    // other kind then reads as invalid and ends the list.
    const bool uuids = is_uuid_token(rest.substr(0, rest.find(',')));
    const auto known = uuids ? known_uuids(physical) : std::vector<known_uuid>();
    while (true) {
      const auto comma = rest.find(',');
      const auto token = rest.substr(0, comma);
      const auto device = uuids ? match_uuid(token, known) : match_ordinal(token, physical.size());
      if (!device) {
        break;
      }
      if (std::find(named.begin(), named.end(), *device) != named.end()) {
        return {};
      }
      named.push_back(*device);
      if (comma == std::string_view::npos) {
        break;
      }
      rest.remove_prefix(comma + 1);
    }
  }

  std::vector<visible_device> visible;
  bool have_mig = false;
  for (const named_device& n : named) {
    const physical_device& gpu = physical[static_cast<std::size_t>(n.gpu)];
    const bool mig_mode = gpu.mig_enabled || !gpu.mig_uuids.empty();
    int mig = n.mig;
    if (mig < 0 && mig_mode) {
      if (gpu.mig_uuids.empty()) {
        continue;  // MIG mode with no MIG device: nothing CUDA can run on.
      }
      mig = 0;
    }
    if (mig >= 0) {
      if (have_mig) {
        continue;
      }
      have_mig = true;
      visible.push_back({n.gpu, mig, gpu.mig_uuids[static_cast<std::size_t>(mig)]});
    } else {
      visible.push_back({n.gpu, -1, gpu.uuid});
    }
  }
  return visible;
}

}  // namespace ndcuda
