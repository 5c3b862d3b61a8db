// The reference forward pass against llama2.c run.c on real trained models:
// greedy ids and text exactly, logits within 1e-4.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/model/reference_forward.h"
#include "engine/runtime/generator.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

struct ModelFiles {
  std::string name;
  std::string model;
  std::string tokenizer;  // "" = from the GGUF
  std::string reference_dir;
};

std::vector<ModelFiles> stories_files() {
  const std::string ref = test::data_path("stories260K-reference");
  return {{"gguf", test::model_path("stories260K.gguf"), "", ref},
          {"bin", test::model_path("stories260K.bin"), test::model_path("tok512.bin"), ref}};
}

// Greedy generation as run.c does it: `steps` positions in all, so
// steps + 1 - prompt length new tokens; run.c prints the prompt, then the
// generated text, then a newline.
// Both forward passes must reproduce it: the reference by construction, the
// fast one because its f32 kernels only reorder sums.
void expect_matches_greedy_reference(const ModelFiles& files, const std::string& greedy_jsonl) {
  const Engine engine = Engine::load(files.model, files.tokenizer);
  for (const ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast})
  for (const auto& ref : test::read_jsonl(greedy_jsonl)) {
    GeneratorOptions options;
    options.forward = kind;
    Generator generator(engine, options);
    SCOPED_TRACE(files.name + (kind == ForwardKind::Fast ? " fast" : " reference") + " prompt '" +
                 ref["prompt"].get<std::string>() + "'");
    const auto ref_prompt_ids = ref["prompt_ids"].get<std::vector<int32_t>>();
    const auto ref_ids = ref["ids"].get<std::vector<int32_t>>();
    GenerateRequest request;
    request.prompt = ref["prompt"].get<std::string>();
    request.sampling.temperature = 0.0f;
    request.max_new_tokens = ref["steps"].get<size_t>() + 1 - ref_prompt_ids.size();
    std::string printed;
    const GenerationResult r = generator.generate(request, [&](std::string_view t) { printed += t; });

    EXPECT_EQ(r.prompt_ids, ref_prompt_ids);
    std::vector<int32_t> all = r.prompt_ids;
    all.insert(all.end(), r.ids.begin(), r.ids.end());
    EXPECT_EQ(all, ref_ids);
    EXPECT_EQ(printed + "\n", ref["text"].get<std::string>());
  }
}

TEST(ReferenceModel, Stories260KGreedyMatchesLlama2c) {
  for (const auto& files : stories_files())
    expect_matches_greedy_reference(files, files.reference_dir + "/greedy.jsonl");
}

TEST(ReferenceModel, AiDreams260KGreedyMatchesLlama2c) {
  const std::string dir = test::shared_path("models/aidreams260K");
  if (dir.empty()) GTEST_SKIP() << "shared data folder absent: aidreams260K is read from it (licence unconfirmed)";
  expect_matches_greedy_reference({"bin", dir + "/aidreams260K.bin", dir + "/tok512-aidreams.bin", dir + "/reference"},
                                  dir + "/reference/greedy.jsonl");
}

// Feeds each reference input token one position at a time and compares the
// full logits row, for both forward passes.
void expect_logits_match(const std::string& model, const std::string& tokenizer, const std::string& logits_jsonl) {
  const Engine engine = Engine::load(model, tokenizer);
  const ModelConfig& c = engine.model().config();
  for (const ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast}) {
  SCOPED_TRACE(kind == ForwardKind::Fast ? "fast" : "reference");
  PagedKvCache cache(kv_cache_config(c, KvType::F32, KvType::F32, 16, 64));
  const SequenceId seq = cache.create_sequence();
  for (const auto& row : test::read_jsonl(logits_jsonl)) {
    const auto token = row["input_token"].get<int32_t>();
    ASSERT_EQ(cache.length(seq), row["pos"].get<size_t>());
    const SequenceChunk chunk{seq, std::span(&token, 1)};
    const auto logits = engine.forward(kind).run(cache, std::span(&chunk, 1), false, nullptr);
    const auto want = row["logits"].get<std::vector<float>>();
    ASSERT_EQ(logits.size(), want.size());
    float worst = 0;
    for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(logits[i] - want[i]));
    EXPECT_LE(worst, 1e-4f) << "position " << row["pos"];
  }
  }
}

