#include "bench/runner/trace.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "bench/runner/csv_table.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The index of the first column named one of `names`, or columns.size().
size_t find_column(const Table& t, const std::vector<std::string>& names) {
  for (const auto& name : names)
    for (size_t i = 0; i < t.columns.size(); ++i)
      if (lower(t.columns[i]) == lower(name)) return i;
  return t.columns.size();
}

}  // namespace

const std::vector<std::string>& trace_prompt_columns() {
  static const std::vector<std::string> names = {"ContextTokens", "prompt_tokens", "input_tokens"};
  return names;
}

const std::vector<std::string>& trace_output_columns() {
  static const std::vector<std::string> names = {"GeneratedTokens", "output_tokens"};
  return names;
}

const std::vector<std::string>& trace_arrival_columns() {
  static const std::vector<std::string> names = {"TIMESTAMP", "arrival_ms", "arrival_s", "arrival_time"};
  return names;
}

Trace read_trace(const std::string& path) {
  const Table t = read_csv(path);
  const auto required = [&](const std::vector<std::string>& names, const char* what) {
    const size_t i = find_column(t, names);
    if (i == t.columns.size())
      throw Error(path + ":1: the trace has no " + what + " column (one of: " + join(names) + ")");
    return i;
  };
  const size_t prompt = required(trace_prompt_columns(), "prompt length");
  const size_t output = required(trace_output_columns(), "output length");
  const size_t arrival = find_column(t, trace_arrival_columns());
  Trace trace;
  if (arrival < t.columns.size()) trace.arrival_column = t.columns[arrival];
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    TraceRow out;
    out.line = r + 2;
    const auto count = [&](size_t column) {
      const std::string& cell = row[column];
      size_t v = 0;
      const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      if (ec != std::errc{} || end != cell.data() + cell.size() || v == 0)
        throw Error(path + ":" + std::to_string(out.line) + ": column '" + t.columns[column] + "' = '" + cell +
                    "' is not a token count >= 1");
      return v;
    };
    out.prompt_tokens = count(prompt);
    out.output_tokens = count(output);
    if (arrival < t.columns.size()) out.arrival = row[arrival];
    trace.rows.push_back(std::move(out));
  }
  if (trace.rows.empty()) throw Error(path + ":2: the trace has no rows");
  return trace;
}

}  // namespace pdbench::runner
