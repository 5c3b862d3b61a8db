#pragma once
// The step of continuous batching, fed one request at a time: BatchGenerator
// runs a known list of requests through it, `pdbench serve` the requests
// that arrive over HTTP. Each step() runs the prompts of the requests
// admitted since the last step together with one token of every request
// already decoding, in one forward call (the weights are read once for all
// of them), samples every sequence whose prompt is in and says what each
// produced. With a prefill chunk, a step prefills at most that many prompt
// tokens in all, in admission order, a long prompt over several steps
// (Sarathi's chunked prefill: a long prompt no longer stalls the decoding
// requests for one long step). A request that is done frees its blocks at
// once. One thread owns a scheduler.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/profile/op_profile.h"
#include "engine/runtime/generator.h"

namespace pdbench {

// What one request got from a step.
struct TokenEvent {
  uint64_t tag;          // the request, as admit() was told
  bool first;            // the step that prefilled the last of its prompt
  std::optional<int32_t> id;  // the token added to its output; none when it stopped on an end token
  std::string text;      // the complete UTF-8 text this step added (often empty mid-character)
  std::string stop_reason;  // "" while it goes on; "length" or "end_of_generation" when done
};

struct BatchStep {
  // One per request that sampled a token, in admission order (a request
  // whose prompt is not all in yet has none).
  std::vector<TokenEvent> events;
  std::vector<uint64_t> started;  // requests whose first prompt tokens ran in this step
  size_t batch = 0;               // sequences in the step
  size_t prefill_tokens = 0;      // prompt tokens it prefilled
  size_t decode_tokens = 0;       // sequences that decoded a token
};

class BatchScheduler {
 public:
  // options.context is the context of ONE sequence; the cache holds
  // max_batch of them. `forward`, when given, runs in place of the
  // engine's pass of options.forward (a test's fake with a known cost).
  BatchScheduler(const Engine& engine, const GeneratorOptions& options, size_t max_batch, Forward* forward = nullptr);
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // Error, naming `what`, when a request of these lengths could never run:
  // no tokens to generate, an empty prompt, or more positions than a
  // sequence's context holds (the last new token needs none).
  void check_fits(size_t prompt_tokens, size_t max_new_tokens, const std::string& what) const;
  // Whether admit() takes it now: a free slot, and cache room for its
  // prompt and all its new tokens beside what the admitted ones will need.
  bool can_admit(size_t prompt_tokens, size_t max_new_tokens) const;
  // Starts a request (check_fits and can_admit first); its prompt is
  // prefilled at the next step. Beam search is not batched (Error).
  void admit(uint64_t tag, std::vector<int32_t> prompt, const GenerateRequest& request);
  // Ends a request that is not done (its client left) and frees its
  // blocks; false when no such request is in flight.
  bool cancel(uint64_t tag);
  // Ends every request in flight.
  void clear();
  // The most prompt tokens one step prefills, over all its requests; 0
  // (the default): every admitted prompt whole.
  void set_prefill_chunk(size_t tokens) { prefill_chunk_ = tokens; }

  // One forward pass over every admitted request and one token sampled for
  // each; `ops`, when given, gets the pass's per-op time and the sampling's.
  // Nothing in flight: an empty step.
  BatchStep step(OpProfile* ops = nullptr);

  size_t active() const;  // requests in flight
  size_t max_batch() const { return max_batch_; }
  size_t context() const { return context_; }
  const PagedKvCache& cache() const { return cache_; }

 private:
  struct Slot;
  size_t blocks_of(size_t prompt_tokens, size_t max_new_tokens) const;
  // The prompt tokens each slot runs in the next step, within the chunk.
  std::vector<size_t> plan_prompt_tokens() const;
  // Adds a sampled token to the slot's output; a slot that is done is freed
  // (its event has a stop_reason). `first`: its prompt ended in this step.
  TokenEvent add_token(Slot& slot, int32_t id, bool first);
  void finish(Slot& slot);

  const Engine& engine_;
  Forward& forward_;
  size_t max_batch_;
  size_t context_;
  PagedKvCache cache_;
  std::vector<Slot> slots_;
  size_t reserved_blocks_ = 0;  // blocks the admitted requests will need in all
  size_t prefill_chunk_ = 0;
};

}  // namespace pdbench
