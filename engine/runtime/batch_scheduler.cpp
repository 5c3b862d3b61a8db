#include "engine/runtime/batch_scheduler.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <span>

#include "engine/util/error.h"

namespace pdbench {

struct BatchScheduler::Slot {
  uint64_t tag;
  SequenceId seq;
  Sampler sampler;
  std::vector<int32_t> history;  // prompt, then generated tokens
  StreamingDecoder decoder;
  size_t max_new_tokens;
  size_t generated = 0;
  size_t blocks;  // what it reserved
  bool ignore_stop;
  size_t prompt_tokens;  // the start of history
  size_t prefilled = 0;  // prompt tokens in the cache
  bool decoding() const { return prefilled == prompt_tokens; }
};

namespace {

// The next token of each sequence slots[which[k]], from row rows[k] of the
// logits. A sampler is its sequence's own (RNG, scratch), so sequences
// sample in parallel: with greedy sampling of a 128K vocabulary, copying and
// scanning each row of logits took 0.8 ms of a batch-8 step on one thread.
// The first sequence's Error, if any, rethrows.
template <typename Slots>
std::vector<int32_t> sample_each(Slots& slots, std::span<const size_t> which, std::span<const size_t> rows,
                                 std::span<const float> logits, size_t vocab) {
  std::vector<int32_t> ids(rows.size());
  std::vector<std::exception_ptr> errors(rows.size());
  const auto n = static_cast<int64_t>(rows.size());
#pragma omp parallel for schedule(static) if (n > 1)
  for (int64_t c = 0; c < n; ++c) {
    const auto k = static_cast<size_t>(c);
    auto& slot = slots[which[k]];
    try {
      ids[k] = slot.sampler.sample(logits.subspan(rows[k] * vocab, vocab), slot.history);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return ids;
}

}  // namespace

BatchScheduler::BatchScheduler(const Engine& engine, const GeneratorOptions& options, size_t max_batch,
                               Forward* forward)
    : engine_(engine),
      forward_(forward != nullptr ? *forward : engine.forward(options.forward)),
      max_batch_(max_batch),
      context_(context_tokens(options, engine.model().config())),
      cache_(kv_cache_config(options, engine.model().config(), max_batch)) {
  if (max_batch == 0) throw Error("batch: the batch size must be at least 1");
}

BatchScheduler::~BatchScheduler() = default;

size_t BatchScheduler::active() const { return slots_.size(); }

size_t BatchScheduler::blocks_of(size_t prompt_tokens, size_t max_new_tokens) const {
  return cache_.blocks_for(prompt_tokens + max_new_tokens - 1);  // the last token needs no position
}

void BatchScheduler::check_fits(size_t prompt_tokens, size_t max_new_tokens, const std::string& what) const {
  if (max_new_tokens == 0) throw Error(what + " generates no tokens");
  if (prompt_tokens == 0) throw Error(what + " has an empty prompt");
  const size_t need = prompt_tokens + max_new_tokens - 1;
  if (need > context_)
    throw Error(what + " needs " + std::to_string(need) + " positions (" + std::to_string(prompt_tokens) +
                " prompt tokens and " + std::to_string(max_new_tokens) + " new) but a sequence's context holds " +
                std::to_string(context_));
}

bool BatchScheduler::can_admit(size_t prompt_tokens, size_t max_new_tokens) const {
  return slots_.size() < max_batch_ &&
         reserved_blocks_ + blocks_of(prompt_tokens, max_new_tokens) <= cache_.pool().capacity_blocks();
}

void BatchScheduler::admit(uint64_t tag, std::vector<int32_t> prompt, const GenerateRequest& request) {
  if (request.beam_width > 0) throw Error("batch: beam search is not batched");
  check_fits(prompt.size(), request.max_new_tokens, "batch: a request");
  if (!can_admit(prompt.size(), request.max_new_tokens)) throw Error("batch: no slot or cache room for a request");
  const size_t blocks = blocks_of(prompt.size(), request.max_new_tokens);
  const size_t prompt_tokens = prompt.size();
  Slot s{tag,    cache_.create_sequence(), Sampler(request.sampling), std::move(prompt),
         StreamingDecoder(engine_.tokenizer()), request.max_new_tokens, 0, blocks, request.ignore_stop,
         prompt_tokens};
  for (int32_t id : s.history) s.decoder.push(id);  // so the first new token decodes after the prompt
  reserved_blocks_ += s.blocks;
  slots_.push_back(std::move(s));
}

void BatchScheduler::finish(Slot& slot) {
  cache_.free_sequence(slot.seq);
  reserved_blocks_ -= slot.blocks;
}

bool BatchScheduler::cancel(uint64_t tag) {
  bool found = false;
  std::vector<Slot> kept;  // a Slot moves but does not assign (its decoder holds a reference)
  for (Slot& s : slots_) {
    if (s.tag == tag) {
      finish(s);
      found = true;
    } else {
      kept.push_back(std::move(s));
    }
  }
  slots_ = std::move(kept);
  return found;
}

void BatchScheduler::clear() {
  for (Slot& s : slots_) finish(s);
  slots_.clear();
}

BatchStep BatchScheduler::step(OpProfile* ops) {
  BatchStep out;
  if (slots_.empty()) return out;
  const std::vector<size_t> prompt_run = plan_prompt_tokens();
  std::vector<SequenceChunk> chunks;
  std::vector<size_t> ran;  // the slot of each chunk
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.decoding()) {
      chunks.push_back({s.seq, std::span(&s.history.back(), 1)});
      ++out.decode_tokens;
    } else if (prompt_run[i] > 0) {
      chunks.push_back({s.seq, std::span(s.history).subspan(s.prefilled, prompt_run[i])});
      if (s.prefilled == 0) out.started.push_back(s.tag);
      out.prefill_tokens += prompt_run[i];
    } else {
      continue;  // its prompt waits for the next step's budget
    }
    ran.push_back(i);
  }
  out.batch = chunks.size();
  const auto logits = forward_.run(cache_, chunks, false, ops);

