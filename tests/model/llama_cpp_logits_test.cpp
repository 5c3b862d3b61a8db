// Each architecture against llama.cpp: the tiny-* synthetic presets,
// written here as make-model writes them (f32, trained statistics, seed 1),
// against the logits and greedy tokens llama.cpp computed for the same file
// (tests/data/llama.cpp-logits, PROVENANCE.md there).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/model/synthetic_model.h"
#include "engine/runtime/engine.h"
#include "tests/support/gguf_rewrite.h"
#include "tests/support/logits_error.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

namespace fs = std::filesystem;

struct Position {
  bool prompt;
  int32_t token;              // the input at this position
  std::vector<float> logits;  // the output there; empty where not logged
};

std::vector<Position> llama_cpp_positions(const std::string& like) {
  std::vector<Position> rows;
  for (const auto& row : test::read_jsonl(test::data_path("llama.cpp-logits/" + like + ".jsonl")))
    rows.push_back({row["prompt"].get<bool>(), row["token"].get<int32_t>(),
                    row.contains("logits") ? row["logits"].get<std::vector<float>>() : std::vector<float>{}});
  return rows;
}

using test::relative_error;

int32_t argmax(std::span<const float> logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// The prompt as one chunk (logits at every position), then each of
// llama.cpp's greedy tokens alone, as the fixture's tool ran them: the
// largest relative_error over the logged positions. With check_tokens, each
// greedy token must also be the engine's own argmax.
float worst_error(const std::string& path, ForwardKind kind, const std::vector<Position>& want, bool check_tokens) {
  const Engine engine = Engine::load(path);
  const size_t vocab = engine.model().config().vocab;
  std::vector<int32_t> prompt;
  for (const Position& p : want)
    if (p.prompt) prompt.push_back(p.token);
  PagedKvCache cache(kv_cache_config(engine.model().config(), KvType::F32, KvType::F32, 16, want.size() + 16));
  const SequenceId seq = cache.create_sequence();
  SequenceChunk chunk{seq, prompt};
  auto logits = engine.forward(kind).run(cache, std::span(&chunk, 1), true, nullptr);
  float worst = 0;
  for (size_t pos = 0; pos < prompt.size(); ++pos)
    if (!want[pos].logits.empty())
      worst = std::max(worst, relative_error(logits.subspan(pos * vocab, vocab), want[pos].logits));
  std::vector<float> last(logits.end() - static_cast<ptrdiff_t>(vocab), logits.end());
  for (size_t pos = prompt.size(); pos < want.size(); ++pos) {
    if (check_tokens) {
      EXPECT_EQ(argmax(last), want[pos].token) << "greedy token at position " << pos;
    }
    const int32_t next = want[pos].token;
    chunk = {seq, std::span(&next, 1)};
    logits = engine.forward(kind).run(cache, std::span(&chunk, 1), false, nullptr);
    worst = std::max(worst, relative_error(logits, want[pos].logits));
    last.assign(logits.begin(), logits.end());
  }
  return worst;
}

// Bounds, relative to the largest logit. Both engines compute in f32 with
// an f32 KV cache, so only the order of sums and llama.cpp's RoPE angles
// (theta by repeated products, not powers) differ: the reference pass is
// held to kReferenceBound (observed 1.3e-6 on tiny-llama-3). The fast pass
// adds its own reordering (forward_test.cpp: 1e-5 of the reference for f32
// weights), so it gets twice as much.
constexpr float kReferenceBound = 5e-6f;
constexpr float kFastBound = 1e-5f;
// Without the feature the reference pass must miss llama.cpp's logits by
// more than this many reference bounds, or the comparison would not test
// the feature (tiny-llama-3 without rope_freqs: 3.5e-5, 7 bounds).
constexpr float kFeatureMargin = 4;

// The fixture file, and a copy without the architecture's feature (`strip`
// patches its tensors).
void expect_matches_llama_cpp(const std::string& like, const std::string& feature, const test::GgufEdits& strip) {
  const std::string dir = test::temp_dir("llama-cpp-" + like);
  const std::string path = dir + "/" + like + ".gguf";
  write_synthetic_model({like, preset_config(like), TensorType::F32, 1, WeightStatistics::Trained}, path);
  const std::vector<Position> want = llama_cpp_positions(like);
  const float reference = worst_error(path, ForwardKind::Reference, want, true);
  const float fast = worst_error(path, ForwardKind::Fast, want, true);
  EXPECT_LE(reference, kReferenceBound) << like << " reference";
  EXPECT_LE(fast, kFastBound) << like << " fast";
  const std::string stripped = dir + "/without-" + feature + ".gguf";
  test::rewrite_gguf(path, stripped, strip);
  const float without = worst_error(stripped, ForwardKind::Reference, want, false);
  EXPECT_GT(without, kFeatureMargin * kReferenceBound) << like << " without " << feature;
  // The errors themselves in --gtest_output=xml: how close, not only within.
  for (const auto& [key, error] : {std::pair{"reference_error", reference}, {"fast_error", fast},
                                   {"error_without_feature", without}}) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", static_cast<double>(error));
    ::testing::Test::RecordProperty(key, text);
  }
  fs::remove_all(dir);
}

