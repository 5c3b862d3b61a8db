// llama-quantize's files of the trained stories260K-wide (tests/data/
// stories260K-wide/), each a mix of GGUF types, load and run on both forward
// passes. Its f32 file's greedy text is stories260K's (the folder's
// provenance), so stories260K's run.c reference says how far each
// quantization moves it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "engine/kernels/weight_format.h"
#include "engine/model/model.h"
#include "engine/runtime/generator.h"
#include "tests/support/stories_wide.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

using test::stories_wide_path;

// run.c's greedy ids of stories260K without a prompt, BOS first.
std::vector<int32_t> stories_greedy_ids() {
  return test::read_jsonl(test::data_path("stories260K-reference/greedy.jsonl"))[0]["ids"].get<std::vector<int32_t>>();
}

std::vector<int32_t> greedy_ids(const Engine& engine, ForwardKind kind, size_t n) {
  GeneratorOptions options;
  options.forward = kind;
  Generator generator(engine, options);
  GenerateRequest request;
  request.sampling.temperature = 0.0f;
  request.max_new_tokens = n;
  const GenerationResult r = generator.generate(request, [](std::string_view) {});
  std::vector<int32_t> all = r.prompt_ids;
  all.insert(all.end(), r.ids.begin(), r.ids.end());
  return all;
}

size_t common_prefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

class QuantizedStories : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (test::awaits_the_perplexity_work(GetParam())) GTEST_SKIP() << GetParam() << test::kAwaitsThePerplexityWork;
  }
};

constexpr size_t kTokens = 32;

// Every file generates on both passes, and stays stories260K's text for its
// first 3 tokens at least (Q2_K, the coarsest, leaves it there; most 4- to
// 6-bit mixes at the 21st token, where the f32 logits of the two best
// tokens are 0.13 apart). Every quantized format quantizes the activations
// (Q4_0-pure's fast pass parts from the reference at the 29th token here).
TEST_P(QuantizedStories, BothPassesGenerateStoriesText) {
  const Engine engine = Engine::load(stories_wide_path(GetParam()));
  const std::vector<int32_t> want = stories_greedy_ids();
  const std::vector<int32_t> reference = greedy_ids(engine, ForwardKind::Reference, kTokens);
  const std::vector<int32_t> fast = greedy_ids(engine, ForwardKind::Fast, kTokens);
  EXPECT_EQ(reference.size(), kTokens + 1);
  EXPECT_EQ(fast.size(), kTokens + 1);
  EXPECT_GE(common_prefix(reference, want), 4u);
  bool integer_kernels = false;
  for (const NamedTensor& t : engine.model().tensors())
    integer_kernels = integer_kernels || weight_format(t.type).activation != ActivationType::F32;
  EXPECT_TRUE(integer_kernels || fast == reference);
}

// Q8_0 gives the f32 greedy text (run.c's stories260K) throughout; Q6_K up
// to the near tie at the 21st token, where it takes the runner-up.
TEST(QuantizedStoriesText, Q8_0AndQ6_KKeepTheF32GreedyText) {
  const std::vector<int32_t> want = stories_greedy_ids();
  const Engine q6_k = Engine::load(stories_wide_path("stories260K-wide-Q6_K.gguf"));
  for (ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast})
    EXPECT_EQ(common_prefix(greedy_ids(q6_k, kind, kTokens), want), 21u);
  if (test::awaits_the_perplexity_work("stories260K-wide-Q8_0.gguf"))
    GTEST_SKIP() << "stories260K-wide-Q8_0.gguf" << test::kAwaitsThePerplexityWork;
  const Engine q8_0 = Engine::load(stories_wide_path("stories260K-wide-Q8_0.gguf"));
  for (ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast})
    EXPECT_EQ(common_prefix(greedy_ids(q8_0, kind, kTokens), want), kTokens + 1);
}

// A file is a set of tensors each with its own type: llama-quantize's
// medium mixes load with every type they hold.
TEST(QuantizedStoriesText, MixedFilesKeepEachTensorsType) {
  const auto types_of = [](const std::string& file) {
    const Model model = Model::load(stories_wide_path(file));
    std::set<TensorType> types;
    for (const NamedTensor& t : model.tensors()) types.insert(t.type);
    return types;
  };
  EXPECT_EQ(types_of("stories260K-wide-Q4_K_M.gguf"),
            (std::set<TensorType>{TensorType::F32, TensorType::Q4_K, TensorType::Q6_K}));
  EXPECT_EQ(types_of("stories260K-wide-Q3_K_M.gguf"),
            (std::set<TensorType>{TensorType::F32, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                                  TensorType::Q6_K}));
}

// Prefill on the fast pass stacks matrices of different types into one
// projection (Q3_K_M's layer 2: Q and K in Q3_K, V in Q5_K or Q4_K, each
// with its own kernels and, on AVX-512, its own lanes of the activation:
// 16 for Q3_K, 32 for the others), and every part keeps its own numerics:
// a prompt run as one prefill gives its last token what feeding the prompt
// a token at a time gives it, but for the order of attention's sums
// (observed 3e-7 of the logits' range).
TEST(QuantizedStoriesText, FastPrefillOfAMixMatchesItsDecode) {
  const Engine engine = Engine::load(stories_wide_path("stories260K-wide-Q3_K_M.gguf"));
  const LayerWeights& layer = engine.model().weights().layers[2];
  ASSERT_NE(layer.wq.type, layer.wv.type);
  const std::vector<int32_t> prompt = engine.tokenizer().encode("Once upon a time, there was a little girl", true);
  Forward& fast = engine.forward(ForwardKind::Fast);
  const auto fresh_cache = [&] {
    return PagedKvCache(kv_cache_config(engine.model().config(), KvType::F32, KvType::F32, 16, 64));
  };
  PagedKvCache prefill_cache = fresh_cache();
  SequenceChunk whole{prefill_cache.create_sequence(), prompt};
  const std::span<const float> prefilled = fast.run(prefill_cache, std::span(&whole, 1), false, nullptr);
  const std::vector<float> prefill(prefilled.begin(), prefilled.end());
  PagedKvCache decode_cache = fresh_cache();
  const SequenceId seq = decode_cache.create_sequence();
  std::vector<float> decode;
  for (int32_t id : prompt) {
    SequenceChunk one{seq, std::span(&id, 1)};
    const std::span<const float> out = fast.run(decode_cache, std::span(&one, 1), false, nullptr);
    decode.assign(out.begin(), out.end());
  }
  float diff = 0, scale = 0;
  for (size_t i = 0; i < prefill.size(); ++i) {
    diff = std::max(diff, std::abs(prefill[i] - decode[i]));
    scale = std::max(scale, std::abs(decode[i]));
  }
  EXPECT_LE(diff, 1e-5f * scale);
}

// The f32 file as well: its text is stories260K's throughout.
std::vector<std::string> every_file() {
  std::vector<std::string> files = test::stories_wide_quantized_files();
  files.push_back("stories260K-wide-f32.gguf");
  return files;
}

INSTANTIATE_TEST_SUITE_P(Stories260KWide, QuantizedStories, ::testing::ValuesIn(every_file()),
                         [](const ::testing::TestParamInfo<std::string>& file) {
                           return test::stories_wide_type(file.param);
                         });

}  // namespace
}  // namespace pdbench
