#include "engine/runtime/generator.h"

#include <algorithm>
#include <optional>
#include <string>

#include "engine/format/checked_math.h"
#include "engine/sampling/beam_search.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Beam search sees the model as slots, each a sequence of the paged cache;
// copying a slot forks its sequence (copy-on-write: shared blocks are not
// copied). Slot 0 is the generator's prefilled sequence.
class BeamSlots : public BeamSearchModel {
 public:
  BeamSlots(Forward& forward, PagedKvCache& cache, SequenceId prefilled, size_t width)
      : forward_(forward), cache_(cache), slots_(width), logits_(width) {
    slots_[0] = prefilled;
  }
  ~BeamSlots() override {
    for (size_t i = 1; i < slots_.size(); ++i)
      if (slots_[i]) cache_.free_sequence(*slots_[i]);
  }
  BeamSlots(const BeamSlots&) = delete;
  BeamSlots& operator=(const BeamSlots&) = delete;

  void copy_slot(int src, int dst) override {
    auto& to = slots_.at(static_cast<size_t>(dst));
    const SequenceId from = *slots_.at(static_cast<size_t>(src));
    if (dst == 0) {
      cache_.restore_sequence(*to, from);  // slot 0 keeps the generator's id
      return;
    }
    if (to) cache_.free_sequence(*to);
    to = cache_.fork_sequence(from);
  }
  std::span<const float> decode(int slot, int32_t token) override {
    const auto s = static_cast<size_t>(slot);
    const SequenceChunk chunk{*slots_.at(s), std::span(&token, 1)};
    const auto logits = forward_.run(cache_, std::span(&chunk, 1), false, nullptr);
    logits_[s].assign(logits.begin(), logits.end());  // outlives the next slot's decode
    return logits_[s];
  }

 private:
  Forward& forward_;
  PagedKvCache& cache_;
  std::vector<std::optional<SequenceId>> slots_;
  std::vector<std::vector<float>> logits_;
};

}  // namespace

size_t context_tokens(const GeneratorOptions& options, const ModelConfig& model) {
  return options.context > 0 ? options.context
                             : std::min(model.context_length, GeneratorOptions::kDefaultContextCap);
}

KvCacheConfig kv_cache_config(const GeneratorOptions& options, const ModelConfig& model, size_t sequences) {
  // Each sequence's context in whole blocks, plus one block: a sequence
  // restored from a context snapshot copies the snapshot's partial last block.
  // The context comes from the command line: checked, since any size_t may arrive.
  const size_t block = std::max<size_t>(options.block_tokens, 1);
  const size_t context = context_tokens(options, model);
  const size_t per_sequence = context / block + (context % block != 0);
  const auto per_sequences = checked_mul(sequences, per_sequence);
  const auto blocks = per_sequences ? checked_add(*per_sequences, 1) : std::nullopt;
  const auto tokens = blocks ? checked_mul(*blocks, block) : std::nullopt;
  if (!tokens)
    throw Error("KV cache: a context of " + std::to_string(context) + " tokens for " + std::to_string(sequences) +
                " sequences overflows a 64-bit size");
  return kv_cache_config(model, options.k_type, options.v_type, options.block_tokens, *tokens);
}

bool ends_generation(const Tokenizer& tokenizer, int32_t id) {
  return tokenizer.is_end_of_generation(id) || id == tokenizer.bos();
}

Generator::Generator(const Engine& engine, const GeneratorOptions& options)
    : engine_(engine),
      options_(options),
      context_(context_tokens(options, engine.model().config())),
      forward_(engine.forward(options.forward)),
      // A second sequence's room: the shared prefix's owner, or with the
      // cache off the context snapshot next to the step's fresh sequence.
      cache_(kv_cache_config(options, engine.model().config(), options.prefix_sharing || !options.kv_cache ? 2 : 1)),
      seq_(cache_.create_sequence()),
      step_profile_(engine.model().config().n_layers),
      prefill_profile_(engine.model().config().n_layers),
      decode_profile_(engine.model().config().n_layers) {}

