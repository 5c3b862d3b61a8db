// The per-tensor types of make-model's --type values: the rules give
// llama-quantize's own choices on its files of stories260K-wide, fall back
// as it does on rows of other lengths, and every value writes a file the
// engine loads and generates from.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <string>

#include "engine/format/gguf.h"
#include "engine/model/model.h"
#include "engine/model/quant_mix.h"
#include "engine/model/synthetic_model.h"
#include "engine/util/error.h"
#include "tests/support/greedy.h"
#include "tests/support/stories_wide.h"
#include "tests/support/test_name.h"
#include "tests/support/test_paths.h"
#include "tests/support/tiny_model.h"

namespace pdbench {
namespace {

namespace fs = std::filesystem;
using T = TensorType;

// "q4_k_m" for stories260K-wide-Q4_K_M.gguf, "q4_0-pure" for -Q4_0-pure.
std::string mix_name_of(const std::string& file) {
  std::string name = file.substr(std::string("stories260K-wide-").size());
  name.resize(name.size() - std::string(".gguf").size());
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

MixModel mix_model_of(const gguf::GgufFile& f) {
  const auto heads = f.get_uint("llama.attention.head_count"), kv = f.get_uint("llama.attention.head_count_kv");
  return {f.get_uint("llama.block_count"), heads / kv, f.find_tensor("output.weight") == nullptr, false};
}

class LlamaQuantizeMix : public ::testing::TestWithParam<std::string> {};

// Every matrix of llama-quantize's file has the type the mix gives it
// (stories260K-wide: 5 layers, 2 query heads per KV head, its own LM head).
TEST_P(LlamaQuantizeMix, GivesEachTensorLlamaQuantizesType) {
  const std::string file = GetParam();
  if (test::awaits_the_perplexity_work(file)) GTEST_SKIP() << file << test::kAwaitsThePerplexityWork;
  const auto f = gguf::GgufFile::open(test::stories_wide_path(file));
  const QuantMix mix = quant_mix(mix_name_of(file));
  const MixModel model = mix_model_of(f);
  EXPECT_EQ(f.get_uint("general.file_type"), static_cast<uint64_t>(mix.file_type));
  size_t matrices = 0;
  for (const gguf::TensorInfo& t : f.tensors()) {
    if (t.shape.size() < 2) continue;
    ++matrices;
    EXPECT_EQ(traits(t.type).name, traits(mix_tensor_type(mix, model, t.name, t.shape[0])).name) << t.name;
  }
  EXPECT_EQ(matrices, 37u);
}

// What results call the weights: the mix the file's general.file_type
// names, or for a --pure file its one type.
TEST_P(LlamaQuantizeMix, WeightTypesLabelNamesTheMix) {
  const std::string file = GetParam();
  if (test::awaits_the_perplexity_work(file)) GTEST_SKIP() << file << test::kAwaitsThePerplexityWork;
  std::string expected = mix_name_of(file);
  if (expected.ends_with("-pure")) expected.resize(expected.size() - std::string("-pure").size());
  EXPECT_EQ(weight_types_label(Model::load(test::stories_wide_path(file))), expected);
}

std::vector<std::string> every_file() {
  std::vector<std::string> files = test::stories_wide_quantized_files();
  files.push_back("stories260K-wide-f32.gguf");
  return files;
}

INSTANTIATE_TEST_SUITE_P(Stories260KWide, LlamaQuantizeMix, ::testing::ValuesIn(every_file()),
                         [](const auto& param_info) { return test::stories_wide_type(param_info.param); });

// Llama-3.2-1B's shape (16 layers, 4 query heads per KV head, tied): the
// rows are whole K-quant blocks, so the rules alone decide.
TEST(QuantMixRules, Llama1BShape) {
  const MixModel m = mix_model(preset_config("llama-3.2-1b"));
  ASSERT_EQ(m.n_gqa, 4u);
  const QuantMix q4_k_m = quant_mix("q4_k_m");
  EXPECT_EQ(mix_tensor_type(q4_k_m, m, "token_embd.weight", 2048), T::Q6_K);  // tied: the LM head's rule
  EXPECT_EQ(mix_tensor_type(q4_k_m, m, "blk.5.attn_q.weight", 2048), T::Q4_K);
  // use_more_bits at 16 layers: 0, 1, 14, 15 and every third from 4.
  for (size_t layer = 0; layer < 16; ++layer) {
    const bool more = layer < 2 || layer >= 14 || layer % 3 == 1;
    const std::string b = "blk." + std::to_string(layer) + ".";
    EXPECT_EQ(mix_tensor_type(q4_k_m, m, b + "attn_v.weight", 2048), more ? T::Q6_K : T::Q4_K) << layer;
    EXPECT_EQ(mix_tensor_type(q4_k_m, m, b + "ffn_down.weight", 8192), more ? T::Q6_K : T::Q4_K) << layer;
  }
  // n_gqa >= 4 gives the 2- and 4-bit mixes' attn_v more bits.
  EXPECT_EQ(mix_tensor_type(quant_mix("q2_k"), m, "blk.3.attn_v.weight", 2048), T::Q4_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("iq4_xs"), m, "blk.3.attn_v.weight", 2048), T::Q5_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("iq4_xs"), m, "blk.1.ffn_down.weight", 8192), T::Q5_K);  // 1 < 16 / 8
  EXPECT_EQ(mix_tensor_type(quant_mix("iq4_xs"), m, "blk.2.ffn_down.weight", 8192), T::IQ4_XS);
  EXPECT_EQ(mix_tensor_type(quant_mix("q3_k_m"), m, "blk.1.attn_v.weight", 2048), T::Q5_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("q3_k_m"), m, "blk.2.attn_v.weight", 2048), T::Q4_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("q3_k_m"), m, "blk.0.ffn_down.weight", 8192), T::Q5_K);  // 0 < 16 / 16
  EXPECT_EQ(mix_tensor_type(quant_mix("q3_k_m"), m, "blk.1.ffn_down.weight", 8192), T::Q4_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("q3_k_l"), m, "blk.9.attn_output.weight", 2048), T::Q5_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_k_s"), m, "blk.3.attn_v.weight", 2048), T::Q5_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_k_s"), m, "blk.4.attn_v.weight", 2048), T::Q4_K);
  // q8_0 keeps its LM head; every other quantized mix puts it in q6_K.
  EXPECT_EQ(mix_tensor_type(quant_mix("q8_0"), m, "token_embd.weight", 2048), T::Q8_0);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_0"), m, "token_embd.weight", 2048), T::Q6_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_0-pure"), m, "token_embd.weight", 2048), T::Q4_0);
  EXPECT_EQ(mix_tensor_type(quant_mix("f16"), m, "token_embd.weight", 2048), T::F16);
}

