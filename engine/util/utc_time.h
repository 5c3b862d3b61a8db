#pragma once
// The current UTC time as text, for results metadata and report footers.
#include <ctime>
#include <string>

namespace pdbench {

// strftime format; the default is ISO 8601 ("2026-11-29T18:30:00Z").
inline std::string utc_now(const char* format = "%Y-%m-%dT%H:%M:%SZ") {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace pdbench
