#include "engine/model/synthetic_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <span>

#include "engine/format/gguf_writer.h"
#include "engine/kernels/quantize.h"
#include "engine/model/synthetic_vocab.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

// Published hyperparameters (each model's config.json); head size 0 means
// dim / heads. llama3_rope: rope_scaling.factor of a "llama3" rope_scaling
// (0: none). Gemma's sliding layers: sliding_window, of every
// sliding_window_pattern layers the last global, rope_local_base_freq
// (window 0: none); Gemma 2's logit softcaps, attention and final (0:
// none); linear_rope: rope_scaling.factor of a "linear" one, which Gemma 3
// puts on its global layers (0: none). The tiny-* rows are no published model: each
// architecture at a size whose logits llama.cpp's can be committed as test
// fixtures (tests/data/llama.cpp-logits); tiny-gemma3's window of 32 and
// pattern of 2 put a sliding and a global layer in its 2 and make the
// fixture's 104 positions reach past the window; so do tiny-gemma2's, whose
// softcaps, 0.25 and 300, bend its small scores and its logits near 265
// (trained statistics' massive channels through the tied head), where
// Gemma 2's 50 and 30 would leave the scores straight and flatten every
// logit to 30; tiny-gemma3-linear-rope is tiny-gemma3 with Gemma 3 4B's
// linear factor of 8 on its global layer.
struct Preset {
  std::string_view name;
  Architecture arch;
  size_t dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_dim, vocab, context_length;
  float rope_theta, rms_eps;
  bool tied_output;
  float llama3_rope;
  size_t window, period;
  float rope_theta_sliding, attn_softcap, final_softcap;
  float linear_rope;
};
constexpr std::array<Preset, 15> kPresets{{
    // name           arch                 dim   layers heads kv head ffn    vocab   context theta eps  tied llama3 window period local theta, softcaps, linear
    {"smollm2-135m", Architecture::Llama, 576, 30, 9, 3, 0, 1536, 49152, 8192, 1e5f, 1e-5f, true, 0, 0, 0, 0, 0, 0, 0},
    {"qwen2.5-0.5b", Architecture::Qwen2, 896, 24, 14, 2, 0, 4864, 151936, 32768, 1e6f, 1e-6f, true, 0, 0, 0, 0, 0, 0, 0},
    {"llama-3.2-1b", Architecture::Llama, 2048, 16, 32, 8, 0, 8192, 128256, 131072, 5e5f, 1e-5f, true, 32, 0, 0, 0, 0, 0, 0},
    {"llama-3.1-8b", Architecture::Llama, 4096, 32, 32, 8, 0, 14336, 128256, 131072, 5e5f, 1e-5f, false, 8, 0, 0, 0, 0, 0, 0},
    {"qwen3-0.6b", Architecture::Qwen3, 1024, 28, 16, 8, 128, 3072, 151936, 40960, 1e6f, 1e-6f, true, 0, 0, 0, 0, 0, 0, 0},
    {"gemma-2-2b", Architecture::Gemma2, 2304, 26, 8, 4, 256, 9216, 256000, 8192, 1e4f, 1e-6f, true, 0, 4096, 2, 1e4f, 50, 30, 0},
    {"gemma-3-1b", Architecture::Gemma3, 1152, 26, 4, 1, 256, 6912, 262144, 32768, 1e6f, 1e-6f, true, 0, 512, 6, 1e4f, 0, 0, 0},
    {"gemma-3-4b", Architecture::Gemma3, 2560, 34, 8, 4, 256, 10240, 262144, 131072, 1e6f, 1e-6f, true, 0, 1024, 6, 1e4f, 0, 0, 8},
    {"phi-3-mini", Architecture::Phi3, 3072, 32, 32, 32, 0, 8192, 32064, 4096, 1e4f, 1e-5f, false, 0, 0, 0, 0, 0, 0, 0},
    {"tiny-llama-3", Architecture::Llama, 512, 2, 4, 2, 128, 512, 512, 256, 5e5f, 1e-5f, false, 32, 0, 0, 0, 0, 0, 0},
    {"tiny-qwen3", Architecture::Qwen3, 512, 2, 4, 2, 128, 512, 512, 256, 1e6f, 1e-6f, false, 0, 0, 0, 0, 0, 0, 0},
    {"tiny-phi3", Architecture::Phi3, 512, 2, 4, 2, 0, 512, 512, 256, 1e4f, 1e-5f, false, 0, 0, 0, 0, 0, 0, 0},
    {"tiny-gemma2", Architecture::Gemma2, 512, 2, 4, 2, 128, 512, 512, 256, 1e4f, 1e-6f, true, 0, 32, 2, 1e4f, 0.25f, 300, 0},
    {"tiny-gemma3", Architecture::Gemma3, 512, 2, 4, 2, 128, 512, 512, 256, 1e6f, 1e-6f, true, 0, 32, 2, 1e4f, 0, 0, 0},
    {"tiny-gemma3-linear-rope", Architecture::Gemma3, 512, 2, 4, 2, 128, 512, 512, 256, 1e6f, 1e-6f, true, 0, 32, 2, 1e4f, 0, 0, 8},
}};