TEST(ReferenceModel, Stories260KLogitsMatchLlama2c) {
  for (const auto& files : stories_files())
    expect_logits_match(files.model, files.tokenizer, files.reference_dir + "/logits_greedy_first8.jsonl");
}

TEST(ReferenceModel, AiDreams260KLogitsMatchLlama2c) {
  const std::string dir = test::shared_path("models/aidreams260K");
  if (dir.empty()) GTEST_SKIP() << "shared data folder absent";
  expect_logits_match(dir + "/aidreams260K.bin", dir + "/tok512-aidreams.bin",
                      dir + "/reference/logits_greedy_first4.jsonl");
}

// Prefill runs the prompt through each layer together; its logits at every
// position must equal those of feeding the tokens one at a time (the
// reference exactly; the fast path within rounding of its GEMMs).
TEST(ReferenceModel, PrefillEqualsTokenByTokenDecode) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  const ModelConfig& c = engine.model().config();
  const std::vector<int32_t> tokens = engine.tokenizer().encode("Lily and Tom went to the park", true);
  for (const ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast}) {
    SCOPED_TRACE(kind == ForwardKind::Fast ? "fast" : "reference");
    PagedKvCache cache(kv_cache_config(c, KvType::F32, KvType::F32, 16, 64));
    const SequenceId together = cache.create_sequence();
    const SequenceChunk prompt{together, tokens};
    const auto all = engine.forward(kind).run(cache, std::span(&prompt, 1), true, nullptr);
    const std::vector<float> prefill(all.begin(), all.end());
    const SequenceId one_by_one = cache.create_sequence();
    for (size_t t = 0; t < tokens.size(); ++t) {
      const SequenceChunk chunk{one_by_one, std::span(&tokens[t], 1)};
      const auto logits = engine.forward(kind).run(cache, std::span(&chunk, 1), false, nullptr);
      for (size_t i = 0; i < c.vocab; ++i) {
        if (kind == ForwardKind::Reference)
          ASSERT_EQ(logits[i], prefill[t * c.vocab + i]) << "pos " << t << " id " << i;
        else
          ASSERT_NEAR(logits[i], prefill[t * c.vocab + i], 1e-4) << "pos " << t << " id " << i;
      }
    }
  }
}

TEST(ReferenceModel, PromptLongerThanContextIsAnError) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  GeneratorOptions options;
  options.context = 4;
  Generator generator(engine, options);
  GenerateRequest request;
  request.prompt = "Once upon a time there was a cat";
  try {
    generator.generate(request);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("context"), std::string::npos) << e.what();
  }
}

TEST(ReferenceModel, StopsWhenTheContextIsFull) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  GeneratorOptions options;
  options.context = 8;
  Generator generator(engine, options);
  GenerateRequest request;
  request.prompt = "Once upon a time";  // 5 tokens with BOS
  request.sampling.temperature = 0.0f;
  request.max_new_tokens = 100;
  const GenerationResult r = generator.generate(request);
  EXPECT_EQ(r.stop_reason, "context_full");
  EXPECT_EQ(r.prompt_ids.size() + r.ids.size(), 9u);  // 8 positions run, the 9th token sampled
}

TEST(ReferenceModel, SameSeedSameTokens) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  Generator generator(engine);
  GenerateRequest request;
  request.prompt = "Once upon a time";
  request.sampling.temperature = 1.0f;
  request.sampling.seed = 7;
  request.max_new_tokens = 40;
  const auto a = generator.generate(request).ids;
  const auto b = generator.generate(request).ids;
  EXPECT_EQ(a, b);
  request.sampling.seed = 8;
  EXPECT_NE(generator.generate(request).ids, a);
}

TEST(ReferenceModel, BeamWidthOneIsGreedy) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  Generator generator(engine);
  GenerateRequest request;
  request.prompt = "Once upon a time";
  request.sampling.temperature = 0.0f;
  request.max_new_tokens = 30;
  const auto greedy = generator.generate(request);
  request.beam_width = 1;
  const auto beam = generator.generate(request);
  EXPECT_EQ(beam.ids, greedy.ids);
  EXPECT_EQ(beam.text, greedy.text);
  request.beam_width = 4;
  const auto wide = generator.generate(request);
  EXPECT_FALSE(wide.ids.empty());
}

}  // namespace
}  // namespace pdbench
