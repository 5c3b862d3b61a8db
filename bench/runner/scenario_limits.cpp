#include "bench/runner/scenario_limits.h"

#include <algorithm>
#include <cstdio>

#include "bench/runner/scenario.h"
#include "engine/util/error.h"

namespace pdbench::runner {

void check_scenario_limits(std::string_view text, const std::string& path) {
  if (text.size() > kMaxScenarioBytes)
    throw Error(path + ": scenario file is larger than the limit of " + std::to_string(kMaxScenarioBytes) +
                " bytes");
  size_t line = 1;
  for (size_t begin = 0; begin < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    if (end - begin > kMaxScenarioLineBytes)
      throw Error(path + ":" + std::to_string(line) + ": line of " + std::to_string(end - begin) +
                  " bytes is longer than the limit of " + std::to_string(kMaxScenarioLineBytes) +
                  " (it bounds how deep a dotted key or [table.header] can nest)");
    begin = end + 1;
  }
}

namespace {

template <class T>
double count(const Axis<T>& axis) {
  return static_cast<double>(axis.values.size());
}

double sum(const Axis<size_t>& axis) {
  double total = 0;
  for (size_t v : axis.values) total += static_cast<double>(v);
  return total;
}

// What one table asks for: its product's size, and tokens per run summed
// over that product.
struct TableSize {
  double cases = 0;
  double tokens_per_run = 0;
  std::string product;  // "1000 x 1000 x 1000", the axes with more than one value
};

TableSize table_size(const Scenario& s, const SweepAxes& a) {
  // (prompt, output) pairs: the trace's rows, or the product of both axes.
  double pairs = count(a.prompt_tokens) * count(a.output_tokens);
  double pair_tokens = sum(a.prompt_tokens) * count(a.output_tokens) + sum(a.output_tokens) * count(a.prompt_tokens);
  if (!s.trace_rows.rows.empty()) {
    pairs = static_cast<double>(s.trace_rows.rows.size());
    pair_tokens = 0;
    for (const auto& row : s.trace_rows.rows) pair_tokens += static_cast<double>(row.prompt_tokens + row.output_tokens);
  }
  const double others = count(a.threads) * count(a.kv_type_k) * count(a.kv_type_v) * count(a.kv_block) *
                        count(a.kv_capacity) * count(a.kv_cache) * count(a.weight_type) * count(a.sampling) *
                        count(a.shared_prefix_tokens) * count(a.prefix_sharing);
  // A load setting sends its requests in one run, a case without load one.
  const std::vector<LoadSetting> loads = load_settings(a.load);
  double requests = 0;
  for (const LoadSetting& l : loads)
    requests += !s.load_options.timing.empty() ? 1.0 : l.active() ? expected_requests(l) : 1.0;
  if (!s.load_options.timing.empty()) pairs = 1;  // the trace's rows are one case's requests
  TableSize t;
  t.cases = pairs * count(a.context_depth) * count(a.batch) * others * static_cast<double>(loads.size());
  // Sum over the product of (depth + prompt + output) x batch x requests.
  t.tokens_per_run =
      (pair_tokens * count(a.context_depth) + pairs * sum(a.context_depth)) * sum(a.batch) * others * requests;
  const std::vector<double> sizes = {pairs,           count(a.context_depth), count(a.threads),
                                     count(a.batch),  count(a.kv_type_k),     count(a.kv_type_v),
                                     count(a.kv_block), count(a.kv_capacity), count(a.kv_cache),
                                     count(a.weight_type), count(a.sampling), count(a.shared_prefix_tokens),
                                     count(a.prefix_sharing), static_cast<double>(loads.size())};
  for (double n : sizes)
    if (n > 1) t.product += (t.product.empty() ? "" : " x ") + std::to_string(static_cast<long long>(n));
  return t;
}

std::string readable_count(double n) {
  char buf[48];
  std::snprintf(buf, sizeof buf, n < 1e15 ? "%.0f" : "%.3g", n);
  return buf;
}

}  // namespace

void check_scenario_size(const Scenario& s) {
  double cases = 0, tokens = 0;
  std::string products;
  for (const SweepAxes* a : s.sweeps()) {
    const TableSize t = table_size(s, *a);
    cases += t.cases;
    tokens += t.tokens_per_run;
    if (!t.product.empty() && products.size() < 200) products += (products.empty() ? "" : ", ") + t.product;
  }
  const double runs = static_cast<double>(s.repetitions + s.warmup_max + 1);  // + the memory probe
  tokens *= runs;
  const bool one = s.sweeps().size() == 1;
  const std::string tables = one ? "its sweep" : std::to_string(s.sweeps().size()) + " sweep tables";
  if (cases > kMaxCases)
    throw Error(s.path + ": " + tables + (one ? " makes " : " make ") + readable_count(cases) + " cases (" +
                products + "); the limit is " + readable_count(kMaxCases));
  if (tokens > kMaxScenarioTokens)
    throw Error(s.path + ": " + tables + (one ? " asks for " : " ask for ") + readable_count(tokens) +
                " tokens in all (context depth + prompt + output, times batch or a load case's requests, over " +
                readable_count(runs) +
                " runs per case); the limit is " + readable_count(kMaxScenarioTokens));
}

}  // namespace pdbench::runner
