#include "bench/runner/sweep.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "bench/runner/scenario_limits.h"
#include "bench/runner/trace.h"
#include "engine/util/error.h"

namespace pdbench::runner {

std::string case_id(const Case& c) {
  std::string id = (c.trace_row > 0 ? "r" + std::to_string(c.trace_row) + "_" : "") + "p" + std::to_string(c.prompt_tokens) + "_n" + std::to_string(c.output_tokens) + "_d" +
                   std::to_string(c.context_depth) + "_t" + std::to_string(c.threads);
  if (c.batch != 1) id += "_b" + std::to_string(c.batch);
  if (c.kv_type_k != "f32") id += "_k" + c.kv_type_k;
  if (c.kv_type_v != "f32") id += "_v" + c.kv_type_v;
  if (c.kv_block != 0) id += "_blk" + std::to_string(c.kv_block);
  if (c.kv_capacity != 0) id += "_cap" + std::to_string(c.kv_capacity);
  if (c.kv_cache != "on") id += "_nocache";
  if (c.weight_type != "file") id += "_w" + c.weight_type;
  if (c.shared_prefix_tokens != 0) id += "_pre" + std::to_string(c.shared_prefix_tokens);
  if (c.prefix_sharing != "off") id += "_share";
  return id + load_id(c.load) + "_" + c.sampling;
}

size_t case_tokens(const Case& c) {
  return c.context_depth + max_length(c.load.prompt_dist, c.load.prompt_spread, c.prompt_tokens) +
         max_length(c.load.output_dist, c.load.output_spread, c.output_tokens);
}

namespace {

// The (prompt, output) pairs a table's cases run: the trace's rows, one pair
// of the longest row's lengths for a timed trace (its rows are one case's
// requests), or every pair of the two axes.
std::vector<TraceRow> length_pairs(const Scenario& s, const SweepAxes& a) {
  std::vector<TraceRow> lengths;
  if (!s.load_options.timing.empty()) {
    TraceRow longest;
    for (const TraceRow& row : s.trace_rows.rows) {
      longest.prompt_tokens = std::max(longest.prompt_tokens, row.prompt_tokens);
      longest.output_tokens = std::max(longest.output_tokens, row.output_tokens);
    }
    lengths.push_back(longest);
  } else if (!s.trace_rows.rows.empty()) {
    lengths = s.trace_rows.rows;
  } else {
    for (size_t p : a.prompt_tokens.values)
      for (size_t n : a.output_tokens.values) lengths.push_back({0, p, n, ""});
  }
  return lengths;
}

// The table's load settings; with a timed trace each sends the trace's rows.
std::vector<LoadSetting> table_load(const Scenario& s, const SweepAxes& a) {
  std::vector<LoadSetting> settings = load_settings(a.load);
  if (!s.load_options.timing.empty())
    for (LoadSetting& l : settings) {
      l.trace_timing = s.load_options.timing;
      l.requests = s.trace_rows.rows.size();
    }
  return settings;
}

}  // namespace

std::vector<Case> expand(const Scenario& s) {
  check_scenario_size(s);
  std::vector<Case> cases;
  std::set<std::string> ids;
  // Each trace line's arrival (ms from the earliest row), when it has times.
  std::map<size_t, double> arrival_of_line;
  if (!s.trace_rows.arrival_column.empty()) {
    const std::vector<double> ms = trace_arrival_ms(s.trace_rows, s.trace);
    for (size_t i = 0; i < ms.size(); ++i) arrival_of_line[s.trace_rows.rows[i].line] = ms[i];
  }
  const auto arrival = [&](size_t line) -> std::optional<double> {
    const auto it = arrival_of_line.find(line);
    return it == arrival_of_line.end() ? std::nullopt : std::optional(it->second);
  };
  for (const SweepAxes* a : s.sweeps()) {
    const std::vector<LoadSetting> loads = table_load(s, *a);
    for (const TraceRow& len : length_pairs(s, *a))
      for (size_t d : a->context_depth.values)
        for (size_t t : a->threads.values)
          for (size_t b : a->batch.values)
            for (const auto& kk : a->kv_type_k.values)
              for (const auto& kv : a->kv_type_v.values)
                for (size_t blk : a->kv_block.values)
                  for (size_t cap : a->kv_capacity.values)
                    for (const auto& cache : a->kv_cache.values)
                      for (const auto& w : a->weight_type.values)
                        for (const auto& smp : a->sampling.values)
                          for (size_t shared : a->shared_prefix_tokens.values)
                            for (const auto& share : a->prefix_sharing.values)
                              for (const LoadSetting& load : loads) {
                                Case c{cases.size(), "", len.prompt_tokens, len.output_tokens, d, t, b, kk, kv, blk,
                                       cap, cache, w, smp, shared, share, len.line, arrival(len.line), load};
                                c.id = case_id(c);
                                if (ids.insert(c.id).second) cases.push_back(std::move(c));
                              }
  }
  return cases;
}

Shard parse_shard(const std::string& text) {
  Shard s;
  const auto slash = text.find('/');
  const char* end = text.data() + text.size();
  bool ok = slash != std::string::npos;
  if (ok) {
    const auto a = std::from_chars(text.data(), text.data() + slash, s.k);
    const auto b = std::from_chars(text.data() + slash + 1, end, s.n);
    ok = a.ec == std::errc{} && a.ptr == text.data() + slash && b.ec == std::errc{} && b.ptr == end;
  }
  if (!ok || s.n == 0 || s.k == 0 || s.k > s.n)
    throw Error("--shard: expected k/n with 1 <= k <= n (e.g. 1/2), got '" + text + "'");
  return s;
}

std::vector<Case> select_shard(const std::vector<Case>& cases, Shard shard) {
  std::vector<Case> out;
  for (const Case& c : cases)
    if (c.index % shard.n == shard.k - 1) out.push_back(c);
  return out;
}

}  // namespace pdbench::runner
