// Synthetic models: tiny specs written in every type load back with the
// shapes, metadata and tokenizer they were written with; presets carry the
// published hyperparameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "engine/format/gguf.h"
#include "engine/model/synthetic_model.h"
#include "engine/model/synthetic_vocab.h"
#include "engine/runtime/generator.h"
#include "engine/util/error.h"
#include "tests/support/greedy.h"
#include "tests/support/test_paths.h"
#include "tests/support/tiny_model.h"

namespace pdbench {
namespace {

namespace fs = std::filesystem;

constexpr TensorType kAllTypes[] = {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0,
                                    TensorType::Q4_0};

// A preset's architecture at a size that writes and runs in milliseconds.
// The qwen2 one has head_dim * heads != dim, so key_length is written too.
SyntheticSpec tiny_spec(const std::string& like, TensorType type, uint64_t seed = 1) {
  const size_t head_dim = preset_config(like).arch == Architecture::Qwen2 ? 32 : 16;
  return {"tiny-" + like, test::tiny_config(like, 64, head_dim, 96, 1024), type, seed};
}

void expect_same_config(const ModelConfig& got, const ModelConfig& want) {
  EXPECT_EQ(got.arch, want.arch);
  EXPECT_EQ(got.dim, want.dim);
  EXPECT_EQ(got.n_layers, want.n_layers);
  EXPECT_EQ(got.n_heads, want.n_heads);
  EXPECT_EQ(got.n_kv_heads, want.n_kv_heads);
  EXPECT_EQ(got.head_dim, want.head_dim);
  EXPECT_EQ(got.ffn_dim, want.ffn_dim);
  EXPECT_EQ(got.vocab, want.vocab);
  EXPECT_EQ(got.context_length, want.context_length);
  EXPECT_EQ(got.rope_dim, want.rope_dim);
  EXPECT_EQ(got.rope_theta, want.rope_theta);
  EXPECT_EQ(got.rope_style, want.rope_style);
  EXPECT_EQ(got.rms_eps, want.rms_eps);
  EXPECT_EQ(got.qkv_bias, want.qkv_bias);
  EXPECT_EQ(got.qk_norm, want.qk_norm);
  EXPECT_EQ(got.llama3_rope_factor, want.llama3_rope_factor);
  EXPECT_EQ(got.tied_output, want.tied_output);
  EXPECT_EQ(got.ffn_activation, want.ffn_activation);
  EXPECT_EQ(got.post_norms, want.post_norms);
  EXPECT_EQ(got.scaled_embedding, want.scaled_embedding);
  EXPECT_EQ(got.sliding_window, want.sliding_window);
  EXPECT_EQ(got.sliding_period, want.sliding_period);
  EXPECT_EQ(got.sliding_layers, want.sliding_layers);
  EXPECT_EQ(got.rope_theta_sliding, want.rope_theta_sliding);
  EXPECT_EQ(got.rope_linear_factor, want.rope_linear_factor);
  EXPECT_EQ(got.rope_linear_factor_sliding, want.rope_linear_factor_sliding);
  EXPECT_EQ(got.attention_scale, want.attention_scale);
  EXPECT_EQ(got.attn_softcap, want.attn_softcap);
  EXPECT_EQ(got.final_softcap, want.final_softcap);
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::span<const float> f32_values(const gguf::GgufFile& f, const std::string& name) {
  const gguf::TensorInfo& t = f.tensor(name);
  EXPECT_EQ(t.type, TensorType::F32) << name;
  return {reinterpret_cast<const float*>(t.data), t.n_elements()};
}

class Synthetic : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("synthetic"); }

  std::string write(const SyntheticSpec& spec, const std::string& name) {
    const std::string path = dir_ + "/" + name + ".gguf";
    write_synthetic_model(spec, path);
    return path;
  }

