#pragma once
// Reads the load axes of a [sweep] table and the [load] and [sla] tables
// (scenarios/README.md, "Load") with the scenario reader's helpers, which
// name FILE:LINE and the key in every error. Included by scenario.cpp only.
#include <cmath>
#include <string>
#include <toml++/toml.h>

#include "bench/runner/csv_table.h"
#include "bench/runner/load.h"
#include "bench/runner/scenario.h"
#include "bench/runner/scenario_limits.h"

namespace pdbench::runner {

// A number, or "inf" where `infinite` allows it.
template <class Reader>
double load_number(const Reader& r, const toml::node& node, const std::string& key, bool infinite = false) {
  if (infinite && node.is_string() && node.as_string()->get() == "inf") return kInfiniteRate;
  if (node.is_string()) r.fail(node, key, infinite ? "must be a number or \"inf\"" : "must be a number");
  const double v = r.number(node, key);
  if (!std::isfinite(v)) r.fail(node, key, infinite ? "must be finite, or the string \"inf\"" : "must be finite");
  return v;
}

template <class Reader>
void number_axis(const Reader& r, const toml::node& node, const std::string& key, Axis<double>& out, double min,
                 bool min_allowed, double max, bool infinite = false) {
  r.axis(node, key, out, [&](const toml::node& item) {
    const double v = load_number(r, item, key, infinite);
    if (v < min || (!min_allowed && v == min))
      r.fail(item, key, std::string(min_allowed ? "must be >= " : "must be > ") + csv_number(min) + ", got " + csv_number(v));
    if (v > max && v != kInfiniteRate) r.fail(item, key, "must be <= " + csv_number(max) + ", got " + csv_number(v));
    return v;
  });
}

template <class Reader>
void read_load_axes(const Reader& r, const toml::table& t, LoadAxes& out) {
  constexpr double kHuge = 1e12;
  if (const auto* n = t.get("request_rate")) number_axis(r, *n, "request_rate", out.request_rate, 0, false, kHuge, true);
  if (const auto* n = t.get("arrival")) r.choice_axis(*n, "arrival", out.arrival, {"poisson", "constant", "gamma"});
  if (const auto* n = t.get("burstiness")) number_axis(r, *n, "burstiness", out.burstiness, 0, false, 1e6);
  if (const auto* n = t.get("max_concurrency"))
    r.count_axis(*n, "max_concurrency", out.max_concurrency, 1, kMaxBatch);
  if (const auto* n = t.get("prefill_chunk")) r.count_axis(*n, "prefill_chunk", out.prefill_chunk, 0, kMaxTokens);
  if (const auto* n = t.get("requests")) r.count_axis(*n, "requests", out.requests, 1, kMaxRequests);
  if (const auto* n = t.get("duration_s")) number_axis(r, *n, "duration_s", out.duration_s, 0, false, 1e6);
  if (const auto* n = t.get("prompt_dist")) r.choice_axis(*n, "prompt_dist", out.prompt_dist, {"fixed", "uniform", "normal"});
  if (const auto* n = t.get("prompt_spread")) number_axis(r, *n, "prompt_spread", out.prompt_spread, 0, true, 1);
  if (const auto* n = t.get("output_dist")) r.choice_axis(*n, "output_dist", out.output_dist, {"fixed", "uniform", "normal"});
  if (const auto* n = t.get("output_spread")) number_axis(r, *n, "output_spread", out.output_spread, 0, true, 1);
}

template <class Reader>
void read_load_table(const Reader& r, const toml::table& t, LoadOptions& out) {
  r.only_keys(t, "load");
  if (const auto* n = t.get("seed")) out.seed = static_cast<uint64_t>(r.integer(*n, "seed", 0));
  if (const auto* n = t.get("timing")) {
    out.timing = r.string(*n, "timing");
    out.timing_line = static_cast<int>(n->source().begin.line);
    if (out.timing != "trace" && out.timing != "rate") r.fail(*n, "timing", "= \"" + out.timing + "\" is not one of: trace, rate");
  }
}

template <class Reader>
void read_sla_table(const Reader& r, const toml::table& t, Sla& out) {
  for (auto&& [key, node] : t)
    for (const char* metric : {"ttft", "tpot"})
      if (key.str() == metric || key.str() == std::string(metric) + "_ms")
        r.fail(node, std::string(key.str()), "needs a percentile: the limit is on the p99 (" + std::string(metric) + "_p99_ms)");
  r.only_keys(t, "sla");
  for (const auto& [key, limit] : {std::pair{"ttft_p99_ms", &out.ttft_p99_ms}, std::pair{"tpot_p99_ms", &out.tpot_p99_ms}})
    if (const auto* n = t.get(key)) {
      *limit = load_number(r, *n, key);
      if (!(*limit > 0)) r.fail(*n, key, "must be > 0 (milliseconds)");
    }
}

// [rate_search]: low and high rates (requests/s) and the probes.
template <class Reader>
void read_rate_search_table(const Reader& r, const toml::table& t, RateSearch& out) {
  r.only_keys(t, "rate_search");
  for (const auto& [key, rate] : {std::pair{"low", &out.low_req_s}, std::pair{"high", &out.high_req_s}}) {
    const auto* n = t.get(key);
    if (n == nullptr) r.fail(t, key, "is missing: [rate_search] searches between 'low' and 'high' requests/s");
    *rate = load_number(r, *n, key);
    if (!(*rate > 0)) r.fail(*n, key, "must be > 0 (requests/s)");
  }
  if (!(out.high_req_s > out.low_req_s))
    r.fail(*t.get("high"), "high", "must be above 'low' (" + csv_number(out.low_req_s) + ")");
  if (const auto* n = t.get("probes")) out.probes = static_cast<size_t>(r.integer(*n, "probes", 2, 32));
}

// The checks between load settings, after the whole file is read: a rate
// or a concurrency needs requests or a duration, a duration a finite rate,
// a load case batch 1; [load] timing needs a trace, "trace" its arrival
// column. Errors name FILE:LINE.
void check_load(const Scenario& s);

}  // namespace pdbench::runner
