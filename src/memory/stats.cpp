// Human-readable statistics and byte counts.
#include <array>
#include <cstdio>
#include <ndcuda/memory/stats.hpp>

namespace ndcuda {

std::string format_bytes(std::size_t bytes) {
  static constexpr std::array<const char*, 7> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  std::size_t whole = bytes;
  while (whole >= 1024 && unit + 1 < units.size()) {
    whole /= 1024;
    ++unit;
  }
  if (unit == 0) {
    return std::to_string(bytes) + " B";
  }
  const std::size_t scale = std::size_t{1} << (10 * unit);
  if (bytes % scale == 0) {
    return std::to_string(bytes / scale) + " " + units[unit];
  }
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.2f", static_cast<double>(bytes) / static_cast<double>(scale));
  std::string number = text.data();
  while (number.back() == '0') {
    number.pop_back();
  }
  if (number.back() == '.') {
    number.pop_back();
  }
  return number + " " + units[unit];
}

std::string to_string(const memory_stats& stats) {
  std::string text = "used " + format_bytes(stats.used_bytes) + " in " + std::to_string(stats.live_allocations) +
                     (stats.live_allocations == 1 ? " allocation" : " allocations") + " (peak " +
                     format_bytes(stats.peak_used_bytes) + "), cached " + format_bytes(stats.cached_bytes) +
                     ", reserved " + format_bytes(stats.reserved_bytes) + ", limit " +
                     (stats.limit ? format_bytes(*stats.limit) : std::string("none"));
  return text;
}

std::ostream& operator<<(std::ostream& os, const memory_stats& stats) {
  return os << to_string(stats);
}

}  // namespace ndcuda