  std::string dir_;
};

TEST_F(Synthetic, EveryTypeLoadsBackWithItsConfig) {
  for (const std::string like : {"smollm2-135m", "qwen2.5-0.5b", "qwen3-0.6b", "llama-3.2-1b", "gemma-2-2b", "gemma-3-1b"}) {
    for (const TensorType type : kAllTypes) {
      const std::string type_name(traits(type).name);
      SCOPED_TRACE(like + " " + type_name);
      const SyntheticSpec spec = tiny_spec(like, type);
      const Model m = Model::load(write(spec, like + "-" + type_name));
      expect_same_config(m.config(), spec.config);
      const ModelWeights& w = m.weights();
      EXPECT_EQ(w.token_embedding.type, type);
      EXPECT_EQ(w.layers[1].w_down.type, type);
      EXPECT_EQ(w.output.data, w.token_embedding.data);  // tied
      EXPECT_EQ(w.layers[0].bq.size(), spec.config.qkv_bias ? spec.config.q_dim() : 0);
      EXPECT_EQ(w.layers[1].k_norm.size(), spec.config.qk_norm ? spec.config.head_dim : 0);
      EXPECT_EQ(w.layers[1].ffn_post_norm.size(), spec.config.post_norms ? spec.config.dim : 0);
      for (const float b : w.layers[1].bv) EXPECT_EQ(b, 0.0f);
      for (const float g : w.layers[1].ffn_norm) EXPECT_EQ(g, 1.0f);
      EXPECT_EQ(m.gguf()->get_string("general.name"), "synthetic tiny-" + like + " " + spec.mix.name);
    }
  }
}

TEST_F(Synthetic, FileTypeIsLlamaCppNumbering) {
  const std::pair<TensorType, uint64_t> expected[] = {
      {TensorType::F32, 0}, {TensorType::F16, 1}, {TensorType::Q4_0, 2}, {TensorType::Q8_0, 7}, {TensorType::BF16, 32}};
  for (const auto& [type, ftype] : expected) {
    const auto f = gguf::GgufFile::open(write(tiny_spec("smollm2-135m", type), "ftype"));
    EXPECT_EQ(f.get_uint("general.file_type"), ftype) << traits(type).name;
  }
}

TEST_F(Synthetic, UntiedOutputIsItsOwnTensor) {
  SyntheticSpec spec = tiny_spec("llama-3.1-8b", TensorType::Q8_0);
  ASSERT_FALSE(spec.config.tied_output);
  const Model m = Model::load(write(spec, "untied"));
  expect_same_config(m.config(), spec.config);
  ASSERT_NE(m.gguf()->find_tensor("output.weight"), nullptr);
  EXPECT_NE(m.weights().output.data, m.weights().token_embedding.data);
}

TEST_F(Synthetic, TokenizerRoundTripsAndGenerationRuns) {
  const SyntheticSpec spec = tiny_spec("qwen2.5-0.5b", TensorType::Q4_0);
  const Engine engine = Engine::load(write(spec, "tok"));
  const Tokenizer& tok = engine.tokenizer();
  ASSERT_EQ(tok.n_vocab(), 1024);
  EXPECT_EQ(tok.bos(), 1);
  EXPECT_EQ(tok.eos(), 2);
  for (const std::string text : {"hello world", "Hi, 42 caf\xc3\xa9!\n"}) {
    const std::vector<int32_t> ids = tok.encode(text, true);
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(ids[0], 1);
    EXPECT_EQ(tok.decode(ids), text);
  }
  // Lower-case words merge into multi-letter pieces.
  EXPECT_LT(tok.encode("hello world", false).size(), std::string("hello world").size());

  const GenerationResult r = test::generate_greedy(engine, ForwardKind::Fast, "hello", 4);
  EXPECT_FALSE(r.ids.empty());
  for (const int32_t id : r.ids) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, tok.n_vocab());
  }
}

TEST_F(Synthetic, SameSeedSameBytesOtherSeedOtherBytes) {
  const std::string a = file_bytes(write(tiny_spec("smollm2-135m", TensorType::Q4_0, 7), "a"));
  const std::string b = file_bytes(write(tiny_spec("smollm2-135m", TensorType::Q4_0, 7), "b"));
  const std::string c = file_bytes(write(tiny_spec("smollm2-135m", TensorType::Q4_0, 8), "c"));
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), c.size());
  EXPECT_NE(a, c);
}

TEST_F(Synthetic, WeightsAreNormalWithStd002) {
  const auto f = gguf::GgufFile::open(write(tiny_spec("smollm2-135m", TensorType::F32), "std"));
  for (const std::string name : {"token_embd.weight", "blk.1.ffn_down.weight"}) {
    SCOPED_TRACE(name);
    const std::span<const float> w = f32_values(f, name);
    double sum = 0, sum_sq = 0;
    size_t beyond_3_std = 0;
    for (const float x : w) {
      sum += x;
      sum_sq += double{x} * x;
      beyond_3_std += std::abs(x) > 0.06f;
    }
    const double n = static_cast<double>(w.size());
    const double mean = sum / n;
    EXPECT_NEAR(mean, 0.0, 0.001);
    EXPECT_NEAR(std::sqrt(sum_sq / n - mean * mean), 0.02, 0.002);
    // A normal puts 0.27% of its mass beyond 3 std; a uniform would put none.
    EXPECT_GT(static_cast<double>(beyond_3_std) / n, 0.001);
    EXPECT_LT(static_cast<double>(beyond_3_std) / n, 0.006);
  }
}

