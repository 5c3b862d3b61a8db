#include "bench/runner/load.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pdbench::runner {

namespace {

// A number as short as it can be written: 0.5, 2, inf.
std::string short_number(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Time from one arrival to the next, in seconds.
double gap_s(const LoadSetting& s, std::mt19937_64& rng) {
  if (s.arrival == "constant") return 1.0 / s.request_rate;
  // Poisson arrivals are gamma ones of shape 1 (exponential gaps); the
  // scale keeps the mean gap 1 / rate whatever the shape, as vLLM's.
  const double shape = s.arrival == "gamma" ? s.burstiness : 1.0;
  std::gamma_distribution<double> gap(shape, 1.0 / (s.request_rate * shape));
  return gap(rng);
}

}  // namespace

bool Sla::met_by(double ttft_ms, double tpot_ms) const {
  return (ttft_p99_ms <= 0 || ttft_ms <= ttft_p99_ms) && (tpot_p99_ms <= 0 || tpot_ms <= tpot_p99_ms);
}

const std::vector<std::string>& load_axis_keys() {
  static const std::vector<std::string> keys = {"request_rate", "arrival",       "burstiness", "max_concurrency",
                                                "prefill_chunk", "requests",     "duration_s", "prompt_dist",
                                                "prompt_spread", "output_dist",  "output_spread"};
  return keys;
}

std::vector<LoadSetting> load_settings(const LoadAxes& a) {
  std::vector<LoadSetting> out;
  for (double rate : a.request_rate.values)
    for (const auto& arrival : a.arrival.values)
      for (double burst : a.burstiness.values)
        for (size_t slots : a.max_concurrency.values)
          for (size_t chunk : a.prefill_chunk.values)
            for (size_t n : a.requests.values)
              for (double duration : a.duration_s.values)
                for (const auto& pd : a.prompt_dist.values)
                  for (double ps : a.prompt_spread.values)
                    for (const auto& od : a.output_dist.values)
                      for (double os : a.output_spread.values)
                        out.push_back({rate, arrival, burst, slots, chunk, n, duration, pd, ps, od, os, ""});
  return out;
}

std::string load_id(const LoadSetting& s) {
  if (!s.active()) return "";
  std::string id = s.trace_timing == "trace" ? "_trace"
                   : s.trace_timing == "rate" ? "_tracerate"
                   : s.requests > 0           ? "_q" + std::to_string(s.requests)
                                              : "_dur" + short_number(s.duration_s);
  if (s.trace_timing != "trace") id += "_r" + short_number(s.request_rate);
  if (s.arrival != "poisson") id += "_" + s.arrival;
  if (s.arrival == "gamma") id += short_number(s.burstiness);
  id += "_c" + std::to_string(s.max_concurrency);
  if (s.prefill_chunk > 0) id += "_pc" + std::to_string(s.prefill_chunk);
  if (s.prompt_dist != "fixed") id += "_p" + s.prompt_dist + short_number(s.prompt_spread);
  if (s.output_dist != "fixed") id += "_o" + s.output_dist + short_number(s.output_spread);
  return id;
}

double expected_requests(const LoadSetting& s) {
  if (s.requests > 0) return static_cast<double>(s.requests);
  return std::max(1.0, s.request_rate * s.duration_s);
}

std::vector<double> arrival_times(const LoadSetting& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> t{0.0};
  const double end_ms = s.duration_s * 1000;
  while (s.requests > 0 ? t.size() < s.requests : true) {
    const double next = std::isinf(s.request_rate) ? 0.0 : t.back() + 1000 * gap_s(s, rng);
    if (s.requests == 0 && next >= end_ms) break;
    t.push_back(next);
  }
  return t;
}

size_t draw_length(const std::string& dist, double spread, size_t mean, std::mt19937_64& rng) {
  const auto m = static_cast<double>(mean);
  if (dist == "uniform") {
    std::uniform_int_distribution<size_t> pick(std::max<size_t>(1, static_cast<size_t>(std::lround(m * (1 - spread)))),
                                               max_length(dist, spread, mean));
    return pick(rng);
  }
  if (dist == "normal" && spread > 0) {
    std::normal_distribution<double> pick(m, spread * m);
    // Clipped to [1, 2 mean - 1], symmetric about the mean.
    return static_cast<size_t>(std::clamp(std::round(pick(rng)), 1.0, static_cast<double>(max_length(dist, spread, mean))));
  }
  return mean;
}

size_t max_length(const std::string& dist, double spread, size_t mean) {
  if (dist == "uniform") return std::max<size_t>(1, static_cast<size_t>(std::lround(static_cast<double>(mean) * (1 + spread))));
  if (dist == "normal" && spread > 0) return std::max<size_t>(1, 2 * mean - 1);
  return mean;
}

}  // namespace pdbench::runner