void fill_ones(std::span<std::byte> bytes) {
  for (size_t i = 0; i < bytes.size(); i += sizeof(float)) test::poke(bytes, i, 1.0f);
}

TEST(LlamaCppLogits, Llama3WithRopeFreqs) {
  expect_matches_llama_cpp("tiny-llama-3", "rope-freqs", {{}, [](const std::string& name, std::span<std::byte> b) {
                             if (name == "rope_freqs.weight") fill_ones(b);
                           }});
}

// Qwen3's QK norm: the per-head RMSNorm of Q and K before RoPE; the
// stripped copy doubles the Q norm's weights.
TEST(LlamaCppLogits, Qwen3WithQkNorm) {
  expect_matches_llama_cpp("tiny-qwen3", "q-norm-doubled", {{}, [](const std::string& name, std::span<std::byte> b) {
                             if (name.ends_with("attn_q_norm.weight"))
                               for (size_t i = 0; i < b.size(); i += sizeof(float)) test::poke(b, i, 2.0f);
                           }});
}

// Phi-3's fused tensors: attn_qkv's rows are Q, K, V and ffn_up's are gate
// then up; the stripped copy swaps ffn_up's halves (SiLU on the up rows).
TEST(LlamaCppLogits, Phi3WithFusedProjections) {
  expect_matches_llama_cpp("tiny-phi3", "gate-up-swapped", {{}, [](const std::string& name, std::span<std::byte> b) {
                             const auto half = static_cast<ptrdiff_t>(b.size() / 2);
                             if (name.ends_with("ffn_up.weight")) std::swap_ranges(b.begin(), b.begin() + half, b.begin() + half);
                           }});
}

// Gemma 3: scaled embedding, QK norm, GeGLU, post norms, a sliding layer
// (window 32, RoPE base 1e4) and a global one (1e6); the stripped copy's
// window of 4096 lets the sliding layer see the whole prompt.
TEST(LlamaCppLogits, Gemma3WithSlidingWindow) {
  expect_matches_llama_cpp("tiny-gemma3", "sliding-window",
                           {{{"gemma3.attention.sliding_window", gguf::Value::u32(4096)}}, {}});
}

// Gemma 3 4B's linear RoPE scaling by 8 on the global layer (the sliding
// one unscaled); the stripped copy's factor of 1 scales neither.
TEST(LlamaCppLogits, Gemma3WithLinearRopeScaling) {
  expect_matches_llama_cpp("tiny-gemma3-linear-rope", "linear-rope",
                           {{{"gemma3.rope.scaling.factor", gguf::Value::f32(1.0f)}}, {}});
}

// Gemma 2: Gemma 3's layers without the QK norm, every other one sliding
// (window 32 here), attention scores and logits softcapped (at 0.25 and 300
// here, where they bend: synthetic_model.cpp); each stripped copy's softcap
// of 1e6 leaves its scores or its logits straight.
TEST(LlamaCppLogits, Gemma2WithFinalSoftcap) {
  expect_matches_llama_cpp("tiny-gemma2", "final-softcap",
                           {{{"gemma2.final_logit_softcapping", gguf::Value::f32(1e6f)}}, {}});
}

TEST(LlamaCppLogits, Gemma2WithAttentionSoftcap) {
  expect_matches_llama_cpp("tiny-gemma2", "attention-softcap",
                           {{{"gemma2.attn_logit_softcapping", gguf::Value::f32(1e6f)}}, {}});
}

}  // namespace
}  // namespace pdbench