// Mean probability of the top next token over a prompt's positions (the
// reference pass): how peaked the model's distributions are.
double mean_top_probability(const std::string& path) {
  const Engine engine = Engine::load(path);
  const ModelConfig& c = engine.model().config();
  PagedKvCache cache(kv_cache_config(c, KvType::F32, KvType::F32, 16, 64));
  std::vector<int32_t> prompt{1};
  for (int32_t i = 0; i < 31; ++i) prompt.push_back(300 + 17 * i);
  const SequenceChunk chunk{cache.create_sequence(), prompt};
  const std::span<const float> logits = engine.forward(ForwardKind::Reference).run(cache, std::span(&chunk, 1), true, nullptr);
  double total = 0;
  for (size_t t = 0; t < prompt.size(); ++t) {
    const std::span<const float> row = logits.subspan(t * c.vocab, c.vocab);
    const float top = *std::max_element(row.begin(), row.end());
    double sum = 0;
    for (const float l : row) sum += std::exp(double{l} - top);
    total += 1.0 / sum;
  }
  return total / static_cast<double>(prompt.size());
}

// Trained statistics: every token's embedding carries the massive channels,
// and the next-token distributions are peaked, where random weights' are
// nearly flat (1 / vocab would be 0.001 here).
TEST_F(Synthetic, TrainedStatisticsHaveMassiveChannelsAndPeakedDistributions) {
  SyntheticSpec spec{"tiny", test::tiny_config("llama-3.2-1b", 256, 64, 512, 1024), TensorType::F32, 3};
  const std::string random = write(spec, "random");
  spec.statistics = WeightStatistics::Trained;
  const std::string trained = write(spec, "trained");
  const auto f = gguf::GgufFile::open(trained);
  const std::span<const float> embedding = f32_values(f, "token_embd.weight");
  const std::vector<size_t> massive = massive_channels(spec.config);
  ASSERT_EQ(massive.size(), 2u);
  EXPECT_NE(massive[0] / 32, massive[1] / 32) << "two blocks of 32";
  for (size_t token = 0; token < spec.config.vocab; ++token)
    for (size_t channel : massive) ASSERT_EQ(embedding[token * spec.config.dim + channel], 2.0f) << token;
  const double flat = mean_top_probability(random), peaked = mean_top_probability(trained);
  EXPECT_LT(flat, 0.01);  // observed 0.0035
  EXPECT_GT(peaked, 0.5);  // observed 0.71
}

