// The continuous-batching scheduler on a simulated clock and a fake forward
// pass whose cost is known: arrivals, admission and queueing delay come out
// exactly.
#include <gtest/gtest.h>

#include <vector>

#include "engine/runtime/batch_generator.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

// Costs kStepMs per step plus kPrefillTokenMs per prompt token it prefills
// (the tests' prompts have at least two tokens, and a prompt's last chunk too),
// on the simulated clock; every logit is 0, so greedy sampling picks id 0.
class FakeForward : public Forward {
 public:
  static constexpr double kStepMs = 2;
  static constexpr double kPrefillTokenMs = 1;

  FakeForward(SimulatedBatchClock& clock, size_t vocab) : clock_(clock), vocab_(vocab) {}

  std::span<const float> run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool,
                             OpProfile*) override {
    reserve_positions(cache, chunks, vocab_);
    double cost = kStepMs;
    // A prompt's chunk: more than one token, or its first.
    for (const SequenceChunk& c : chunks)
      if (c.tokens.size() > 1 || cache.length(c.seq) == 1)
        cost += kPrefillTokenMs * static_cast<double>(c.tokens.size());
    clock_.advance(cost);
    logits_.assign(chunks.size() * vocab_, 0.0f);
    return logits_;
  }

 private:
  SimulatedBatchClock& clock_;
  size_t vocab_;
  std::vector<float> logits_;
};

GenerateRequest request(size_t prompt_tokens, size_t new_tokens) {
  GenerateRequest r;
  r.prompt_ids.assign(prompt_tokens, 5);
  r.prompt_ids.front() = 1;  // BOS
  r.max_new_tokens = new_tokens;
  r.sampling.temperature = 0;
  r.ignore_stop = true;
  return r;
}

// One field of every step of a run.
std::vector<size_t> step_field(const BatchRun& run, size_t BatchStepRecord::*field) {
  std::vector<size_t> out;
  for (const BatchStepRecord& s : run.steps) out.push_back(s.*field);
  return out;
}

struct Fixture {
  Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  SimulatedBatchClock clock;
  FakeForward forward{clock, engine.model().config().vocab};

  BatchRun run(size_t slots, const std::vector<GenerateRequest>& requests, const std::vector<double>& arrivals) {
    return batcher(slots).run(requests, arrivals, &clock);
  }

  BatchGenerator batcher(size_t slots) {
    GeneratorOptions options;
    options.context = 64;
    return BatchGenerator(engine, options, slots, &forward);
  }
};

// One slot: B arrives at 5 while A (prefill 4 tokens + 2 ms, then two
// decode steps of 2 ms) runs until 10, and waits for it.
TEST(BatchSchedule, OneSlotQueuesTheSecondRequestUntilTheFirstEnds) {
  Fixture f;
  const BatchRun run = f.run(1, {request(4, 3), request(2, 2)}, {0, 5});
  const Timings& a = run.results[0].timings;
  const Timings& b = run.results[1].timings;
  EXPECT_DOUBLE_EQ(a.queue_ms, 0);
  EXPECT_DOUBLE_EQ(a.ttft_ms, 6);
  EXPECT_DOUBLE_EQ(a.e2e_ms, 10);
  EXPECT_EQ(a.step_ms, (std::vector<double>{2, 2}));
  EXPECT_DOUBLE_EQ(b.queue_ms, 5);        // arrives at 5, first step at 10
  EXPECT_DOUBLE_EQ(b.prefill_ms, 4);      // 2 prompt tokens + 2
  EXPECT_DOUBLE_EQ(b.ttft_ms, 9);         // 14 - 5
  EXPECT_DOUBLE_EQ(b.e2e_ms, 11);         // 16 - 5
  EXPECT_DOUBLE_EQ(run.wall_ms, 16);
  EXPECT_EQ(step_field(run, &BatchStepRecord::batch), (std::vector<size_t>{1, 1, 1, 1, 1}));
  EXPECT_EQ(step_field(run, &BatchStepRecord::waiting), (std::vector<size_t>{0, 1, 1, 0, 0}));
}