constexpr float kWeightStd = 0.02f;
// WeightStatistics::Trained: the massive channels' value in every token's
// embedding (100x the weights' std), and the final norm's gain over the
// model's width. The massive channels hold the residual's RMS at about
// kMassiveValue * sqrt(2 / dim), so the other channels leave the norm
// sqrt(dim) larger and the logits' spread grows as gain * dim: 4096 / dim
// puts the mean top next-token probability near 0.7 (tested at dim 256),
// a trained small model's, against 0.004 with random weights.
constexpr float kMassiveValue = 100 * kWeightStd;
constexpr float kTrainedGainTimesDim = 4096.0f;

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// splitmix64's finalizer. Hashing a counter with it makes the generator
// counter-based: any row's values can be computed alone, in any order.
constexpr uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

uint64_t row_key(uint64_t seed, uint64_t tensor, uint64_t row) {
  return mix64(mix64(mix64(seed) + tensor * kGolden) + row * kGolden);
}

// Standard normal quantiles at the midpoints of 2^16 equal-probability bins:
// 16 random bits index a draw from the normal distribution (truncated at 4.3
// std). Box-Muller's log, sqrt, sin and cos per pair took most of the write time.
const std::vector<float>& normal_quantiles() {
  static const std::vector<float> table = [] {
    constexpr size_t n = size_t{1} << 16;
    std::vector<float> t(n);
    for (size_t i = n / 2; i < n; ++i) {
      const double p = (static_cast<double>(i) + 0.5) / n;
      double lo = 0, hi = 10;  // bisection on the CDF: it runs once
      for (int step = 0; step < 48; ++step) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::numbers::sqrt2) < p ? lo : hi) = mid;
      }
      t[i] = static_cast<float>(0.5 * (lo + hi));
      t[n - 1 - i] = -t[i];
    }
    return t;
  }();
  return table;
}

// Four draws per 64-bit hash of (row key, position).
void fill_normal(std::span<float> out, uint64_t key, const std::vector<float>& quantiles, float stddev) {
  for (size_t i = 0; i < out.size(); i += 4) {
    uint64_t bits = mix64(key + i * kGolden);
    for (size_t j = i; j < std::min(i + 4, out.size()); ++j, bits >>= 16) out[j] = stddev * quantiles[bits & 0xffff];
  }
}

