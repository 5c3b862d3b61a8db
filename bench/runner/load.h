#pragma once
// Serving-style load (scenarios/README.md, "Load"): a case that sends many
// requests, each with its own arrival time and lengths, through continuous
// batching, and measures every request. Its axes sit in [sweep] beside the
// others; [load] seeds it and says how a trace is timed, [sla] sets the
// latency limits goodput counts against.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bench/runner/axis.h"

namespace pdbench::runner {

inline constexpr double kInfiniteRate = std::numeric_limits<double>::infinity();

// One combination of the load axes.
struct LoadSetting {
  double request_rate = kInfiniteRate;  // requests/s; inf: every request at time 0
  std::string arrival = "poisson";      // poisson, constant, gamma
  double burstiness = 1;                // gamma's shape: < 1 burstier than poisson, > 1 steadier
  size_t max_concurrency = 8;           // batch slots
  size_t prefill_chunk = 0;             // most prompt tokens a step prefills (BatchScheduler); 0: whole prompts
  size_t requests = 0;                  // 0: as many as arrive in duration_s
  double duration_s = 0;
  std::string prompt_dist = "fixed";  // fixed, uniform, normal: lengths around prompt_tokens
  double prompt_spread = 0;           // uniform: +- this fraction; normal: stddev as a fraction
  std::string output_dist = "fixed";
  double output_spread = 0;
  // With a trace and [load] timing: "trace" or "rate", the trace's rows are
  // the requests (their lengths; their arrival times with "trace").
  std::string trace_timing;

  bool active() const { return requests > 0 || duration_s > 0 || !trace_timing.empty(); }
};

// The load axes of one [sweep] table; a case is a load case when it has
// requests or duration_s.
struct LoadAxes {
  Axis<double> request_rate{{kInfiniteRate}};
  Axis<std::string> arrival{{"poisson"}};
  Axis<double> burstiness{{1.0}};
  Axis<size_t> max_concurrency{{8}};
  Axis<size_t> prefill_chunk{{0}};
  Axis<size_t> requests{{0}};
  Axis<double> duration_s{{0.0}};
  Axis<std::string> prompt_dist{{"fixed"}};
  Axis<double> prompt_spread{{0.0}};
  Axis<std::string> output_dist{{"fixed"}};
  Axis<double> output_spread{{0.0}};
};

// Every combination, the last axis varying fastest.
std::vector<LoadSetting> load_settings(const LoadAxes& axes);

// [load]
struct LoadOptions {
  uint64_t seed = 1;   // of the arrival times and lengths; every run of a case sends the same requests
  std::string timing;  // with a trace: "" (each row a case, back to back), "trace" or "rate"
  int timing_line = 0;
};

// [sla]: 0 is no limit.
struct Sla {
  double ttft_p99_ms = 0;
  double tpot_p99_ms = 0;
  bool any() const { return ttft_p99_ms > 0 || tpot_p99_ms > 0; }
  // One request meets it: its TTFT and TPOT within the limits (vLLM's
  // goodput); a request of one token has no TPOT.
  bool met_by(double ttft_ms, double tpot_ms) const;
};

// The keys of the load axes in [sweep].
const std::vector<std::string>& load_axis_keys();

// "_q64_r2_c4" and more for each setting off its default; "" for a case
// that is not a load case.
std::string load_id(const LoadSetting& s);

// Requests one run of the setting sends, estimated for duration_s (rate x
// duration): for the scenario's size limits.
double expected_requests(const LoadSetting& s);

// Arrival times in ms from the run's start, in order.
std::vector<double> arrival_times(const LoadSetting& s, uint64_t seed);

// A length drawn around `mean` by the distribution, at least 1; the
// largest it can draw is max_length.
size_t draw_length(const std::string& dist, double spread, size_t mean, std::mt19937_64& rng);
size_t max_length(const std::string& dist, double spread, size_t mean);

}  // namespace pdbench::runner