// Two slots: B joins the step after its arrival, prefilled beside A's decode
// token (a mixed step), and both decode together after.
TEST(BatchSchedule, ALateArrivalJoinsTheNextStepBesideTheDecoding) {
  Fixture f;
  const BatchRun run = f.run(2, {request(4, 4), request(3, 2)}, {0, 5});
  const Timings& b = run.results[1].timings;
  EXPECT_DOUBLE_EQ(b.queue_ms, 1);   // A's first step ends at 6
  EXPECT_DOUBLE_EQ(b.ttft_ms, 6);    // 6 + 3 prompt tokens + 2 = 11
  EXPECT_DOUBLE_EQ(b.e2e_ms, 8);     // 13 - 5
  EXPECT_DOUBLE_EQ(run.results[0].timings.step_ms[0], 5);  // A's token in the mixed step
  EXPECT_EQ(step_field(run, &BatchStepRecord::batch), (std::vector<size_t>{1, 2, 2, 1}));
  EXPECT_EQ(step_field(run, &BatchStepRecord::prefill_tokens), (std::vector<size_t>{4, 3, 0, 0}));
}

// A prefill chunk of 4: B's 6-token prompt runs over two steps beside A's
// decode tokens, so A's gaps shrink (6 then 4, not 8) and B's TTFT grows;
// B's queueing ends at the step that starts its prompt.
TEST(BatchSchedule, AChunkedPromptRunsOverStepsBesideTheDecoding) {
  Fixture f;
  BatchGenerator batch = f.batcher(2);
  batch.set_prefill_chunk(4);
  const std::vector<GenerateRequest> requests{request(4, 4), request(6, 2)};
  const BatchRun run = batch.run(requests, std::vector<double>{0, 5}, &f.clock);
  const Timings& a = run.results[0].timings;
  const Timings& b = run.results[1].timings;
  EXPECT_EQ(a.step_ms, (std::vector<double>{6, 4, 2}));
  EXPECT_DOUBLE_EQ(b.queue_ms, 1);      // its first chunk starts at 6
  EXPECT_DOUBLE_EQ(b.prefill_ms, 10);   // steps 6..12 and 12..16
  EXPECT_DOUBLE_EQ(b.ttft_ms, 11);      // 16 - 5
  EXPECT_DOUBLE_EQ(b.e2e_ms, 13);       // 18 - 5
  EXPECT_EQ(step_field(run, &BatchStepRecord::prefill_tokens), (std::vector<size_t>{4, 4, 2, 0}));
  EXPECT_EQ(step_field(run, &BatchStepRecord::batch), (std::vector<size_t>{1, 2, 2, 2}));
  EXPECT_GT(run.steps[2].kv_blocks, 0u);
  EXPECT_EQ(run.steps.back().kv_blocks, 0u);  // both done, every block free
}

// Nothing in flight: the run waits for the arrival, which costs no
// queueing delay; a request arriving at once with a free slot waits none.
TEST(BatchSchedule, AnIdleRunWaitsForTheNextArrival) {
  Fixture f;
  const BatchRun run = f.run(2, {request(2, 1), request(2, 1)}, {100, 0});
  EXPECT_DOUBLE_EQ(run.results[0].timings.queue_ms, 0);
  EXPECT_DOUBLE_EQ(run.results[1].timings.queue_ms, 0);
  EXPECT_DOUBLE_EQ(run.results[0].timings.ttft_ms, 4);
  EXPECT_DOUBLE_EQ(run.wall_ms, 104);
}

// Requests arriving together take the free slots in arrival order; the
// rest queue for the first slot to free up.
TEST(BatchSchedule, SlotsGoInArrivalOrder) {
  Fixture f;
  const BatchRun run = f.run(2, {request(2, 1), request(2, 1), request(2, 1)}, {0, 0, 0});
  EXPECT_DOUBLE_EQ(run.results[0].timings.queue_ms, 0);
  EXPECT_DOUBLE_EQ(run.results[1].timings.queue_ms, 0);
  EXPECT_DOUBLE_EQ(run.results[2].timings.queue_ms, 6);  // the first step: 2 + 2x2 prompt tokens
  EXPECT_DOUBLE_EQ(run.results[2].timings.ttft_ms, 10);
}

// A stop between steps (the runner's interruption) ends the run with every
// sequence freed, and the next run has the whole cache.
TEST(BatchSchedule, WhatAfterStepThrowsEndsTheRunWithTheCacheFree) {
  Fixture f;
  BatchGenerator batch = f.batcher(2);
  const std::vector<GenerateRequest> requests{request(4, 8), request(4, 8), request(4, 8)};
  const std::vector<double> at_once{0, 0, 0};
  size_t steps = 0;
  EXPECT_THROW(batch.run(requests, at_once, &f.clock, [&] {
    if (++steps == 3) throw std::runtime_error("stop");
  }),
               std::runtime_error);
  EXPECT_EQ(batch.cache().pool().free_blocks(), batch.cache().pool().capacity_blocks());
  EXPECT_EQ(batch.run(requests, at_once, &f.clock).results[2].ids.size(), 8u);
}

}  // namespace
}  // namespace pdbench
