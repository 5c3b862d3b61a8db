#pragma once
// pdbench run's flags for load cases (scenarios/README.md, "Load"): each
// load axis as a list, like -p or -b, the [load] seed and the [sla] limits.
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner/scenario.h"

namespace pdbench::cli {

struct LoadFlags {
  std::vector<double> request_rate, burstiness, duration_s, prompt_spread, output_spread;
  std::vector<size_t> max_concurrency, prefill_chunk, requests;
  std::vector<std::string> arrival, prompt_dist, output_dist;
  std::vector<std::string> sla;  // KEY=MS items
  std::optional<uint64_t> seed;
};

void add_load_flags(CLI::App& cmd, LoadFlags& flags);

// Applies the flags to every [[sweep]] table and to [load] and [sla];
// throws Error naming the flag for an SLA item that is not KEY=MS with a
// percentile in its key.
void apply_load_flags(const LoadFlags& flags, runner::Scenario& s);

// The flags set, as command-line text (`add(flag, value)` for each).
void describe_load_flags(const LoadFlags& flags, const std::function<void(const std::string&, const std::string&)>& add);

}  // namespace pdbench::cli
