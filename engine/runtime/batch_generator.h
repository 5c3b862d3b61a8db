#pragma once
// Continuous batching of a known list of requests, each arriving at its
// time: many requests share one paged KV cache and one forward call per
// step (BatchScheduler). A finished request frees its blocks at once and a
// waiting one joins at the next step.
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "engine/profile/op_profile.h"
#include "engine/runtime/batch_clock.h"
#include "engine/runtime/batch_scheduler.h"
#include "engine/runtime/generator.h"

namespace pdbench {

// One forward step of a run, as the scheduler ran it.
struct BatchStepRecord {
  double start_ms = 0;        // from the run's start
  double ms = 0;              // the step, with its sampling
  size_t batch = 0;           // sequences in it
  size_t prefill_tokens = 0;  // prompt tokens it prefilled
  size_t decode_tokens = 0;   // sequences that decoded a token
  size_t kv_blocks = 0;       // cache blocks in use after it
  size_t waiting = 0;         // requests arrived and not admitted when it started
};

struct BatchRun {
  std::vector<GenerationResult> results;  // in request order
  std::vector<BatchStepRecord> steps;     // every forward step
  double wall_ms = 0;
  // Per-op time of the steps that prefill at least one prompt, and of those
  // that only decode (sampling included).
  OpProfile prefill_ops;
  OpProfile decode_ops;
};

class BatchGenerator {
 public:
  // options.context is the context of ONE sequence; the cache holds
  // max_batch of them. `forward`, when given, runs in place of the
  // engine's pass of options.forward (a test's fake with a known cost).
  BatchGenerator(const Engine& engine, const GeneratorOptions& options, size_t max_batch, Forward* forward = nullptr);

  // Runs every request, each with its own sampling settings and seed.
  // arrival_ms (empty: all at 0) is when each request arrives, from the
  // start of the run by `clock` (null: the steady clock); TTFT counts from
  // arrival. A request joins at the first step that starts after it arrived
  // with a batch slot free and cache room for its prompt and all its new
  // tokens, in order of arrival; until then it waits (Timings::queue_ms,
  // to the step that runs its first prompt tokens; prefill_ms runs from
  // there to its first token, over several steps with a prefill chunk).
  // With nothing in flight the run waits for the next arrival. One that
  // could never fit is an Error before anything runs. Beam search is not
  // batched (Error).
  // `after_step`, when given, runs after every step (and every wait for an
  // arrival); what it throws ends the run, every sequence freed.
  BatchRun run(std::span<const GenerateRequest> requests, std::span<const double> arrival_ms = {},
               BatchClock* clock = nullptr, const std::function<void()>& after_step = {});

  // The most prompt tokens a step prefills (BatchScheduler); 0: whole prompts.
  void set_prefill_chunk(size_t tokens) { scheduler_.set_prefill_chunk(tokens); }

  // The shared cache: between runs every block is free again.
  const PagedKvCache& cache() const { return scheduler_.cache(); }

 private:
  const Engine& engine_;
  BatchScheduler scheduler_;
};

}  // namespace pdbench
