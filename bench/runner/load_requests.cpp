#include "bench/runner/load_requests.h"

#include <algorithm>
#include <random>

namespace pdbench::runner {

void prepare_load(const Scenario& s, const PromptMaker& prompts, PreparedCase& p) {
  const Case& c = p.spec;
  const LoadSetting& load = c.load;
  const bool from_trace = !load.trace_timing.empty();
  p.load_arrivals = load.trace_timing == "trace" ? trace_arrival_ms(s.trace_rows, s.trace)
                                                 : arrival_times(load, s.load_options.seed);
  // Lengths from their own stream, so the same seed gives the same lengths
  // whatever the arrival process draws.
  std::mt19937_64 lengths(s.load_options.seed ^ 0x9e3779b97f4a7c15ULL);
  p.load_requests.clear();
  for (size_t i = 0; i < p.load_arrivals.size(); ++i) {
    size_t prompt = 0, output = 0;
    if (from_trace) {
      prompt = s.trace_rows.rows[i].prompt_tokens;
      output = s.trace_rows.rows[i].output_tokens;
    } else {
      prompt = draw_length(load.prompt_dist, load.prompt_spread, c.prompt_tokens, lengths);
      output = draw_length(load.output_dist, load.output_spread, c.output_tokens, lengths);
    }
    // A shared prefix: one system prompt before each request's own tokens.
    const PromptInput input = c.shared_prefix_tokens > 0
                                  ? prompts.prompt_variant(prompt, std::min(c.shared_prefix_tokens, prompt), i)
                                  : prompts.prompt(prompt);
    GenerateRequest r;
    r.prompt = input.text;
    r.prompt_ids = input.ids;
    r.max_new_tokens = output;
    r.sampling = p.sampling;
    r.ignore_stop = true;
    p.load_requests.push_back(std::move(r));
  }
}

}  // namespace pdbench::runner