TEST(SyntheticPreset, PublishedHyperparameters) {
  const ModelConfig smol = preset_config("smollm2-135m");
  EXPECT_EQ(smol.arch, Architecture::Llama);
  EXPECT_EQ(smol.dim, 576u);
  EXPECT_EQ(smol.n_layers, 30u);
  EXPECT_EQ(smol.n_heads, 9u);
  EXPECT_EQ(smol.n_kv_heads, 3u);
  EXPECT_EQ(smol.head_dim, 64u);
  EXPECT_EQ(smol.ffn_dim, 1536u);
  EXPECT_EQ(smol.vocab, 49152u);
  EXPECT_EQ(smol.context_length, 8192u);
  EXPECT_EQ(smol.rope_theta, 100000.0f);
  EXPECT_TRUE(smol.tied_output);

  const ModelConfig qwen = preset_config("qwen2.5-0.5b");
  EXPECT_EQ(qwen.arch, Architecture::Qwen2);
  EXPECT_TRUE(qwen.qkv_bias);
  EXPECT_EQ(qwen.rope_style, ref::RopeStyle::Neox);
  EXPECT_EQ(qwen.head_dim, 64u);
  EXPECT_EQ(qwen.kv_dim(), 128u);
  EXPECT_EQ(qwen.rms_eps, 1e-6f);

  const ModelConfig llama1b = preset_config("llama-3.2-1b");
  EXPECT_EQ(llama1b.head_dim, 64u);
  EXPECT_EQ(llama1b.context_length, 131072u);
  EXPECT_TRUE(llama1b.tied_output);

  const ModelConfig qwen3 = preset_config("qwen3-0.6b");
  EXPECT_EQ(qwen3.arch, Architecture::Qwen3);
  EXPECT_EQ(qwen3.head_dim, 128u);  // not dim / heads = 64
  EXPECT_EQ(qwen3.q_dim(), 2048u);
  EXPECT_TRUE(qwen3.qk_norm);
  EXPECT_FALSE(qwen3.qkv_bias);
  EXPECT_EQ(qwen3.rope_style, ref::RopeStyle::Neox);
  EXPECT_EQ(qwen3.rope_theta, 1e6f);
  EXPECT_TRUE(qwen3.tied_output);

  const ModelConfig phi3 = preset_config("phi-3-mini");
  EXPECT_EQ(phi3.arch, Architecture::Phi3);
  EXPECT_TRUE(phi3.fused_projections);
  EXPECT_EQ(phi3.head_dim, 96u);
  EXPECT_EQ(phi3.n_kv_heads, 32u);
  EXPECT_EQ(phi3.rope_style, ref::RopeStyle::Neox);
  EXPECT_FALSE(phi3.tied_output);

  // Gemma 3 1B's config.json: 5 sliding layers of window 512 (RoPE base
  // 10000) then a global one (1e6), 4 heads over 1 KV head of 256, GeGLU.
  const ModelConfig gemma3 = preset_config("gemma-3-1b");
  EXPECT_EQ(gemma3.arch, Architecture::Gemma3);
  EXPECT_EQ(gemma3.q_dim(), 1024u);  // not dim = 1152
  EXPECT_EQ(gemma3.kv_dim(), 256u);
  EXPECT_EQ(gemma3.vocab, 262144u);
  EXPECT_EQ(gemma3.context_length, 32768u);
  EXPECT_EQ(gemma3.ffn_activation, FfnActivation::GeGlu);
  EXPECT_TRUE(gemma3.qk_norm && gemma3.post_norms && gemma3.scaled_embedding && gemma3.tied_output);
  EXPECT_EQ(gemma3.rope_style, ref::RopeStyle::Neox);
  EXPECT_EQ(gemma3.attention_scale, 0.0f);  // 1 / sqrt(head_dim), query_pre_attn_scalar 256
  EXPECT_EQ(gemma3.final_softcap, 0.0f);
  for (size_t layer = 0; layer < gemma3.n_layers; ++layer) {
    const bool global = layer % 6 == 5;  // llama.cpp's set_swa_pattern(6)
    EXPECT_EQ(gemma3.layer_window(layer), global ? 0u : 512u) << layer;
    EXPECT_EQ(gemma3.layer_rope(layer).theta, global ? 1e6f : 1e4f) << layer;
    EXPECT_EQ(gemma3.layer_rope(layer).position_scale, 1.0f) << layer;
  }
  // Gemma 3 4B: the same pattern, window 1024, global layers' positions
  // scaled linearly by 1 / 8 (rope_scaling linear, factor 8), sliding ones not.
  const ModelConfig gemma3_4b = preset_config("gemma-3-4b");
  for (size_t layer = 0; layer < gemma3_4b.n_layers; ++layer) {
    const bool global = layer % 6 == 5;
    EXPECT_EQ(gemma3_4b.layer_window(layer), global ? 0u : 1024u) << layer;
    EXPECT_EQ(gemma3_4b.layer_rope(layer).position_scale, global ? 0.125f : 1.0f) << layer;
  }

  // Gemma 2 2B's config.json: every other layer slides (window 4096), one
  // RoPE base 10000, softcaps 50 (attention) and 30 (logits).
  const ModelConfig gemma2 = preset_config("gemma-2-2b");
  EXPECT_EQ(gemma2.arch, Architecture::Gemma2);
  EXPECT_EQ(gemma2.q_dim(), 2048u);  // not dim = 2304
  EXPECT_EQ(gemma2.kv_dim(), 1024u);
  EXPECT_FALSE(gemma2.qk_norm);
  EXPECT_TRUE(gemma2.post_norms && gemma2.scaled_embedding && gemma2.tied_output);
  EXPECT_EQ(gemma2.ffn_activation, FfnActivation::GeGlu);
  EXPECT_EQ(gemma2.attn_softcap, 50.0f);
  EXPECT_EQ(gemma2.final_softcap, 30.0f);
  for (size_t layer = 0; layer < gemma2.n_layers; ++layer) {
    EXPECT_EQ(gemma2.layer_window(layer), layer % 2 == 0 ? 4096u : 0u) << layer;  // set_swa_pattern(2)
    EXPECT_EQ(gemma2.layer_rope(layer).theta, 1e4f) << layer;
  }

  const ModelConfig llama8b = preset_config("llama-3.1-8b");
  EXPECT_EQ(llama8b.head_dim, 128u);
  EXPECT_EQ(llama8b.ffn_dim, 14336u);
  EXPECT_FALSE(llama8b.tied_output);
}

