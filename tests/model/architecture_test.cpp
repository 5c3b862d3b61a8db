// What each architecture loads from a GGUF file, and what the loader
// refuses by name rather than run wrongly: tensors it would not read, RoPE
// scaling it does not implement.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "engine/model/model.h"
#include "engine/model/synthetic_model.h"
#include "engine/runtime/engine.h"
#include "tests/support/error_of.h"
#include "tests/support/gguf_rewrite.h"
#include "tests/support/test_paths.h"
#include "tests/support/tiny_model.h"

namespace pdbench {
namespace {

namespace fs = std::filesystem;

class Architectures : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("architectures"); }

  std::string write(const std::string& like, const std::string& name) {
    return write(like, preset_config(like), name);
  }
  std::string write(const std::string& like, const ModelConfig& config, const std::string& name) {
    const std::string path = dir_ + "/" + name + ".gguf";
    write_synthetic_model({like, config, TensorType::F32, 1, WeightStatistics::Trained}, path);
    return path;
  }

  std::string rewrite(const std::string& from, const std::string& name, const test::GgufEdits& edits) {
    const std::string path = dir_ + "/" + name + ".gguf";
    test::rewrite_gguf(from, path, edits);
    return path;
  }

  // The error names the file and says `what`.
  static void expect_refused(const std::string& path, const std::string& what) {
    const std::string error = test::error_of([&] { Model::load(path); });
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find(what), std::string::npos) << error;
  }

  std::string dir_;
};

// Logits of a short prompt through one forward pass.
std::vector<float> prompt_logits(const std::string& path, ForwardKind kind) {
  const Engine engine = Engine::load(path);
  PagedKvCache cache(kv_cache_config(engine.model().config(), KvType::F32, KvType::F32, 16, 64));
  const std::vector<int32_t> prompt{1, 300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 310};
  const SequenceChunk chunk{cache.create_sequence(), prompt};
  const auto logits = engine.forward(kind).run(cache, std::span(&chunk, 1), false, nullptr);
  return {logits.begin(), logits.end()};
}

// Llama 3.2's converter writes factor 32, low/high frequency factors 1/4,
// original context 8192: short wavelengths keep their frequency, long ones
// are divided by 32, those between blend. (The preset's head size and
// theta, fewer and narrower layers.)
TEST_F(Architectures, Llama3RopeFreqsAreWrittenAndRead) {
  const Model m = Model::load(write("llama-3.2-1b", test::tiny_config("llama-3.2-1b", 128, 64, 256, 512), "llama-3.2"));
  EXPECT_EQ(m.config().llama3_rope_factor, 32.0f);
  const std::span<const float> divisors = m.weights().rope_freqs;
  ASSERT_EQ(divisors.size(), 32u);
  EXPECT_EQ(divisors.front(), 1.0f);
  EXPECT_EQ(divisors.back(), 32.0f);
  EXPECT_TRUE(std::is_sorted(divisors.begin(), divisors.end()));
  EXPECT_TRUE(std::any_of(divisors.begin(), divisors.end(), [](float d) { return d > 1 && d < 32; }));
}

// Both passes read the divisors: without them the same file gives other logits.
TEST_F(Architectures, RopeFreqsChangeTheLogitsOfBothPasses) {
  const std::string with = write("tiny-llama-3", "with");
  const std::string without = rewrite(with, "without", {{}, [](const std::string& name, std::span<std::byte> bytes) {
                                        if (name != "rope_freqs.weight") return;
                                        for (size_t i = 0; i < bytes.size(); i += sizeof(float)) test::poke(bytes, i, 1.0f);
                                      }});
  for (const ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast})
    EXPECT_NE(prompt_logits(with, kind), prompt_logits(without, kind));
}

// A copy of the file with one more f32 tensor of n zeros.
void add_vector(const std::string& from, const std::string& to, const std::string& name, size_t n) {
  const gguf::GgufFile in = gguf::GgufFile::open(from);
  gguf::GgufWriter out(in.alignment());
  for (const auto& [key, value] : in.metadata()) out.set(key, value);
  for (const gguf::TensorInfo& t : in.tensors())
    out.add_tensor(t.name, t.type, t.shape, std::vector<std::byte>(t.data, t.data + t.size_bytes));
  out.add_tensor(name, TensorType::F32, {n}, std::vector<std::byte>(n * sizeof(float)));
  out.write(to);
}

TEST_F(Architectures, UnreadTensorsAreRefusedByName) {
  const std::string path = dir_ + "/bias.gguf";
  add_vector(write("tiny-llama-3", "base"), path, "blk.0.attn_output.bias", 64);
  expect_refused(path, "tensor blk.0.attn_output.bias is not part of the llama model");
}

