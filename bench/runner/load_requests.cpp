#include "bench/runner/load_requests.h"

#include <algorithm>
#include <random>

namespace pdbench::runner {

namespace {

struct RequestLengths {
  size_t prompt, output;
};

// Each request's lengths: its trace row's, or drawn from their own stream,
// so the same seed gives the same lengths whatever the arrival process draws.
std::vector<RequestLengths> request_lengths(const Scenario& s, const Case& c, size_t n) {
  const LoadSetting& load = c.load;
  std::mt19937_64 rng(s.load_options.seed ^ 0x9e3779b97f4a7c15ULL);
  std::vector<RequestLengths> lengths;
  for (size_t i = 0; i < n; ++i) {
    if (!load.trace_timing.empty()) {
      lengths.push_back({s.trace_rows.rows[i].prompt_tokens, s.trace_rows.rows[i].output_tokens});
      continue;
    }
    const size_t prompt = draw_length(load.prompt_dist, load.prompt_spread, c.prompt_tokens, rng);
    lengths.push_back({prompt, draw_length(load.output_dist, load.output_spread, c.output_tokens, rng)});
  }
  return lengths;
}

}  // namespace

void prepare_load(const Scenario& s, const PromptMaker& prompts, PreparedCase& p) {
  const Case& c = p.spec;
  p.load_arrivals = c.load.trace_timing == "trace" ? trace_arrival_ms(s.trace_rows, s.trace)
                                                   : arrival_times(c.load, s.load_options.seed);
  const size_t n = p.load_arrivals.size();
  const std::vector<RequestLengths> lengths = request_lengths(s, c, n);
  const size_t runs = RunNumbers{s.warmup_max}.count(s.repetitions);
  p.load_runs.assign(runs, {});
  for (size_t run = 0; run < runs; ++run)
    for (size_t i = 0; i < n; ++i) {
      const size_t prompt = lengths[i].prompt, variant = run * n + i;
      // A shared prefix: one system prompt before each request's own tokens.
      const PromptInput input = c.shared_prefix_tokens > 0
                                    ? prompts.prompt_variant(prompt, std::min(c.shared_prefix_tokens, prompt), c.id,
                                                             variant)
                                    : prompts.prompt(prompt, c.id, variant);
      GenerateRequest r;
      r.prompt = input.text;
      r.prompt_ids = input.ids;
      r.max_new_tokens = lengths[i].output;
      r.sampling = p.sampling;
      r.ignore_stop = true;
      p.load_runs[run].push_back(std::move(r));
    }
}

}  // namespace pdbench::runner
