// Soak (scripts/soak.sh; DISABLED_ so ctest skips it): 2,000 mixed
// requests through continuous batching, in 20 waves on one BatchGenerator.
// After every wave each KV block is free again and the resident set has
// not grown past the first wave's (under AddressSanitizer, the allocator's
// live bytes); every request gets the tokens it gets alone, greedy or
// sampled.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <tuple>

#include "engine/runtime/batch_generator.h"
#include "tests/support/test_paths.h"

#if defined(__SANITIZE_ADDRESS__)
// libasan exports it; GCC 12 ships no header for it.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace pdbench {
namespace {

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer keeps freed memory in a quarantine (256 MiB by default)
// before reuse, so the resident set grows by design until it is full; the
// allocator's live bytes are what a leak would grow.
size_t memory_in_use() { return __sanitizer_get_current_allocated_bytes(); }
#else
// Resident pages of this process, in bytes (/proc/self/statm's second field).
size_t memory_in_use() {
  std::ifstream statm("/proc/self/statm");
  size_t total = 0, resident = 0;
  statm >> total >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}
#endif

const char* const kPrompts[] = {
    "Once upon a time",  "Lily and Tom went to the park", "The cat sat on the mat and looked at the bird",
    "One day",           "Tim had a big red ball. He liked to play with it every day", "The sun was hot",
    "Sue and her mom",   "There was a little dog named Max who loved to run and jump in the grass",
};
constexpr size_t kLengths[] = {1, 3, 16, 48};

// Request i of the soak: prompt, length and sampling cycle at different
// periods, so neighbours in a batch differ; one in three samples, seeded.
GenerateRequest soak_request(size_t i) {
  GenerateRequest r;
  r.prompt = kPrompts[i % std::size(kPrompts)];
  r.max_new_tokens = kLengths[(i / 3) % std::size(kLengths)];
  if (i % 3 == 2) {
    r.sampling.temperature = 0.9f;
    r.sampling.seed = i % 5;
  }
  return r;
}

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
    EXPECT_LE(memory, first_wave_memory + (size_t{8} << 20)) << "wave " << wave << ": memory in use grew";
  }
}

}  // namespace
}  // namespace pdbench
