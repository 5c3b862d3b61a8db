// Continuous batching: every request gets exactly the tokens it gets alone,
// whatever joins or leaves around it.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/runtime/batch_generator.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

GenerateRequest request(const std::string& prompt, size_t max_new, float temperature = 0.0f, uint64_t seed = 0) {
  GenerateRequest r;
  r.prompt = prompt;
  r.max_new_tokens = max_new;
  r.sampling.temperature = temperature;
  r.sampling.seed = seed;
  return r;
}

// Four requests of different prompt lengths and output lengths, at most two
// at a time: the third and fourth join as the first two leave; one samples
// with its own temperature and seed.
std::vector<GenerateRequest> mixed_requests() {
  return {request("Once upon a time", 30), request("Lily and Tom went to the park", 12),
          request("The cat", 20, 1.0f, 7), request("One day, a little boy named Tim found a big red ball", 25)};
}

// The mixed requests at most two at a time, each against what it gets
// alone, on both passes; prefill_chunk as BatchScheduler's.
void expect_each_gets_what_it_gets_alone(size_t prefill_chunk) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  const auto requests = mixed_requests();
  for (const ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast}) {
    SCOPED_TRACE(kind == ForwardKind::Fast ? "fast" : "reference");
    GeneratorOptions options;
    options.forward = kind;
    options.context = 128;
    BatchGenerator batch(engine, options, 2);
    batch.set_prefill_chunk(prefill_chunk);
    const BatchRun run = batch.run(requests);
    Generator alone(engine, options);
    ASSERT_EQ(run.results.size(), requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      const GenerationResult want = alone.generate(requests[i]);
      EXPECT_EQ(run.results[i].ids, want.ids) << "request " << i;
      EXPECT_EQ(run.results[i].text, want.text) << "request " << i;
      EXPECT_EQ(run.results[i].stop_reason, want.stop_reason) << "request " << i;
    }
    // Never more than two in flight, and more than one at some step; a
    // step prefills at most the chunk.
    size_t most_in_flight = 0;
    for (const BatchStepRecord& s : run.steps) {
      most_in_flight = std::max(most_in_flight, s.batch);
      if (prefill_chunk > 0) {
        EXPECT_LE(s.prefill_tokens, prefill_chunk);
      }
    }
    EXPECT_EQ(most_in_flight, 2u);
  }
}

TEST(BatchGenerator, EachRequestGetsWhatItGetsAlone) { expect_each_gets_what_it_gets_alone(0); }

// A prompt prefilled over several steps (3 tokens a step, beside the other
// request's decode tokens) gives the same tokens as in one.
TEST(BatchGenerator, ChunkedPrefillGetsTheSameTokens) { expect_each_gets_what_it_gets_alone(3); }

// Steps that prefill any prompt go to the prefill profile, the others to
// decode: with every request arriving at once, one prefill step and a
// sampling call per request per step.
TEST(BatchGenerator, OpProfilesSplitPrefillStepsFromDecodeSteps) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  GeneratorOptions options;
  options.context = 64;
  BatchGenerator batch(engine, options, 3);
  std::vector<GenerateRequest> requests(3, request("Once upon a time", 5));
  for (auto& r : requests) r.ignore_stop = true;
  const BatchRun run = batch.run(requests);
  const size_t layers = engine.model().config().n_layers;
  EXPECT_EQ(run.prefill_ops.total(Op::QkvProjection).calls, layers);      // one step
  EXPECT_EQ(run.decode_ops.total(Op::QkvProjection).calls, 4 * layers);   // four more
  // Like the projections, a step samples its sequences in one op.
  EXPECT_EQ(run.prefill_ops.total(Op::Sampling).calls, 1u);
  EXPECT_EQ(run.decode_ops.total(Op::Sampling).calls, 4u);
  EXPECT_GT(run.decode_ops.total(Op::FfnGateUp).flops, 0.0);
}

TEST(BatchGenerator, LateArrivalsJoinAndCountTtftFromArrival) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  GeneratorOptions options;
  options.context = 128;
  BatchGenerator batch(engine, options, 4);
  const auto requests = mixed_requests();
  const std::vector<double> arrivals{0, 0, 30, 30};
  const BatchRun run = batch.run(requests, arrivals);
  EXPECT_GE(run.wall_ms, 30.0);
  Generator alone(engine, options);
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(run.results[i].ids, alone.generate(requests[i]).ids) << "request " << i;
    EXPECT_GE(run.results[i].timings.ttft_ms, 0.0);
    EXPECT_LE(run.results[i].timings.ttft_ms, run.wall_ms - arrivals[i]);
  }
}

TEST(BatchGenerator, RequestsThatCanNeverFitAreErrorsBeforeAnythingRuns) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  GeneratorOptions options;
  options.context = 16;
  BatchGenerator batch(engine, options, 2);
  const std::vector<GenerateRequest> requests{request("Once upon a time", 4), request("Once upon a time", 40)};
  try {
    batch.run(requests);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("request 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(BatchGenerator(engine, options, 0), Error);
}

}  // namespace
}  // namespace pdbench
