#include "engine/runtime/batch_generator.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <optional>
#include <string>

#include "engine/util/error.h"

namespace pdbench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// One request in flight.
struct Slot {
  size_t index;  // into the requests
  SequenceId seq;
  Sampler sampler;
  std::vector<int32_t> history;  // prompt, then generated tokens
  std::optional<StreamingDecoder> decoder;
  size_t prompt_tokens;
  bool prefilled = false;
  double arrival_ms;
  double last_token_ms = 0;
};

// Each active sequence's next token. A sampler is its sequence's own (RNG,
// scratch), so sequences sample in parallel: with greedy sampling of a 128K
// vocabulary, copying and scanning each row of logits took 0.8 ms of a
// batch-8 step on one thread. The first sequence's Error, if any, rethrows.
std::vector<int32_t> sample_each(std::vector<Slot>& active, std::span<const float> logits, size_t vocab) {
  std::vector<int32_t> ids(active.size());
  std::vector<std::exception_ptr> errors(active.size());
  const auto n = static_cast<int64_t>(active.size());
#pragma omp parallel for schedule(static) if (n > 1)
  for (int64_t c = 0; c < n; ++c) {
    const auto i = static_cast<size_t>(c);
    try {
      ids[i] = active[i].sampler.sample(logits.subspan(i * vocab, vocab), active[i].history);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return ids;
}

}  // namespace

BatchGenerator::BatchGenerator(const Engine& engine, const GeneratorOptions& options, size_t max_batch,
                               Forward* forward)
    : engine_(engine),
      options_(options),
      forward_(forward != nullptr ? *forward : engine.forward(options.forward)),
      max_batch_(max_batch),
      context_(context_tokens(options, engine.model().config())),
      cache_(kv_cache_config(options, engine.model().config(), max_batch)) {
  if (max_batch == 0) throw Error("batch: the batch size must be at least 1");
}

BatchRun BatchGenerator::run(std::span<const GenerateRequest> requests, std::span<const double> arrival_ms,
                             BatchClock* clock_in, const std::function<void()>& after_step) {
  if (!arrival_ms.empty() && arrival_ms.size() != requests.size())
    throw Error("batch: " + std::to_string(arrival_ms.size()) + " arrival times for " +
                std::to_string(requests.size()) + " requests");
  const Tokenizer& tok = engine_.tokenizer();
  SteadyBatchClock steady;
  BatchClock& clock = clock_in != nullptr ? *clock_in : steady;
  const size_t vocab = engine_.model().config().vocab;
  // Every request is checked before anything runs.
  std::vector<std::vector<int32_t>> prompts;
  std::vector<double> tokenize_ms;
  for (size_t i = 0; i < requests.size(); ++i) {
    const GenerateRequest& r = requests[i];
    const auto t0 = Clock::now();
    if (r.beam_width > 0) throw Error("batch: request " + std::to_string(i) + " asks for beam search, which is not batched");
    if (r.max_new_tokens == 0) throw Error("batch: request " + std::to_string(i) + " generates no tokens");
    r.sampling.validate();
    prompts.push_back(r.prompt_ids.empty() ? tok.encode(r.prompt, r.add_bos) : r.prompt_ids);
    tokenize_ms.push_back(ms_since(t0));
    const size_t need = prompts.back().size() + r.max_new_tokens - 1;  // the last token needs no position
    if (prompts.back().empty() || need > context_)
      throw Error("batch: request " + std::to_string(i) + " needs " + std::to_string(need) +
                  " positions but a sequence's context holds " + std::to_string(context_));
  }
  std::vector<size_t> order(requests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto arrival = [&](size_t i) { return arrival_ms.empty() ? 0.0 : arrival_ms[i]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return arrival(a) < arrival(b); });
  std::deque<size_t> waiting(order.begin(), order.end());

  BatchRun out;
  out.results.resize(requests.size());
  const size_t n_layers = engine_.model().config().n_layers;
  out.prefill_ops = OpProfile(n_layers);
  out.decode_ops = OpProfile(n_layers);
  OpProfile step_ops(n_layers);
  std::vector<Slot> active;
  size_t reserved_blocks = 0;  // blocks the active requests will need in all
  auto blocks_of = [&](size_t i) { return cache_.blocks_for(prompts[i].size() + requests[i].max_new_tokens - 1); };
  clock.start();
  // What after_step throws ends the run with the cache as it found it.
  struct FreeOnThrow {
    PagedKvCache& cache;
    std::vector<Slot>& active;
    ~FreeOnThrow() {
      if (std::uncaught_exceptions() > 0)
        for (const Slot& s : active) cache.free_sequence(s.seq);
    }
  } free_on_throw{cache_, active};

  while (!waiting.empty() || !active.empty()) {
    // Admit arrived requests while a slot is free and the cache holds them.
    const double admit_ms = clock.now_ms();
    while (!waiting.empty() && active.size() < max_batch_ && arrival(waiting.front()) <= admit_ms &&
           reserved_blocks + blocks_of(waiting.front()) <= cache_.pool().capacity_blocks()) {
      const size_t i = waiting.front();
      waiting.pop_front();
      reserved_blocks += blocks_of(i);
      Slot s{i, cache_.create_sequence(), Sampler(requests[i].sampling), prompts[i], std::nullopt,
             prompts[i].size(), false, arrival(i)};
      s.decoder.emplace(tok);
      for (int32_t id : prompts[i]) s.decoder->push(id);  // so the first new token decodes after the prompt
      out.results[i].prompt_ids = prompts[i];
      out.results[i].timings.tokenize_ms = tokenize_ms[i];
      active.push_back(std::move(s));
    }
    if (active.empty()) {  // nothing in flight: wait for the next arrival
      clock.wait_until_ms(arrival(waiting.front()));
      if (after_step) after_step();
      continue;
    }
    std::vector<SequenceChunk> chunks;
    size_t prefill_tokens = 0;
    for (const Slot& s : active) {
      chunks.push_back(s.prefilled ? SequenceChunk{s.seq, std::span(&s.history.back(), 1)}
                                   : SequenceChunk{s.seq, std::span(s.history)});
      if (!s.prefilled) prefill_tokens += s.history.size();
    }
    step_ops.reset();
    const double step_start = clock.now_ms();
    const auto logits = forward_.run(cache_, chunks, false, &step_ops);
    std::vector<int32_t> ids;
    {
      ScopedOp op(&step_ops, Op::Sampling, -1);
      ids = sample_each(active, logits, vocab);
    }
    const double now = clock.now_ms();
    std::vector<Slot> still;
    for (size_t c = 0; c < active.size(); ++c) {
      Slot& s = active[c];
      const GenerateRequest& r = requests[s.index];
      GenerationResult& res = out.results[s.index];
      const int32_t id = ids[c];
      if (!s.prefilled) {
        res.timings.queue_ms = step_start - s.arrival_ms;
        res.timings.ttft_ms = now - s.arrival_ms;
        res.timings.prefill_ms = now - step_start;
      } else {
        res.timings.step_ms.push_back(now - s.last_token_ms);
      }
      s.prefilled = true;
      s.last_token_ms = now;
      const bool stop = !r.ignore_stop && ends_generation(tok, id);
      if (!stop) {
        res.ids.push_back(id);
        s.history.push_back(id);
        res.text += s.decoder->push(id);
      }
      const bool done = stop || res.ids.size() == r.max_new_tokens;
      if (!done) {
        still.push_back(std::move(s));
        continue;
      }
      res.stop_reason = stop ? "end_of_generation" : "length";
      res.text += s.decoder->flush();
      res.timings.e2e_ms = now - s.arrival_ms;
      res.timings.decode_ms = res.timings.e2e_ms - res.timings.ttft_ms;
      cache_.free_sequence(s.seq);
      reserved_blocks -= blocks_of(s.index);
    }
    out.step_ms.push_back(clock.now_ms() - step_start);
    (prefill_tokens > 0 ? out.prefill_ops : out.decode_ops).merge(step_ops);
    out.step_batch.push_back(active.size());
    out.step_prefill_tokens.push_back(prefill_tokens);
    active = std::move(still);
    if (after_step) after_step();
  }
  out.wall_ms = clock.now_ms();
  return out;
}

}  // namespace pdbench