// YaRN changes more than the angle's scale: refused by its key. Linear
// scaling is read from rope.scaling.factor, or the older rope.scale_linear,
// whatever the type says (llama.cpp's freq_scale); 0 is none.
TEST_F(Architectures, RopeScalingFromMetadata) {
  const std::string base = write("tiny-llama-3", "base");
  expect_refused(rewrite(base, "yarn", {{{"llama.rope.scaling.type", gguf::Value::str("yarn")}}, {}}),
                 "RoPE scaling type (llama.rope.scaling.type) = yarn is not supported");
  const auto factor_of = [&](const std::string& name, const test::GgufEdits& edits) {
    return Model::load(rewrite(base, name, edits)).config().layer_rope(0).position_scale;
  };
  EXPECT_EQ(factor_of("linear", {{{"llama.rope.scaling.type", gguf::Value::str("linear")},
                                  {"llama.rope.scaling.factor", gguf::Value::f32(4.0f)}},
                                 {}}),
            0.25f);
  EXPECT_EQ(factor_of("old-key", {{{"llama.rope.scale_linear", gguf::Value::f32(2.0f)}}, {}}), 0.5f);
  EXPECT_EQ(factor_of("zero", {{{"llama.rope.scaling.factor", gguf::Value::f32(0.0f)}}, {}}), 1.0f);
  EXPECT_EQ(factor_of("none", {{{"llama.rope.scaling.type", gguf::Value::str("none")}}, {}}), 1.0f);
  expect_refused(rewrite(base, "negative", {{{"llama.rope.scale_linear", gguf::Value::f32(-2.0f)}}, {}}),
                 "RoPE scaling factor (llama.rope.scale_linear) = -2");
}

// Gemma 3's sliding layers as llama.cpp reads them: the file's window,
// pattern and sliding RoPE base; 0 for the window is none (every layer
// global, rotating with the global base); the pattern's default, 6, makes
// both of 2 layers slide.
TEST_F(Architectures, Gemma3SlidingLayersFollowTheFile) {
  const std::string base = write("tiny-gemma3", "base");
  const ModelConfig c = Model::load(base).config();
  EXPECT_EQ(c.layer_window(0), 32u);
  EXPECT_EQ(c.layer_rope(0).theta, 1e4f);
  EXPECT_EQ(c.layer_window(1), 0u);
  EXPECT_EQ(c.layer_rope(1).theta, 1e6f);
  const ModelConfig none = Model::load(rewrite(base, "no-window", {{{"gemma3.attention.sliding_window", gguf::Value::u32(0)}}, {}})).config();
  EXPECT_FALSE(none.is_sliding(0) || none.is_sliding(1));
  EXPECT_EQ(none.layer_rope(0).theta, 1e6f);
  const ModelConfig every = Model::load(rewrite(base, "pattern-6", {{{"gemma3.attention.sliding_window_pattern", gguf::Value::u32(6)}}, {}})).config();
  EXPECT_TRUE(every.is_sliding(0) && every.is_sliding(1));
}

// A pattern given as one flag per layer (true: sliding), as llama.cpp's
// converters write it for newer Gemmas, names each layer's kind: the flags
// of period 6 run as the period does, swapped flags run otherwise (both
// passes), and an array of another length or element type is refused by
// its key.
TEST_F(Architectures, SlidingPatternArrayNamesEachLayer) {
  const std::string base = write("tiny-gemma3", "base");
  const std::string key = "gemma3.attention.sliding_window_pattern";
  const auto with_flags = [&](const std::string& name, const std::vector<bool>& flags) {
    return rewrite(base, name, {{{key, gguf::Value::bools(flags)}}, {}});
  };
  const std::string same = with_flags("same-as-period", {true, false});
  const std::string swapped = with_flags("swapped", {false, true});
  const ModelConfig c = Model::load(swapped).config();
  EXPECT_FALSE(c.is_sliding(0));
  EXPECT_TRUE(c.is_sliding(1));
  EXPECT_EQ(c.layer_window(1), 32u);
  EXPECT_EQ(c.layer_rope(1).theta, 1e4f);
  EXPECT_EQ(c.layer_rope(0).theta, 1e6f);
  for (ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast}) {
    EXPECT_EQ(prompt_logits(same, kind), prompt_logits(base, kind));
    EXPECT_NE(prompt_logits(swapped, kind), prompt_logits(base, kind));
  }
  expect_refused(with_flags("three", {true, true, false}),
                 "sliding window pattern (" + key + ") = 3 flags: expected one flag per layer (2)");
  expect_refused(rewrite(base, "ints", {{{key, gguf::Value::i32s({1, 0})}}, {}}),
                 "metadata " + key + ": expected an array of bools");
}