// SmolLM2-135M's 576-wide rows are not whole 256-blocks: those tensors take
// a 32-block type (the LM head q8_0), as tensor_type_fallback does.
TEST(QuantMixRules, RowsOfOtherLengthsFallBack) {
  const MixModel m = mix_model(preset_config("smollm2-135m"));
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_k_m"), m, "token_embd.weight", 576), T::Q8_0);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_k_m"), m, "blk.3.attn_q.weight", 576), T::Q5_0);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_k_m"), m, "blk.0.ffn_down.weight", 1536), T::Q6_K);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_k_m"), m, "blk.0.attn_v.weight", 576), T::Q8_0);  // q6_K's fallback
  EXPECT_EQ(mix_tensor_type(quant_mix("q2_k"), m, "blk.3.attn_q.weight", 576), T::Q4_0);
  EXPECT_EQ(mix_tensor_type(quant_mix("q5_k_s"), m, "blk.3.attn_q.weight", 576), T::Q5_1);
  EXPECT_EQ(mix_tensor_type(quant_mix("iq4_xs"), m, "blk.3.attn_q.weight", 576), T::IQ4_NL);
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_k"), m, "blk.3.attn_q.weight", 576), T::Q5_0);  // pure falls back too
  EXPECT_EQ(mix_tensor_type(quant_mix("q4_0"), m, "blk.3.attn_q.weight", 100), T::F16);  // not even 32-blocks
}

TEST(QuantMixNames, SingleTypesAndPureFiles) {
  EXPECT_EQ(QuantMix(T::Q4_0).name, "q4_0-pure");
  EXPECT_EQ(QuantMix(T::Q4_K).name, "q4_k");
  EXPECT_EQ(QuantMix(T::F16).name, "f16");
  EXPECT_TRUE(quant_mix("q4_0-pure").pure);
  EXPECT_FALSE(quant_mix("q4_0").pure);
  EXPECT_EQ(quant_mix("q4_k").base, T::Q4_K);
  for (const std::string& name : quant_mix_names()) EXPECT_EQ(quant_mix(name).name, name);
  EXPECT_THROW(quant_mix("q4_k-pure"), Error);
}

class EveryMix : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { dir_ = test::temp_dir("mix"); }
  std::string dir_;
};

// Rows of 256 (the K-quants' blocks) and 8 layers, so the rules move some
// tensors; the file loads with those types and both passes generate.
TEST_P(EveryMix, WritesAFileTheEngineLoadsAndGeneratesFrom) {
  ModelConfig config = test::tiny_config("llama-3.2-1b", 256, 64, 512, 512);
  config.n_layers = 8;
  const SyntheticSpec spec{"tiny", config, quant_mix(GetParam()), 1};
  const std::string path = dir_ + "/" + GetParam() + ".gguf";
  write_synthetic_model(spec, path);
  const Engine engine = Engine::load(path);
  const MixModel m = mix_model(config);
  for (const gguf::TensorInfo& t : engine.model().gguf()->tensors()) {
    if (t.shape.size() < 2) continue;
    EXPECT_EQ(t.type, mix_tensor_type(spec.mix, m, t.name, t.shape[0])) << t.name;
  }
  EXPECT_EQ(engine.model().gguf()->get_string("general.name"), "synthetic tiny " + GetParam());
  for (const ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast})
    EXPECT_FALSE(test::generate_greedy(engine, kind, "hello", 4).ids.empty());
}

INSTANTIATE_TEST_SUITE_P(QuantMix, EveryMix, ::testing::ValuesIn(quant_mix_names()), test::StringParamName());

}  // namespace
}  // namespace pdbench
