// The checks between a scenario's load settings (load_reader.h).
#include <algorithm>
#include <cmath>

#include "bench/runner/load_reader.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

template <class T>
bool has(const Axis<T>& axis, const T& value) {
  return std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end();
}

[[noreturn]] void fail(const Scenario& s, int line, const std::string& key, const std::string& what) {
  throw Error(where(s, line) + ": key '" + key + "' " + what);
}

// A spread needs a distribution that uses it.
void check_spread(const Scenario& s, const Axis<std::string>& dist, const Axis<double>& spread, const std::string& key) {
  if (std::any_of(spread.values.begin(), spread.values.end(), [](double v) { return v > 0; }) &&
      !has(dist, std::string("uniform")) && !has(dist, std::string("normal")))
    fail(s, spread.line, key + "_spread", "needs " + key + "_dist \"uniform\" or \"normal\"");
}

// What a load case cannot be run with (the batcher's limits).
void check_load_case(const Scenario& s, const SweepAxes& a, const std::string& key, int line) {
  const auto refuse = [&](const std::string& k, const std::string& why) {
    fail(s, line, k, "makes a load case, which " + why);
  };
  if (a.batch.values != std::vector<size_t>{1}) refuse(key, "sets its batch slots with max_concurrency, not batch");
  if (std::any_of(a.context_depth.values.begin(), a.context_depth.values.end(), [](size_t d) { return d > 0; }))
    refuse(key, "starts every request at depth 0 (context_depth)");
  if (has(a.kv_cache, std::string("off"))) refuse(key, "keeps every request's K/V (kv_cache \"off\")");
  if (has(a.prefix_sharing, std::string("on"))) refuse(key, "does not share prefixes between requests (prefix_sharing)");
}

// [rate_search] picks the rates of load cases, against the [sla].
void check_rate_search(const Scenario& s, int rate_line, bool load) {
  const int at = s.rate_search->line;
  if (!s.sla.any()) fail(s, at, "rate_search", "needs an [sla] to search against (ttft_p99_ms, tpot_p99_ms)");
  if (!load) fail(s, at, "rate_search", "needs load cases: set 'requests' or 'duration_s' in [sweep]");
  if (rate_line != 0)
    fail(s, rate_line > 0 ? rate_line : 0, "request_rate", "cannot be set with [rate_search]: the search picks the rates");
  if (s.load_options.timing == "trace")
    fail(s, at, "rate_search", "cannot search a trace sent at its own times ([load] timing = \"trace\")");
}

// Set in the file (its line) or on the command line (values off the default).
template <class T>
int set_at(const Axis<T>& axis, const Axis<T>& unset) {
  return axis.line > 0 ? axis.line : axis.values != unset.values ? -1 : 0;
}

void check_table(const Scenario& s, const SweepAxes& a) {
  const LoadAxes& l = a.load;
  const LoadAxes defaults;
  const auto line = [](int at) { return at > 0 ? at : 0; };
  const int requests = set_at(l.requests, defaults.requests), duration = set_at(l.duration_s, defaults.duration_s);
  const int rate = set_at(l.request_rate, defaults.request_rate);
  const bool trace_timed = !s.load_options.timing.empty();
  if (requests != 0 && duration != 0)
    fail(s, line(duration), "duration_s", "cannot be set with 'requests'" + (requests > 0 ? " (line " + std::to_string(requests) + ")" : std::string()));
  if (trace_timed)
    for (const auto& [key, at] : {std::pair{"requests", requests}, std::pair{"duration_s", duration}})
      if (at != 0) fail(s, line(at), key, "cannot be set with [load] timing: the trace's rows are the requests");
  if (s.load_options.timing == "trace" && rate != 0)
    fail(s, line(rate), "request_rate", "cannot be set with [load] timing = \"trace\" (the trace's times)");
  const bool load = requests != 0 || duration != 0 || trace_timed;
  if (s.rate_search) check_rate_search(s, rate, load);
  const std::vector<std::pair<std::string, int>> set = {
      {"request_rate", rate},
      {"arrival", set_at(l.arrival, defaults.arrival)},
      {"burstiness", set_at(l.burstiness, defaults.burstiness)},
      {"max_concurrency", set_at(l.max_concurrency, defaults.max_concurrency)},
      {"prefill_chunk", set_at(l.prefill_chunk, defaults.prefill_chunk)},
      {"prompt_dist", set_at(l.prompt_dist, defaults.prompt_dist)},
      {"prompt_spread", set_at(l.prompt_spread, defaults.prompt_spread)},
      {"output_dist", set_at(l.output_dist, defaults.output_dist)},
      {"output_spread", set_at(l.output_spread, defaults.output_spread)}};
  for (const auto& [key, at] : set)
    if (at != 0 && !load) fail(s, line(at), key, "needs 'requests' or 'duration_s' (it sets up a load case)");
  if (!load) return;
  check_load_case(s, a, requests != 0 ? "requests" : duration != 0 ? "duration_s" : "timing",
                  line(requests != 0 ? requests : duration != 0 ? duration : s.load_options.timing_line));
  if (duration != 0 && has(l.request_rate, kInfiniteRate))
    fail(s, line(duration), "duration_s", "needs a finite request_rate (\"inf\" sends every request at once)");
  if (set[2].second != 0 && !has(l.arrival, std::string("gamma")))
    fail(s, line(set[2].second), "burstiness", "needs arrival = \"gamma\"");
  check_spread(s, l.prompt_dist, l.prompt_spread, "prompt");
  check_spread(s, l.output_dist, l.output_spread, "output");
  const int dist = set[5].second != 0 ? set[5].second : set[7].second;
  if (trace_timed && dist != 0)
    fail(s, line(dist), set[5].second != 0 ? "prompt_dist" : "output_dist",
         "cannot be set with [load] timing: the trace's rows give the lengths");
}

}  // namespace

void check_load(const Scenario& s) {
  const LoadOptions& o = s.load_options;
  if (!o.timing.empty() && s.trace.empty()) fail(s, o.timing_line, "timing", "needs a trace (top-level 'trace')");
  if (o.timing == "trace" && s.trace_rows.arrival_column.empty())
    fail(s, o.timing_line, "timing", "= \"trace\" needs an arrival column in " + s.trace + " (one of: arrival_ms, arrival_s, TIMESTAMP, arrival_time)");
  if (o.timing == "trace") trace_arrival_ms(s.trace_rows, s.trace);  // every cell a time, before anything runs
  for (const SweepAxes* a : s.sweeps()) check_table(s, *a);
}

}  // namespace pdbench::runner
