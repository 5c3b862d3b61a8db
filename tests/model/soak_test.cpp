// Soak (scripts/soak.sh; DISABLED_ so ctest skips it): 2,000 mixed
// requests through continuous batching, in 20 waves on one BatchGenerator.
// After every wave each KV block is free again and the heap's live bytes
// have not grown past the first wave's (tests/support/soak.h); every request
// gets the tokens it gets alone, greedy or sampled.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "engine/runtime/batch_generator.h"
#include "tests/support/soak.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

using test::memory_in_use;
using test::soak_request;

TEST(Soak, DISABLED_TwoThousandMixedRequestsReturnTheirBlocksAndKeepTheirTokens) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  GeneratorOptions options;
  options.context = 128;
  BatchGenerator batch(engine, options, 8);
  Generator alone(engine, options);
  std::map<std::tuple<std::string, size_t, float, uint64_t>, std::vector<int32_t>> alone_ids;
  constexpr size_t kWaves = 20, kPerWave = 100;
  size_t first_wave_memory = 0;
  for (size_t wave = 0; wave < kWaves; ++wave) {
    std::vector<GenerateRequest> requests;
    std::vector<double> arrival_ms;
    for (size_t i = 0; i < kPerWave; ++i) {
      requests.push_back(soak_request(wave * kPerWave + i));
      arrival_ms.push_back(0.05 * static_cast<double>(i % 10));  // some join mid-run
    }
    const BatchRun run = batch.run(requests, arrival_ms);
    ASSERT_EQ(run.results.size(), kPerWave);
    const KvBlockPool& pool = batch.cache().pool();
    ASSERT_EQ(pool.free_blocks(), pool.capacity_blocks()) << "wave " << wave;
    for (size_t i = 0; i < kPerWave; ++i) {
      const GenerateRequest& r = requests[i];
      const auto key = std::tuple(r.prompt, r.max_new_tokens, r.sampling.temperature, r.sampling.seed);
      if (!alone_ids.contains(key)) alone_ids[key] = alone.generate(r).ids;
      ASSERT_EQ(run.results[i].ids, alone_ids[key]) << "wave " << wave << " request " << i;
    }
    const size_t memory = memory_in_use();
    if (wave == 0) first_wave_memory = memory;
    EXPECT_LE(memory, first_wave_memory + test::kSoakMemorySlack) << "wave " << wave << ": memory in use grew";
  }
}

}  // namespace
}  // namespace pdbench