void Generator::start_sequence(const std::vector<int32_t>& context_ids) {
  if (context_snapshot_ && snapshot_ids_ == context_ids) {
    cache_.restore_sequence(seq_, *context_snapshot_);
    return;
  }
  // Another context: the old snapshot's blocks go back to the pool first.
  if (context_snapshot_) cache_.free_sequence(*context_snapshot_);
  context_snapshot_.reset();
  cache_.free_sequence(seq_);
  seq_ = cache_.create_sequence();
  if (context_ids.empty()) return;
  const SequenceChunk chunk{seq_, context_ids};
  forward_.run(cache_, std::span(&chunk, 1), false, nullptr);
  context_snapshot_ = cache_.fork_sequence(seq_);
  snapshot_ids_ = context_ids;
}

std::span<const float> Generator::forward(std::span<const int32_t> tokens, OpProfile& phase, double* ms) {
  step_profile_.reset();
  const auto t0 = Clock::now();
  const SequenceChunk chunk{seq_, tokens};
  const auto logits = forward_.run(cache_, std::span(&chunk, 1), false, &step_profile_);
  *ms = ms_between(t0, Clock::now());
  phase.merge(step_profile_);
  return logits;
}

GenerationResult Generator::generate(const GenerateRequest& request,
                                     const std::function<void(std::string_view)>& on_text,
                                     const std::function<void(const StepTrace&)>& on_step) {
  if (request.max_new_tokens == 0) throw Error("generate: the number of tokens to generate must be at least 1");
  request.sampling.validate();
  if (request.context_ids.size() >= context())
    throw Error("generate: the context prefix is " + std::to_string(request.context_ids.size()) +
                " tokens but the context holds " + std::to_string(context()));
  const bool share_prefix = options_.prefix_sharing && request.context_ids.empty();
  if (!share_prefix) start_sequence(request.context_ids);  // else the previous sequence lives until attached
  const auto start = Clock::now();
  GenerationResult result;
  result.prompt_ids =
      request.prompt_ids.empty() ? engine_.tokenizer().encode(request.prompt, request.add_bos) : request.prompt_ids;
  result.timings.tokenize_ms = ms_between(start, Clock::now());
  if (result.prompt_ids.empty()) throw Error("generate: the prompt is empty and the vocabulary has no BOS token");
  const size_t depth = share_prefix ? 0 : cache_.length(seq_);
  if (depth + result.prompt_ids.size() > context())
    throw Error("generate: the prompt is " + std::to_string(result.prompt_ids.size()) + " tokens after " +
                std::to_string(depth) + " of context but the context holds " + std::to_string(context()));

  if (request.beam_width > 1) {
    const size_t prompt_end = depth + result.prompt_ids.size();
    check_beams_fit(request.beam_width, std::min(request.max_new_tokens, context() - prompt_end + 1),
                    cache_.blocks_needed(seq_, result.prompt_ids.size()));
  }
  StreamingDecoder decoder(engine_.tokenizer());
  std::string prompt_text;
  for (int32_t id : result.prompt_ids) prompt_text += decoder.push(id);
  if (on_text) on_text(prompt_text);

  prefill_profile_.reset();
  decode_profile_.reset();
  double prefill_ms = 0;
  if (share_prefix) {
    // Attach before the previous request's sequence is freed: its blocks are
    // what the index points at.
    const SequenceId next = cache_.create_sequence();
    result.prefix_hit_tokens = cache_.attach_prefix(next, result.prompt_ids);
    cache_.free_sequence(seq_);
    seq_ = next;
  }
  const auto logits =
      forward(std::span(result.prompt_ids).subspan(result.prefix_hit_tokens), prefill_profile_, &prefill_ms);
  result.timings.prefill_ms = prefill_ms;
  if (share_prefix) cache_.commit_block_hashes(seq_, result.prompt_ids);

  if (request.beam_width > 0) {
    beam_loop(request, start, logits, result);
    if (on_text) on_text(result.text);
  } else {
    sample_loop(request, start, logits, decoder, result, on_text, on_step);
  }
  result.timings.e2e_ms = ms_between(start, Clock::now());
  result.timings.decode_ms = result.timings.e2e_ms - result.timings.ttft_ms;
  return result;
}