// Gemma 3 4B and up scale their global layers' RoPE linearly by 8 and
// leave the sliding ones alone; Gemma 2's sliding layers take the global
// scaling too (llama.cpp's freq_scale_swa); without sliding layers every
// layer is global.
TEST_F(Architectures, LinearRopeScalingOfGemmaLayers) {
  const test::GgufEdits linear{{{"gemma3.rope.scaling.type", gguf::Value::str("linear")},
                                {"gemma3.rope.scaling.factor", gguf::Value::f32(8.0f)}},
                               {}};
  const std::string gemma3 = rewrite(write("tiny-gemma3", "base"), "linear", linear);
  const ModelConfig c = Model::load(gemma3).config();
  EXPECT_EQ(c.layer_rope(0).position_scale, 1.0f);  // sliding
  EXPECT_EQ(c.layer_rope(1).position_scale, 0.125f);
  const ModelConfig global = Model::load(rewrite(gemma3, "no-window", {{{"gemma3.attention.sliding_window", gguf::Value::u32(0)}}, {}})).config();
  EXPECT_EQ(global.layer_rope(0).position_scale, 0.125f);
  const ModelConfig gemma2 = Model::load(rewrite(write("tiny-gemma2", "gemma2"), "gemma2-linear",
                                                 {{{"gemma2.rope.scaling.factor", gguf::Value::f32(8.0f)}}, {}}))
                                 .config();
  EXPECT_EQ(gemma2.layer_rope(0).position_scale, 0.125f);
  EXPECT_EQ(gemma2.layer_rope(1).position_scale, 0.125f);
}

// llama.cpp's gemma2 always reads its head from the token embedding and
// would fail on a file with output.weight: so does pdbench, by name.
TEST_F(Architectures, Gemma2OutputWeightIsRefused) {
  const std::string path = dir_ + "/gemma2-output.gguf";
  add_vector(write("tiny-gemma2", "base"), path, "output.weight", 512 * 512);
  expect_refused(path, "tensor output.weight is not part of the gemma2 model");
}

TEST_F(Architectures, RopeFreqsMustBePositive) {
  const std::string path = rewrite(write("tiny-llama-3", "base"), "zero", {{}, [](const std::string& name, std::span<std::byte> bytes) {
                                     if (name == "rope_freqs.weight") test::poke(bytes, 4, 0.0f);
                                   }});
  expect_refused(path, "tensor rope_freqs.weight: divisor 0");
}

// phi3 fuses Q, K, V into attn_qkv and gate, up into ffn_up: the loader's
// views are those tensors' rows in that order, used in place.
TEST_F(Architectures, Phi3FusedTensorsAreViewedInPlace) {
  const Model m = Model::load(write("tiny-phi3", "phi3"));
  const ModelConfig& c = m.config();
  EXPECT_TRUE(c.fused_projections);
  const LayerWeights& l = m.weights().layers[0];
  EXPECT_EQ(l.wq.rows, static_cast<int64_t>(c.q_dim()));
  EXPECT_EQ(l.wk.data, l.wq.data + l.wq.bytes());
  EXPECT_EQ(l.wv.data, l.wk.data + l.wk.bytes());
  EXPECT_EQ(l.wv.rows, static_cast<int64_t>(c.kv_dim()));
  EXPECT_EQ(l.w_gate.rows, static_cast<int64_t>(c.ffn_dim));
  EXPECT_EQ(l.w_up.data, l.w_gate.data + l.w_gate.bytes());
  const auto bound = [&](const std::string& name) {
    return std::count_if(m.tensors().begin(), m.tensors().end(), [&](const NamedTensor& t) { return t.name == name; });
  };
  EXPECT_EQ(bound("blk.0.attn_qkv.weight"), 1);
  EXPECT_EQ(bound("blk.0.ffn_up.weight"), 1);
  EXPECT_EQ(bound("blk.0.attn_q.weight"), 0);
}

// Phi-3 128k files carry LongRoPE factors, which are not implemented.
TEST_F(Architectures, LongRopeFactorsAreRefusedByName) {
  const std::string path = dir_ + "/longrope.gguf";
  add_vector(write("tiny-phi3", "base"), path, "rope_factors_long.weight", 64);
  expect_refused(path, "tensor rope_factors_long.weight: LongRoPE scaling (Phi-3 128k) is not supported");
}

}  // namespace
}  // namespace pdbench
