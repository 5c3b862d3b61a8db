#include "engine/util/available_memory.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>

#include "engine/util/error.h"

namespace pdbench {

namespace {

struct Available {
  size_t bytes;
  const char* source;  // for messages
};

std::optional<Available> from_variable() {
  const char* text = std::getenv(kMemAvailableVariable);
  if (text == nullptr) return std::nullopt;
  const std::string_view s(text);
  size_t mib = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), mib);
  if (ec != std::errc() || end != s.data() + s.size() || mib > (SIZE_MAX >> 20))
    throw Error(std::string(kMemAvailableVariable) + " = '" + text + "': expected a whole number of MiB");
  return Available{mib << 20, kMemAvailableVariable};
}

std::optional<Available> from_meminfo() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    size_t kib = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %zu kB", &kib) == 1)
      return Available{kib * 1024, "MemAvailable in /proc/meminfo"};
  }
  return std::nullopt;
}

std::optional<Available> available_memory() {
  std::optional<Available> available = from_variable();
  return available ? available : from_meminfo();
}

}  // namespace

bool memory_fits(size_t bytes) {
  const std::optional<Available> available = available_memory();
  return !available || bytes <= available->bytes;  // unknown: nothing to check against
}

void require_memory(size_t bytes, const std::string& what) {
  const std::optional<Available> available = available_memory();
  if (!available || bytes <= available->bytes) return;
  throw Error(what + ": " + format_bytes(bytes) + " needed, but only " + format_bytes(available->bytes) +
              " of memory is available (" + available->source + ")");
}

std::string format_bytes(size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  auto value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  for (; value >= 1024.0 && unit + 1 < std::size(units); ++unit) value /= 1024.0;
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace pdbench