// Rows of normal values; `massive` columns (the token embedding of a
// Trained model) set to kMassiveValue before the row is quantized.
gguf::GgufWriter::FillRows random_rows(TensorType type, size_t cols, uint64_t seed, uint64_t tensor,
                                       std::vector<size_t> massive = {}) {
  return [=](uint64_t first_row, std::span<std::byte> out) {
    const std::vector<float>& quantiles = normal_quantiles();
    const size_t bytes = row_bytes(type, cols);
    const auto n_rows = static_cast<int64_t>(out.size() / bytes);
#pragma omp parallel
    {
      std::vector<float> row(cols);
#pragma omp for schedule(static)
      for (int64_t r = 0; r < n_rows; ++r) {
        fill_normal(row, row_key(seed, tensor, first_row + static_cast<uint64_t>(r)), quantiles, kWeightStd);
        for (size_t c : massive) row[c] = kMassiveValue;
        quantize_row(type, row.data(), out.data() + static_cast<size_t>(r) * bytes, cols);
      }
    }
  };
}

gguf::GgufWriter::FillRows constant_rows(float value) {
  return [value](uint64_t, std::span<std::byte> out) {
    const std::vector<float> values(out.size() / sizeof(float), value);
    std::memcpy(out.data(), values.data(), out.size());
  };
}

uint32_t u32(size_t v) { return static_cast<uint32_t>(v); }

// rope_freqs.weight as llama.cpp's converter computes it from a "llama3"
// rope_scaling (conversion/llama.py): wavelengths shorter than the original
// context / high_freq_factor keep their frequency, longer than context /
// low_freq_factor are divided by the factor, and those between blend the
// two. Llama 3.1 and 3.2 all use low 1, high 4, original context 8192.
std::vector<float> llama3_rope_divisors(const ModelConfig& c) {
  constexpr float kLowFreqFactor = 1, kHighFreqFactor = 4, kOriginalContext = 8192;
  const float factor = c.llama3_rope_factor;
  std::vector<float> divisors;
  for (size_t i = 0; i < c.rope_dim; i += 2) {
    const float freq = 1.0f / std::pow(c.rope_theta, static_cast<float>(i) / static_cast<float>(c.rope_dim));
    const float wavelen = 2 * std::numbers::pi_v<float> / freq;
    if (wavelen < kOriginalContext / kHighFreqFactor) {
      divisors.push_back(1);
    } else if (wavelen > kOriginalContext / kLowFreqFactor) {
      divisors.push_back(factor);
    } else {
      const float smooth = (kOriginalContext / wavelen - kLowFreqFactor) / (kHighFreqFactor - kLowFreqFactor);
      divisors.push_back(1 / ((1 - smooth) / factor + smooth));
    }
  }
  return divisors;
}

void set_hyperparameters(gguf::GgufWriter& w, const ModelConfig& c) {
  const std::string p = architecture_name(c.arch) + ".";
  w.set(p + "vocab_size", gguf::Value::u32(u32(c.vocab)));
  w.set(p + "context_length", gguf::Value::u32(u32(c.context_length)));
  w.set(p + "embedding_length", gguf::Value::u32(u32(c.dim)));
  w.set(p + "block_count", gguf::Value::u32(u32(c.n_layers)));
  w.set(p + "feed_forward_length", gguf::Value::u32(u32(c.ffn_dim)));
  w.set(p + "attention.head_count", gguf::Value::u32(u32(c.n_heads)));
  w.set(p + "attention.head_count_kv", gguf::Value::u32(u32(c.n_kv_heads)));
  if (c.head_dim != c.dim / c.n_heads) {  // readers assume dim / heads otherwise
    w.set(p + "attention.key_length", gguf::Value::u32(u32(c.head_dim)));
    w.set(p + "attention.value_length", gguf::Value::u32(u32(c.head_dim)));
  }
  w.set(p + "rope.dimension_count", gguf::Value::u32(u32(c.rope_dim)));
  w.set(p + "rope.freq_base", gguf::Value::f32(c.rope_theta));
  w.set(p + "attention.layer_norm_rms_epsilon", gguf::Value::f32(c.rms_eps));
  if (c.sliding_window != 0) {  // the pattern too, which llama.cpp's converter leaves to gemma3's default of 6
    w.set(p + "attention.sliding_window", gguf::Value::u32(u32(c.sliding_window)));
    w.set(p + "attention.sliding_window_pattern", c.sliding_layers.empty() ? gguf::Value::u32(u32(c.sliding_period))
                                                                            : gguf::Value::bools(c.sliding_layers));
    w.set(p + "rope.freq_base_swa", gguf::Value::f32(c.rope_theta_sliding));
  }
  if (c.rope_linear_factor != 1) {
    w.set(p + "rope.scaling.type", gguf::Value::str("linear"));
    w.set(p + "rope.scaling.factor", gguf::Value::f32(c.rope_linear_factor));
  }
  if (c.attn_softcap != 0) w.set(p + "attn_logit_softcapping", gguf::Value::f32(c.attn_softcap));
  if (c.final_softcap != 0) w.set(p + "final_logit_softcapping", gguf::Value::f32(c.final_softcap));
}

