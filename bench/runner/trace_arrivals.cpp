// A trace's arrival column as times in ms (trace.h).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench/runner/trace.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

bool parse_number(const std::string& cell, double& out) {
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), out);
  return ec == std::errc{} && end == cell.data() + cell.size() && std::isfinite(out);
}

// "2023-11-16 18:15:46.6805900" in ms since the epoch (UTC, no zone).
bool parse_date_time(const std::string& cell, double& out) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, used = 0;
  double sec = 0;
  if (std::sscanf(cell.c_str(), "%4d-%2d-%2d %2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
      static_cast<size_t>(used) != cell.size())
    return false;
  const std::chrono::year_month_day date{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(mo)),
                                         std::chrono::day(static_cast<unsigned>(d))};
  if (!date.ok() || h > 23 || mi > 59 || sec < 0 || sec >= 61) return false;
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  out = ((static_cast<double>(days) * 24 + h) * 60 + mi) * 60000.0 + sec * 1000;
  return true;
}

}  // namespace

std::vector<double> trace_arrival_ms(const Trace& trace, const std::string& path) {
  if (trace.arrival_column.empty()) throw Error(path + ":1: the trace has no arrival time column");
  std::string column = trace.arrival_column;
  std::transform(column.begin(), column.end(), column.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const double scale = column == "arrival_s" ? 1000.0 : 1.0;
  const bool dates = column == "timestamp" || column == "arrival_time";
  std::vector<double> ms;
  for (const TraceRow& row : trace.rows) {
    double v = 0;
    if (!parse_number(row.arrival, v) && !(dates && parse_date_time(row.arrival, v)))
      throw Error(path + ":" + std::to_string(row.line) + ": column '" + trace.arrival_column + "' = '" + row.arrival +
                  "' is not " + (dates ? "a number of ms or a date-time YYYY-MM-DD HH:MM:SS" : "a number"));
    ms.push_back(v * scale);
  }
  const double first = *std::min_element(ms.begin(), ms.end());
  for (double& t : ms) t -= first;
  return ms;
}

}  // namespace pdbench::runner
