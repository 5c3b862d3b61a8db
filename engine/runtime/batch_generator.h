#pragma once
// Continuous batching: many requests share one paged KV cache and one
// forward call per step. Each step runs the prompts of requests joining now
// (prefill chunks) together with one token of every request already
// decoding, so the weights are read once per step for all of them. A
// finished request frees its blocks at once and a waiting one joins at the
// next step.
#include <cstddef>
#include <span>
#include <vector>

#include "engine/profile/op_profile.h"
#include "engine/runtime/generator.h"

namespace pdbench {

struct BatchRun {
  std::vector<GenerationResult> results;  // in request order
  std::vector<double> step_ms;            // every forward step, with its sampling
  std::vector<size_t> step_batch;         // sequences in flight at each step
  double wall_ms = 0;
  // Per-op time of the steps that prefill at least one prompt, and of those
  // that only decode (sampling included).
  OpProfile prefill_ops;
  OpProfile decode_ops;
};

class BatchGenerator {
 public:
  // options.context is the context of ONE sequence; the cache holds
  // max_batch of them.
  BatchGenerator(const Engine& engine, const GeneratorOptions& options, size_t max_batch);

  // Runs every request, each with its own sampling settings and seed.
  // arrival_ms (empty: all at 0) is when each request arrives, from the
  // start of the run; TTFT counts from arrival. A request joins when a batch
  // slot is free and the cache can hold its prompt and all its new tokens;
  // until then it waits. One that could never fit is an Error before
  // anything runs. Beam search is not batched (Error).
  BatchRun run(std::span<const GenerateRequest> requests, std::span<const double> arrival_ms = {});

  // The shared cache: between runs every block is free again.
  const PagedKvCache& cache() const { return cache_; }

 private:
  const Engine& engine_;
  GeneratorOptions options_;
  size_t max_batch_;
  size_t context_;
  PagedKvCache cache_;
};

}  // namespace pdbench