// llama.cpp's loader looks Phi-3's <|endoftext|> up by name in a phi3 file.
void set_tokenizer(gguf::GgufWriter& w, const ModelConfig& c) {
  SyntheticVocab v = synthetic_vocab(c.vocab, c.arch == Architecture::Phi3 ? std::vector<std::string>{"<|endoftext|>"}
                                                                           : std::vector<std::string>{});
  w.set("tokenizer.ggml.model", gguf::Value::str("llama"));
  w.set("tokenizer.ggml.tokens", gguf::Value::strings(std::move(v.pieces)));
  w.set("tokenizer.ggml.scores", gguf::Value::f32s(v.scores));
  w.set("tokenizer.ggml.token_type", gguf::Value::i32s(v.types));
  w.set("tokenizer.ggml.unknown_token_id", gguf::Value::u32(0));
  w.set("tokenizer.ggml.bos_token_id", gguf::Value::u32(1));
  w.set("tokenizer.ggml.eos_token_id", gguf::Value::u32(2));
  w.set("tokenizer.ggml.add_bos_token", gguf::Value::boolean(true));
  w.set("tokenizer.ggml.add_eos_token", gguf::Value::boolean(false));
}

// The loader infers QKV bias, QK norm, RoPE style, the FFN's activation,
// post norms and the embedding's scale from the architecture, and reads
// sliding layers and softcaps for gemma2 and gemma3 only; a spec that
// disagrees would not read back as written.
void check_spec(const SyntheticSpec& spec, const std::string& path) {
  const ModelConfig& c = spec.config;
  validate(c, path, gguf_config_keys(c.arch));
  ModelConfig implied = c;
  apply_traits(architecture_traits(c.arch), implied);
  if (c.qkv_bias != implied.qkv_bias || c.qk_norm != implied.qk_norm || c.rope_style != implied.rope_style ||
      c.fused_projections != implied.fused_projections || c.ffn_activation != implied.ffn_activation ||
      c.post_norms != implied.post_norms || c.scaled_embedding != implied.scaled_embedding)
    fail_file(path, "synthetic " + architecture_name(c.arch) + " model: QKV bias, QK norm, RoPE style, fused "
                    "projections, FFN activation, post norms or embedding scale differ from what its files imply "
                    "(config.cpp's architecture table)");
  const bool gemma = c.arch == Architecture::Gemma2 || c.arch == Architecture::Gemma3;
  if ((c.sliding_window != 0 || c.final_softcap != 0) && !gemma)
    fail_file(path, "synthetic model: sliding layers and a final softcap need gemma2 or gemma3");
  if (c.attn_softcap != 0 && c.arch != Architecture::Gemma2)
    fail_file(path, "synthetic model: an attention softcap needs gemma2 (llama.cpp's gemma3 reads none)");
  if (c.arch == Architecture::Gemma2 &&
      (c.sliding_window == 0 || c.attn_softcap == 0 || c.final_softcap == 0 || !c.tied_output))
    fail_file(path, "synthetic gemma2 model: its window, softcaps and tied head are what its files imply "
                    "when they do not say (llama.cpp's defaults): give them");
  if (c.attention_scale != 0)
    fail_file(path, "synthetic model: an attention scale is implied by a 27B's layer count, not written");
  const float sliding_factor = c.arch == Architecture::Gemma2 ? c.rope_linear_factor : 1;
  if (c.rope_linear_factor_sliding != sliding_factor)
    fail_file(path, "synthetic model: sliding layers' linear RoPE factor is implied (Gemma 2: the global one; "
                    "others: none), not written");
  if (c.llama3_rope_factor != 0 && (c.arch != Architecture::Llama || !(c.llama3_rope_factor >= 1)))
    fail_file(path, "synthetic model: Llama 3 RoPE scaling needs the llama architecture and a factor of at least 1");
}

}  // namespace

