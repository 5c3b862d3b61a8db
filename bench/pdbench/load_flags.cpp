#include "bench/pdbench/load_flags.h"

#include <charconv>
#include <cmath>

#include "bench/pdbench/options.h"
#include "engine/util/error.h"

namespace pdbench::cli {

namespace {

// One --sla item: ttft_p99_ms=500.
void apply_sla(const std::string& item, runner::Sla& sla) {
  const size_t eq = item.find('=');
  const std::string key = item.substr(0, eq);
  const std::string what = "--sla: '" + item + "'";
  if (eq == std::string::npos) throw Error(what + ": expected KEY=MS, as ttft_p99_ms=500");
  double* limit = key == "ttft_p99_ms" ? &sla.ttft_p99_ms : key == "tpot_p99_ms" ? &sla.tpot_p99_ms : nullptr;
  if (limit == nullptr) {
    if (key.find("_p") == std::string::npos)
      throw Error(what + ": the limit needs a percentile: ttft_p99_ms or tpot_p99_ms");
    throw Error(what + ": unknown limit (known: ttft_p99_ms, tpot_p99_ms)");
  }
  const std::string value = item.substr(eq + 1);
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), *limit);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size() || !(*limit > 0) || !std::isfinite(*limit))
    throw Error(what + ": the limit must be a number of milliseconds above 0");
}

}  // namespace

void add_load_flags(CLI::App& cmd, LoadFlags& f) {
  const std::string group = "Load (scenarios/README.md, \"Load\")";
  add_number_list(cmd, "--requests", f.requests, 1, "Load case: requests per run");
  add_real_list(cmd, "--duration-s", f.duration_s, {0, false, 1e6, false},
                "Load case: send what arrives in this many seconds (instead of --requests)");
  add_real_list(cmd, "--request-rate", f.request_rate, {0, false, 1e12, true},
                "Load case: requests per second, or inf (all at once)");
  cmd.add_option("--arrival", f.arrival, "Load case: arrival processes: poisson, constant, gamma")
      ->delimiter(',')
      ->check(CLI::IsMember({"poisson", "constant", "gamma"}));
  add_real_list(cmd, "--burstiness", f.burstiness, {0, false, 1e6, false}, "Load case: gamma's shape (< 1 burstier)");
  add_number_list(cmd, "--max-concurrency", f.max_concurrency, 1, "Load case: batch slots");
  add_number_list(cmd, "--prefill-chunk", f.prefill_chunk, 0,
                  "Load case: most prompt tokens a step prefills (chunked prefill); 0 = whole prompts");
  cmd.add_option("--prompt-dist", f.prompt_dist, "Load case: prompt lengths: fixed, uniform, normal")
      ->delimiter(',')
      ->check(CLI::IsMember({"fixed", "uniform", "normal"}));
  add_real_list(cmd, "--prompt-spread", f.prompt_spread, {0, true, 1, false}, "Load case: the prompt lengths' spread");
  cmd.add_option("--output-dist", f.output_dist, "Load case: output lengths: fixed, uniform, normal")
      ->delimiter(',')
      ->check(CLI::IsMember({"fixed", "uniform", "normal"}));
  add_real_list(cmd, "--output-spread", f.output_spread, {0, true, 1, false}, "Load case: the output lengths' spread");
  cmd.add_option("--load-seed", f.seed, "Load case: seed of the arrival times and lengths ([load] seed)");
  cmd.add_option("--sla", f.sla, "Latency limits for goodput: ttft_p99_ms=MS,tpot_p99_ms=MS")->delimiter(',');
  for (const char* name : {"--requests", "--duration-s", "--request-rate", "--arrival", "--burstiness",
                           "--max-concurrency", "--prefill-chunk", "--prompt-dist", "--prompt-spread", "--output-dist",
                           "--output-spread", "--load-seed", "--sla"})
    cmd.get_option(name)->group(group);
}

void apply_load_flags(const LoadFlags& f, runner::Scenario& s) {
  for (runner::SweepAxes* axes : s.sweeps()) {
    runner::LoadAxes& l = axes->load;
    override_axis(l.request_rate, f.request_rate);
    override_axis(l.arrival, f.arrival);
    override_axis(l.burstiness, f.burstiness);
    override_axis(l.max_concurrency, f.max_concurrency);
    override_axis(l.prefill_chunk, f.prefill_chunk);
    override_axis(l.requests, f.requests);
    override_axis(l.duration_s, f.duration_s);
    override_axis(l.prompt_dist, f.prompt_dist);
    override_axis(l.prompt_spread, f.prompt_spread);
    override_axis(l.output_dist, f.output_dist);
    override_axis(l.output_spread, f.output_spread);
  }
  if (f.seed) s.load_options.seed = *f.seed;
  for (const std::string& item : f.sla) apply_sla(item, s.sla);
}

void describe_load_flags(const LoadFlags& f, const std::function<void(const std::string&, const std::string&)>& add) {
  const std::vector<std::pair<const char*, std::string>> flags = {
      {"--requests", list(f.requests)},         {"--duration-s", list(f.duration_s)},
      {"--request-rate", list(f.request_rate)}, {"--arrival", list(f.arrival)},
      {"--burstiness", list(f.burstiness)},     {"--max-concurrency", list(f.max_concurrency)},
      {"--prefill-chunk", list(f.prefill_chunk)},
      {"--prompt-dist", list(f.prompt_dist)},   {"--prompt-spread", list(f.prompt_spread)},
      {"--output-dist", list(f.output_dist)},   {"--output-spread", list(f.output_spread)},
      {"--load-seed", f.seed ? std::to_string(*f.seed) : ""}, {"--sla", list(f.sla)}};
  for (const auto& [flag, value] : flags) add(flag, value);
}

}  // namespace pdbench::cli
