#pragma once
// One request from text to text: tokenize, prefill the prompt, then decode
// token by token (or beam search), streaming complete UTF-8 text as it comes.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/attention/paged_kv_cache.h"
#include "engine/model/forward.h"
#include "engine/profile/op_profile.h"
#include "engine/runtime/engine.h"
#include "engine/sampling/sampler.h"

namespace pdbench {

struct GenerateRequest {
  std::string prompt;
  size_t max_new_tokens = 128;
  SamplingParams sampling;
  bool add_bos = true;
  size_t beam_width = 0;  // > 0: beam search instead of sampling
  float length_penalty = 1.0f;
  // For benchmarks (pdbench run). prompt_ids, when not empty, is the prompt
  // as token ids (nothing to tokenize). context_ids run into the KV cache
  // first, untimed, so prefill and decode start at that context depth.
  // ignore_stop generates exactly max_new_tokens (or until the cache is full).
  std::vector<int32_t> prompt_ids;
  std::vector<int32_t> context_ids;
  bool ignore_stop = false;
};

// Wall-clock times of one request, in milliseconds (definitions in
// docs/METRICS.md): TTFT runs from the text in hand to the first sampled token.
struct Timings {
  double tokenize_ms = 0;
  double prefill_ms = 0;  // forward pass over the prompt
  double ttft_ms = 0;
  double decode_ms = 0;   // first token to last token
  double e2e_ms = 0;
  std::vector<double> step_ms;  // each decode step (forward + sampling)
  // Continuous batching only: arrival to the start of the first step the
  // request runs in (waiting for a slot, cache room or the step in flight);
  // TTFT counts it, prefill_ms does not.
  double queue_ms = 0;
};

struct GenerationResult {
  std::vector<int32_t> prompt_ids;
  size_t prefix_hit_tokens = 0;  // leading prompt tokens whose K/V were shared, not computed
  std::vector<int32_t> ids;  // generated tokens (a stop token is not included)
  std::string text;          // generated text
  std::string stop_reason;   // "length", "end_of_generation", "context_full"
  Timings timings;
};

// What one forward pass did, for `pdbench explain`.
struct StepTrace {
  size_t step;                      // 0 = prefill
  std::span<const int32_t> tokens;  // run through the model in this pass
  double forward_ms;
  std::span<const float> logits;  // next-token logits
  int32_t chosen;               // -1 when nothing was sampled (end)
  size_t kv_length;                 // positions in the cache after the pass
  size_t kv_bytes_used;
  const OpProfile& profile;     // this pass only
};

// How a Generator runs the model and keeps its KV cache.
struct GeneratorOptions {
  size_t context = 0;  // KV capacity in tokens; 0: the model's, at most kDefaultContextCap
  ForwardKind forward = ForwardKind::Fast;
  KvType k_type = KvType::F32;
  KvType v_type = KvType::F32;
  size_t block_tokens = 16;
  // Off: no K/V reuse; every decode step recomputes the whole context (a
  // context depth's tokens too), to measure what the cache saves. The
  // prompt's prefill starts from the depth's K/V either way.
  bool kv_cache = true;
  // On: a prompt whose leading full blocks equal those of the previous
  // request's prompt shares them and prefills only the rest (TTFT with a
  // prefix hit). Needs room for two sequences; not with a context depth.
  bool prefix_sharing = false;

  // A model's trained context can be 128K tokens (gigabytes of f32 K/V);
  // the default stops here and --ctx-size asks for more.
  static constexpr size_t kDefaultContextCap = 4096;
};

// The context (positions one sequence may use) and the cache shape that
// holds it, for these options: shared by Generator and BatchGenerator.
size_t context_tokens(const GeneratorOptions& options, const ModelConfig& model);
KvCacheConfig kv_cache_config(const GeneratorOptions& options, const ModelConfig& model, size_t sequences = 1);

// Whether sampling `id` ends a request: EOS and other end-of-generation
// tokens, and BOS (a model that samples BOS starts a new document; llama2.c
// stops there too).
bool ends_generation(const Tokenizer& tokenizer, int32_t id);

class Generator {
 public:
  explicit Generator(const Engine& engine, const GeneratorOptions& options = {});

  size_t context() const { return context_; }  // positions one sequence may use
  const PagedKvCache& cache() const { return cache_; }
  // Op totals of the last request, per phase.
  const OpProfile& prefill_profile() const { return prefill_profile_; }
  const OpProfile& decode_profile() const { return decode_profile_; }

  // on_text receives the prompt's text first (as the tokenizer decodes its
  // ids), then each complete piece of generated text.
  GenerationResult generate(const GenerateRequest& request,
                            const std::function<void(std::string_view)>& on_text = {},
                            const std::function<void(const StepTrace&)>& on_step = {});

 private:
  using Clock = std::chrono::steady_clock;
  void sample_loop(const GenerateRequest& request, Clock::time_point start, std::span<const float> logits,
                   StreamingDecoder& decoder, GenerationResult& result,
                   const std::function<void(std::string_view)>& on_text,
                   const std::function<void(const StepTrace&)>& on_step);
  void check_beams_fit(size_t width, size_t new_tokens, size_t prompt_blocks) const;
  void beam_loop(const GenerateRequest& request, Clock::time_point start, std::span<const float> logits,
                 GenerationResult& result);
  // Runs tokens of the generator's sequence, profiled into step_profile_ and `phase`.
  std::span<const float> forward(std::span<const int32_t> tokens, OpProfile& phase, double* ms);
  // A fresh sequence holding `context_ids`: restored from a snapshot when the
  // same context was run before, so a depth is paid for once.
  void start_sequence(const std::vector<int32_t>& context_ids);

  const Engine& engine_;
  GeneratorOptions options_;
  size_t context_;
  Forward& forward_;
  PagedKvCache cache_;
  SequenceId seq_;
  std::optional<SequenceId> context_snapshot_;
  std::vector<int32_t> snapshot_ids_;
  OpProfile step_profile_;
  OpProfile prefill_profile_;
  OpProfile decode_profile_;
};

}  // namespace pdbench