std::vector<std::string> synthetic_model_names() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.emplace_back(p.name);
  return names;
}

std::vector<size_t> massive_channels(const ModelConfig& config) { return {7 % config.dim, config.dim / 2 + 3}; }

std::vector<std::string> weight_statistics_names() { return {"random", "trained"}; }

WeightStatistics parse_weight_statistics(std::string_view name) {
  if (name == "random") return WeightStatistics::Random;
  if (name == "trained") return WeightStatistics::Trained;
  throw Error("unknown weight statistics '" + std::string(name) + "' (choices: " +
              joined(weight_statistics_names()) + ")");
}

ModelConfig preset_config(std::string_view like) {
  for (const auto& p : kPresets) {
    if (p.name != like) continue;
    ModelConfig c;
    apply_traits(architecture_traits(p.arch), c);
    c.dim = p.dim;
    c.n_layers = p.n_layers;
    c.n_heads = p.n_heads;
    c.n_kv_heads = p.n_kv_heads;
    c.head_dim = p.head_dim != 0 ? p.head_dim : p.dim / p.n_heads;
    c.ffn_dim = p.ffn_dim;
    c.vocab = p.vocab;
    c.context_length = p.context_length;
    c.rope_dim = c.head_dim;
    c.rope_theta = p.rope_theta;
    c.rms_eps = p.rms_eps;
    c.tied_output = p.tied_output;
    c.llama3_rope_factor = p.llama3_rope;
    c.sliding_window = p.window;
    c.sliding_period = p.period;
    if (p.window != 0) c.rope_theta_sliding = p.rope_theta_sliding;
    if (p.linear_rope != 0) c.rope_linear_factor = p.linear_rope;
    if (p.arch == Architecture::Gemma2) c.rope_linear_factor_sliding = c.rope_linear_factor;
    c.attn_softcap = p.attn_softcap;
    c.final_softcap = p.final_softcap;
    return c;
  }
  throw Error("unknown model '" + std::string(like) + "' (choices: " + joined(synthetic_model_names()) + ")");
}

uint64_t parameter_count(const ModelConfig& c) {
  const uint64_t d = c.dim, q = c.q_dim(), kv = c.kv_dim();
  const uint64_t per_layer = (c.post_norms ? 4 : 2) * d  // attention and FFN norms, and post norms
                             + d * q + 2 * d * kv + q * d  // Q, K, V, output
                             + (c.qkv_bias ? q + 2 * kv : 0) + (c.qk_norm ? 2 * c.head_dim : 0)
                             + 3 * d * c.ffn_dim;
  const uint64_t embedding = uint64_t{c.vocab} * d;
  return embedding + c.n_layers * per_layer + d + (c.tied_output ? 0 : embedding);
}

