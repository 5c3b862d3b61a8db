#pragma once
// One timed run of a case, warm-up until a case's times are stable, and an
// untimed run that measures peak memory per phase.
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "bench/runner/openai_target.h"
#include "bench/runner/prompts.h"
#include "bench/runner/rss_high_water.h"
#include "bench/runner/sweep.h"
#include "engine/runtime/batch_generator.h"
#include "engine/profile/op_profile.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/batch_generator.h"
#include "engine/runtime/generator.h"

namespace pdbench::runner {

// A case ready to run: its inputs are made once, outside any timing.
struct PreparedCase {
  Case spec;
  // The prompt of each run, by run number (RunNumbers): all text or all ids.
  std::vector<PromptInput> prompts;
  std::vector<int32_t> context;  // filler run before the prompt, untimed
  SamplingParams sampling;
  size_t capacity = 0;           // KV capacity in tokens
  // Kept across repetitions (and shared by cases with the same KV settings)
  // so its cache is allocated and touched once, outside any timing.
  std::shared_ptr<Generator> generator;
  // batch > 1: that many copies of the request through continuous batching;
  // a load case: its requests, max_concurrency at a time.
  std::shared_ptr<BatchGenerator> batcher;
  // A remote target (openai_target.h), which then runs every request in
  // place of generator and batcher.
  std::shared_ptr<OpenAiTarget> remote;
  // Set (to a signal number) when the run must stop: a run in progress is
  // abandoned at its next token (RunInterrupted).
  const std::atomic<int>* stop = nullptr;
  size_t decode_delay_us = 0;    // test-only: a busy wait inside each timed decode step (a slowed build)
  // A load case's requests of each run, by run number, and their arrival
  // times (ms), drawn from [load] seed when the case is prepared: every run
  // has the same arrivals and lengths, and prompts of its own.
  std::vector<std::vector<GenerateRequest>> load_runs;
  std::vector<double> load_arrivals;

  const PromptInput& prompt(size_t run) const { return prompts[prompts.size() == 1 ? 0 : run]; }
  const std::vector<GenerateRequest>& load_requests(size_t run) const { return load_runs.at(run); }
};

// Run numbers of one case, which pick its prompt: warm-up runs first, then
// the memory probe, then the repetitions; so consecutive runs differ and a
// repetition gets the same prompt in every session (--resume).
struct RunNumbers {
  size_t warmup_max = 0;
  size_t warmup(size_t k) const { return k; }
  size_t probe() const { return warmup_max; }
  size_t repetition(size_t rep) const { return warmup_max + 1 + rep; }
  size_t count(size_t repetitions) const { return repetition(repetitions); }
};

struct StepPoint {
  size_t step;       // 1..output-1 (step 0 is the first token, in TTFT)
  size_t kv_length;  // positions in the cache after this step's forward
  double step_ms;    // inter-token gap
  double forward_ms;
};

// One request of a load run (Timings' definitions, from its arrival).
struct RequestSample {
  double arrival_ms = 0;
  size_t prompt_tokens = 0;
  size_t output_tokens = 0;  // asked for
  size_t generated = 0;
  Timings timings;
};

struct RunResult {
  Timings timings;
  size_t generated = 0;
  size_t prefix_hit_tokens = 0;  // prompt tokens whose K/V came from the cache
  std::vector<StepPoint> steps;
  OpProfile prefill;
  OpProfile decode;
  size_t kv_bytes_allocated = 0;
  size_t kv_bytes_used = 0;
  // A load case: every request, and the run's wall time from its start to
  // the last request's end. timings then holds the medians over requests.
  std::vector<RequestSample> requests;
  double wall_ms = 0;
  std::vector<BatchStepRecord> batch_steps;  // a load case run in-process: every forward step
};

// A load run's result from its requests: every request's token gaps as
// steps at its own positions, and timings the medians over requests.
RunResult load_result(std::vector<RequestSample> requests, double wall_ms);

// Out of run_once when a stop was requested mid-run: the run is abandoned.
class RunInterrupted : public std::runtime_error {
 public:
  RunInterrupted() : std::runtime_error("run interrupted") {}
};

// `first_token`, when given, runs once the first token is out (the end of
// prefill); its time lands in the first decode step's gap, so only untimed
// runs pass one. Throws RunInterrupted when c.stop is set mid-run.
RunResult run_once(const PreparedCase& c, size_t run, const std::function<void()>& first_token = {});

struct WarmUp {
  size_t runs = 0;
  bool stable = false;  // the last `window` runs' E2E within tolerance of their median
};

// Runs the case until the last `window` E2E times are within tolerance_pct
// of their median, or max_runs runs.
WarmUp warm_up(const PreparedCase& c, size_t max_runs, size_t window, double tolerance_pct);

// Peak resident memory, KiB, from the run's start to its first token
// (tokenize + prefill + first sampling) and from there to its end. Zero for
// a batch, whose requests prefill and decode in the same steps.
struct MemoryPeaks {
  long prefill_kib = 0;
  long decode_kib = 0;
};
MemoryPeaks probe_memory(const PreparedCase& c, RssHighWater& rss, size_t run);

}  // namespace pdbench::runner
