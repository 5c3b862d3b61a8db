#include "bench/report/accuracy_table.h"

#include <cmath>
#include <cstdio>

namespace pdbench::report {

namespace {

std::string fixed(double v, const char* format) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The highest `column` over the batch-1 cases of one configuration.
double fastest(const RunData& run, const std::vector<std::string>& acc_row, const std::string& column) {
  const runner::Table& s = run.summary;
  const runner::Table& a = *run.accuracy;
  double best = NAN;
  for (const auto& row : s.rows) {
    bool same = cell(s, row, "batch") == "1";
    for (const char* key : {"weight_type", "kv_type_k", "kv_type_v"})
      same = same && cell(s, row, key) == cell(a, acc_row, key);
    const double v = number(s, row, column);
    if (same && !std::isnan(v) && !(v <= best)) best = v;
  }
  return best;
}

}  // namespace

TextTable accuracy_table(const RunData& run) {
  TextTable t{{"weight type", "KV K/V", "path", "PPL", "KLD mean", "KLD p99", "same top", "tok/s"}, {}};
  if (!run.accuracy) return t;
  const runner::Table& a = *run.accuracy;
  for (const auto& row : a.rows) {
    const std::string& path = cell(a, row, "path");
    const double speed = fastest(run, row, path == "prefill" ? "prefill_median_tok_s" : "decode_median_tok_s");
    t.rows.push_back({cell(a, row, "weight_type"), cell(a, row, "kv_type_k") + "/" + cell(a, row, "kv_type_v"), path,
                      fixed(number(a, row, "ppl"), "%.4f"), fixed(number(a, row, "kld_mean"), "%.6f"),
                      fixed(number(a, row, "kld_p99"), "%.6f"), fixed(number(a, row, "same_top_pct"), "%.2f%%"),
                      fixed(speed, "%.1f")});
  }
  return t;
}

}  // namespace pdbench::report