void write_synthetic_model(const SyntheticSpec& spec, const std::string& path) {
  check_spec(spec, path);
  const ModelConfig& c = spec.config;
  gguf::GgufWriter w;
  w.set("general.architecture", gguf::Value::str(architecture_name(c.arch)));
  w.set("general.name", gguf::Value::str("synthetic " + spec.like + " " + spec.mix.name));
  w.set("general.file_type", gguf::Value::u32(static_cast<uint32_t>(spec.mix.file_type)));
  w.set("general.quantization_version", gguf::Value::u32(2));  // ggml's, as llama.cpp writes it
  set_hyperparameters(w, c);
  set_tokenizer(w, c);

  // Tensors in llama.cpp's order; the index seeds each one's random stream.
  uint64_t tensor = 0;
  const bool trained = spec.statistics == WeightStatistics::Trained;
  const MixModel mix_shape = mix_model(c);
  const auto matrix = [&](const std::string& name, size_t cols, size_t rows, std::vector<size_t> massive = {}) {
    const TensorType type = mix_tensor_type(spec.mix, mix_shape, name, cols);
    w.add_tensor(name, type, {cols, rows}, random_rows(type, cols, spec.seed, tensor++, std::move(massive)));
  };
  const auto vector = [&](const std::string& name, size_t n, float value) {
    w.add_tensor(name, TensorType::F32, {n}, constant_rows(value));
    ++tensor;
  };
  if (c.llama3_rope_factor != 0) {  // first, as the converter writes it; no random stream of its own
    const std::vector<float> divisors = llama3_rope_divisors(c);
    const auto bytes = std::as_bytes(std::span(divisors));
    w.add_tensor("rope_freqs.weight", TensorType::F32, {divisors.size()}, {bytes.begin(), bytes.end()});
  }
  matrix("token_embd.weight", c.dim, c.vocab, trained ? massive_channels(c) : std::vector<size_t>{});
  for (size_t i = 0; i < c.n_layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    vector(b + "attn_norm.weight", c.dim, 1.0f);
    if (c.fused_projections) {
      matrix(b + "attn_qkv.weight", c.dim, c.q_dim() + 2 * c.kv_dim());
    } else {
      matrix(b + "attn_q.weight", c.dim, c.q_dim());
      matrix(b + "attn_k.weight", c.dim, c.kv_dim());
      matrix(b + "attn_v.weight", c.dim, c.kv_dim());
    }
    if (c.qkv_bias) {
      vector(b + "attn_q.bias", c.q_dim(), 0.0f);
      vector(b + "attn_k.bias", c.kv_dim(), 0.0f);
      vector(b + "attn_v.bias", c.kv_dim(), 0.0f);
    }
    if (c.qk_norm) {  // llama.cpp's converter writes K's first
      vector(b + "attn_k_norm.weight", c.head_dim, 1.0f);
      vector(b + "attn_q_norm.weight", c.head_dim, 1.0f);
    }
    matrix(b + "attn_output.weight", c.q_dim(), c.dim);
    // Gemma's norms as its converter stores them, 1 + the checkpoint's
    // weight (0 here): the plain RMSNorm gain the engine reads.
    if (c.post_norms) vector(b + "post_attention_norm.weight", c.dim, 1.0f);
    vector(b + "ffn_norm.weight", c.dim, 1.0f);
    if (c.fused_projections) {
      matrix(b + "ffn_up.weight", c.dim, 2 * c.ffn_dim);
    } else {
      matrix(b + "ffn_gate.weight", c.dim, c.ffn_dim);
      matrix(b + "ffn_up.weight", c.dim, c.ffn_dim);
    }
    matrix(b + "ffn_down.weight", c.ffn_dim, c.dim);
    if (c.post_norms) vector(b + "post_ffw_norm.weight", c.dim, 1.0f);
  }
  vector("output_norm.weight", c.dim, trained ? kTrainedGainTimesDim / static_cast<float>(c.dim) : 1.0f);
  if (!c.tied_output) matrix("output.weight", c.dim, c.vocab);
  w.write(path);
}

}  // namespace pdbench
