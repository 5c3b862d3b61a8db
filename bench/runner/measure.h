#pragma once
// One timed run of a case, and warm-up until a case's times are stable.
#include <cstddef>
#include <memory>
#include <vector>

#include "bench/runner/prompts.h"
#include "bench/runner/sweep.h"
#include "engine/profile/op_profile.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/batch_generator.h"
#include "engine/runtime/generator.h"

namespace pdbench::runner {

// A case ready to run: its inputs are made once, outside any timing.
struct PreparedCase {
  Case spec;
  PromptInput prompt;
  std::vector<int32_t> context;  // filler run before the prompt, untimed
  SamplingParams sampling;
  size_t capacity = 0;           // KV capacity in tokens
  // Kept across repetitions (and shared by cases with the same KV settings)
  // so its cache is allocated and touched once, outside any timing.
  std::shared_ptr<Generator> generator;
  // batch > 1: that many copies of the request through continuous batching.
  std::shared_ptr<BatchGenerator> batcher;
  size_t decode_delay_us = 0;    // test-only: a busy wait inside each timed decode step (a slowed build)
};

struct StepPoint {
  size_t step;       // 1..output-1 (step 0 is the first token, in TTFT)
  size_t kv_length;  // positions in the cache after this step's forward
  double step_ms;    // inter-token gap
  double forward_ms;
};

struct RunResult {
  Timings timings;
  size_t generated = 0;
  std::vector<StepPoint> steps;
  OpProfile prefill;
  OpProfile decode;
  size_t kv_bytes_allocated = 0;
  size_t kv_bytes_used = 0;
};

RunResult run_once(const PreparedCase& c);

struct WarmUp {
  size_t runs = 0;
  bool stable = false;  // the last `window` runs' E2E within tolerance of their median
};

// Runs the case until the last `window` E2E times are within tolerance_pct
// of their median, or max_runs runs.
WarmUp warm_up(const PreparedCase& c, size_t max_runs, size_t window, double tolerance_pct);

}  // namespace pdbench::runner