void Generator::sample_loop(const GenerateRequest& request, Clock::time_point start,
                            std::span<const float> logits, StreamingDecoder& decoder,
                            GenerationResult& result, const std::function<void(std::string_view)>& on_text,
                            const std::function<void(const StepTrace&)>& on_step) {
  Sampler sampler(request.sampling);
  std::vector<int32_t> history = result.prompt_ids;
  Timings& timings = result.timings;
  double forward_ms = timings.prefill_ms;
  auto last_token_time = start;
  for (size_t step = 0;; ++step) {
    int32_t id;
    {
      ScopedOp op(step == 0 ? &prefill_profile_ : &decode_profile_, Op::Sampling, -1);
      id = sampler.sample(logits, history);
    }
    const auto now = Clock::now();
    if (step == 0)
      timings.ttft_ms = ms_between(start, now);
    else
      timings.step_ms.push_back(ms_between(last_token_time, now));
    last_token_time = now;
    const bool stop = !request.ignore_stop && ends_generation(engine_.tokenizer(), id);
    if (on_step)
      on_step(StepTrace{step, step == 0 ? std::span<const int32_t>(result.prompt_ids) : std::span(&history.back(), 1),
                        forward_ms, logits, id, cache_.length(seq_),
                        cache_.length(seq_) * cache_.pool().bytes_per_token(), step_profile_});
    if (stop) {
      result.stop_reason = "end_of_generation";
      break;
    }
    result.ids.push_back(id);
    history.push_back(id);
    const std::string piece = decoder.push(id);
    result.text += piece;
    if (on_text && !piece.empty()) on_text(piece);
    if (result.ids.size() == request.max_new_tokens) {
      result.stop_reason = "length";
      break;
    }
    if (cache_.length(seq_) == context()) {
      result.stop_reason = "context_full";
      break;
    }
    if (options_.kv_cache) {
      logits = forward(std::span(&result.ids.back(), 1), decode_profile_, &forward_ms);
    } else {
      // Recompute: no K/V survives a step; the whole context, the depth's
      // tokens included, runs again (the snapshot stays for the next request).
      cache_.free_sequence(seq_);
      seq_ = cache_.create_sequence();
      std::vector<int32_t> context = request.context_ids;
      context.insert(context.end(), history.begin(), history.end());
      logits = forward(context, decode_profile_, &forward_ms);
    }
  }
  const std::string tail = decoder.flush();
  result.text += tail;
  if (on_text && !tail.empty()) on_text(tail);
}

// Each beam writes its new tokens into blocks of its own (the shared
// prompt's last block copied on a fork), so W beams of n new tokens may
// hold up to W (ceil(n / block) + 1) blocks beyond the prompt's: refused
// before anything runs rather than when the pool runs dry midway.
void Generator::check_beams_fit(size_t width, size_t new_tokens, size_t prompt_blocks) const {
  const KvBlockPool& pool = cache_.pool();
  const size_t block = pool.block_tokens();
  const size_t need = prompt_blocks + width * ((new_tokens + block - 1) / block + 1);
  if (need > pool.free_blocks())
    throw Error("beam search: " + std::to_string(width) + " beams of up to " + std::to_string(new_tokens) +
                " new tokens after the prompt may need " + std::to_string(need) + " KV blocks of " + std::to_string(block) +
                " tokens, and " + std::to_string(pool.free_blocks()) +
                " are free: use fewer beams (--beam), or a larger context (--ctx-size / -c) for more blocks");
}

void Generator::beam_loop(const GenerateRequest& request, Clock::time_point start,
                          std::span<const float> logits, GenerationResult& result) {
  BeamParams params;
  params.width = static_cast<int>(request.beam_width);
  params.length_penalty = request.length_penalty;
  // Every token but the last needs a cache position.
  params.max_new_tokens = static_cast<int>(
      std::min(request.max_new_tokens, context() - cache_.length(seq_) + 1));
  const Tokenizer& tok = engine_.tokenizer();
  for (int32_t id : {tok.eos(), tok.bos()})
    if (id >= 0) params.stop_tokens.push_back(id);
  BeamSlots slots(forward_, cache_, seq_, request.beam_width);
  const BeamResult best = beam_search(slots, logits, params);
  result.timings.ttft_ms = ms_between(start, Clock::now());  // beams finish together
  result.ids = best.tokens;
  result.stop_reason = result.ids.size() < static_cast<size_t>(params.max_new_tokens) ? "end_of_generation" : "length";
  StreamingDecoder decoder(tok);
  decoder.push(result.prompt_ids.back());
  for (int32_t id : result.ids) result.text += decoder.push(id);
  result.text += decoder.flush();
}

}  // namespace pdbench