  // The chunks that end a prompt or decode sample; a prompt's earlier
  // chunks only fill the cache.
  std::vector<size_t> sampling, rows;
  for (size_t c = 0; c < ran.size(); ++c) {
    Slot& s = slots_[ran[c]];
    s.prefilled += prompt_run[ran[c]];
    if (s.decoding()) {
      sampling.push_back(ran[c]);
      rows.push_back(c);
    }
  }
  std::vector<int32_t> ids;
  {
    ScopedOp op(ops, Op::Sampling, -1);
    ids = sample_each(slots_, sampling, rows, logits, engine_.model().config().vocab);
  }
  std::vector<bool> done(slots_.size(), false);
  for (size_t k = 0; k < sampling.size(); ++k) {
    out.events.push_back(add_token(slots_[sampling[k]], ids[k], prompt_run[sampling[k]] > 0));
    done[sampling[k]] = !out.events.back().stop_reason.empty();
  }
  std::vector<Slot> still;  // a Slot moves but does not assign (its decoder holds a reference)
  for (size_t i = 0; i < slots_.size(); ++i)
    if (!done[i]) still.push_back(std::move(slots_[i]));
  slots_ = std::move(still);
  return out;
}

std::vector<size_t> BatchScheduler::plan_prompt_tokens() const {
  std::vector<size_t> n(slots_.size(), 0);
  size_t budget = prefill_chunk_ > 0 ? prefill_chunk_ : SIZE_MAX;
  for (size_t i = 0; i < slots_.size() && budget > 0; ++i) {
    n[i] = std::min(slots_[i].prompt_tokens - slots_[i].prefilled, budget);
    budget -= n[i];
  }
  return n;
}

TokenEvent BatchScheduler::add_token(Slot& s, int32_t id, bool first) {
  TokenEvent ev{s.tag, first, std::nullopt, "", ""};
  const bool stop = !s.ignore_stop && ends_generation(engine_.tokenizer(), id);
  if (!stop) {
    ev.id = id;
    s.history.push_back(id);
    ++s.generated;
    ev.text = s.decoder.push(id);
  }
  if (stop || s.generated == s.max_new_tokens) {
    ev.stop_reason = stop ? "end_of_generation" : "length";
    ev.text += s.decoder.flush();
    finish(s);
  }
  return ev;
}

}  // namespace pdbench