TEST(SyntheticPreset, ParameterCountsMatchTheModelCards) {
  EXPECT_EQ(parameter_count(preset_config("smollm2-135m")), 134'515'008u);
  EXPECT_EQ(parameter_count(preset_config("qwen2.5-0.5b")), 494'032'768u);
  EXPECT_EQ(parameter_count(preset_config("llama-3.2-1b")), 1'235'814'400u);
  EXPECT_EQ(parameter_count(preset_config("llama-3.1-8b")), 8'030'261'248u);
  EXPECT_EQ(parameter_count(preset_config("qwen3-0.6b")), 596'049'920u);
  EXPECT_EQ(parameter_count(preset_config("phi-3-mini")), 3'821'079'552u);
  EXPECT_EQ(parameter_count(preset_config("gemma-3-1b")), 999'885'952u);
  EXPECT_EQ(parameter_count(preset_config("gemma-2-2b")), 2'614'341'888u);
  for (const auto& name : synthetic_model_names()) {
    const ModelConfig c = preset_config(name);
    EXPECT_NO_THROW(validate(c, name, gguf_config_keys(c.arch)));
  }
}

TEST(SyntheticPreset, UnknownNamesListTheChoices) {
  try {
    preset_config("gpt-5");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("smollm2-135m, qwen2.5-0.5b, llama-3.2-1b, llama-3.1-8b"),
              std::string::npos)
        << e.what();
  }
  try {
    quant_mix("q9_k");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("f32, f16, bf16, q8_0, q4_0, q4_1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("q4_k_m"), std::string::npos) << e.what();
  }
}

TEST(SyntheticVocab, UniquePiecesOfExactSize) {
  for (const size_t n : {size_t{259}, size_t{260}, size_t{49152}, size_t{151936}}) {
    const SyntheticVocab v = synthetic_vocab(n);
    ASSERT_EQ(v.pieces.size(), n);
    ASSERT_EQ(v.scores.size(), n);
    ASSERT_EQ(v.types.size(), n);
    EXPECT_EQ(std::set<std::string>(v.pieces.begin(), v.pieces.end()).size(), n);
  }
  const SyntheticVocab v = synthetic_vocab(400);
  EXPECT_EQ(v.pieces[0], "<unk>");
  EXPECT_EQ(v.pieces[2], "</s>");
  EXPECT_EQ(v.pieces[3], "<0x00>");
  EXPECT_EQ(v.types[3 + 0x0A], 6);
  EXPECT_EQ(v.pieces[258], "<0xFF>");
  EXPECT_EQ(v.pieces[259], "\u2581");
  EXPECT_EQ(v.pieces[260], "a");
  EXPECT_EQ(v.pieces[286], "\u2581a");
  EXPECT_GT(v.scores[260], v.scores[286]);
  EXPECT_THROW(synthetic_vocab(258), Error);
}

// Added tokens end the vocabulary as control tokens, at the same size.
TEST(SyntheticVocab, AddedControlTokensComeLast) {
  const SyntheticVocab v = synthetic_vocab(400, {"<|endoftext|>", "<|end|>"});
  ASSERT_EQ(v.pieces.size(), 400u);
  EXPECT_EQ(v.pieces[398], "<|endoftext|>");
  EXPECT_EQ(v.pieces[399], "<|end|>");
  EXPECT_EQ(v.types[399], 3);
  EXPECT_EQ(v.pieces[397], synthetic_vocab(398).pieces[397]);
  EXPECT_EQ(synthetic_vocab(260, {"<|endoftext|>"}).pieces.back(), "<|endoftext|>");
  EXPECT_THROW(synthetic_vocab(259, {"<|endoftext|>"}), Error);
}

}  // namespace
}  // namespace pdbench
