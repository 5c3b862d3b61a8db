#include "engine/model/config.h"

#include "engine/util/error.h"

namespace pdbench {

namespace {

// llama GGUF stores Q/K rows permuted for adjacent-pair RoPE; the others
// keep the checkpoint's NeoX (rotate-half) layout (llama.cpp's rope types).
using enum FfnActivation;
constexpr ArchitectureTraits kArchitectures[] = {
    // arch                name      rope                     qkv_bias qk_norm fused ffn  post_norms scaled_embedding
    {Architecture::Llama, "llama", ref::RopeStyle::AdjacentPairs, false, false, false, SwiGlu, false, false},
    {Architecture::Qwen2, "qwen2", ref::RopeStyle::Neox, true, false, false, SwiGlu, false, false},
    {Architecture::Qwen3, "qwen3", ref::RopeStyle::Neox, false, true, false, SwiGlu, false, false},
    {Architecture::Phi3, "phi3", ref::RopeStyle::Neox, false, false, true, SwiGlu, false, false},
    {Architecture::Gemma2, "gemma2", ref::RopeStyle::Neox, false, false, false, GeGlu, true, true},
    {Architecture::Gemma3, "gemma3", ref::RopeStyle::Neox, false, true, false, GeGlu, true, true},
};

}  // namespace

const ArchitectureTraits& architecture_traits(const std::string& name, const std::string& path) {
  std::string names;
  for (const ArchitectureTraits& t : kArchitectures) {
    if (t.name == name) return t;
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  }
  fail_file(path, "architecture '" + name + "' is not supported (supported: " + names + ")");
}

const ArchitectureTraits& architecture_traits(Architecture arch) {
  for (const ArchitectureTraits& t : kArchitectures)
    if (t.arch == arch) return t;
  return kArchitectures[0];  // unreachable: every Architecture has a row
}

std::string architecture_name(Architecture arch) { return architecture_traits(arch).name; }

void apply_traits(const ArchitectureTraits& traits, ModelConfig& c) {
  c.arch = traits.arch;
  c.rope_style = traits.rope_style;
  c.qkv_bias = traits.qkv_bias;
  c.qk_norm = traits.qk_norm;
  c.fused_projections = traits.fused_projections;
  c.ffn_activation = traits.ffn_activation;
  c.post_norms = traits.post_norms;
  c.scaled_embedding = traits.scaled_embedding;
}

ConfigKeys gguf_config_keys(Architecture arch) {
  const std::string p = architecture_name(arch) + ".";
  ConfigKeys k;
  k.dim = p + "embedding_length";
  k.n_layers = p + "block_count";
  k.n_heads = p + "attention.head_count";
  k.n_kv_heads = p + "attention.head_count_kv";
  k.head_dim = p + "attention.key_length";
  k.ffn_dim = p + "feed_forward_length";
  k.vocab = "token_embd.weight";
  k.context_length = p + "context_length";
  k.rope_dim = p + "rope.dimension_count";
  k.rope_theta = p + "rope.freq_base";
  k.rms_eps = p + "attention.layer_norm_rms_epsilon";
  k.sliding_window = p + "attention.sliding_window";
  k.sliding_period = p + "attention.sliding_window_pattern";
  k.rope_theta_sliding = p + "rope.freq_base_swa";
  k.attn_softcap = p + "attn_logit_softcapping";
  k.final_softcap = p + "final_logit_softcapping";
  k.rope_linear_factor = p + "rope.scaling.factor";
  return k;
}

void validate(const ModelConfig& c, const std::string& path, const ConfigKeys& keys) {
  constexpr size_t kMaxDim = 1 << 20;
  constexpr size_t kMaxHeads = 1 << 12;
  constexpr size_t kMaxLayers = 1 << 12;
  constexpr size_t kMaxVocab = 1 << 24;
  constexpr size_t kMaxContext = 1 << 24;
  const auto fail = [&](const std::string& what, const std::string& key, const std::string& value,
                        const std::string& expected) {
    fail_file(path, what + " (" + key + ") = " + value + ": expected " + expected);
  };
  const auto in_range = [&](const std::string& what, const std::string& key, size_t v, size_t max) {
    if (v == 0 || v > max) fail(what, key, std::to_string(v), "1 to " + std::to_string(max));
  };
  in_range("embedding length", keys.dim, c.dim, kMaxDim);
  in_range("block count", keys.n_layers, c.n_layers, kMaxLayers);
  in_range("head count", keys.n_heads, c.n_heads, kMaxHeads);
  in_range("KV head count", keys.n_kv_heads, c.n_kv_heads, c.n_heads);
  if (c.n_heads % c.n_kv_heads != 0)
    fail("KV head count", keys.n_kv_heads, std::to_string(c.n_kv_heads),
         "a divisor of the head count " + std::to_string(c.n_heads));
  in_range("head size", keys.head_dim, c.head_dim, kMaxDim);
  in_range("feed-forward length", keys.ffn_dim, c.ffn_dim, kMaxDim);
  in_range("vocabulary size", keys.vocab, c.vocab, kMaxVocab);
  in_range("context length", keys.context_length, c.context_length, kMaxContext);
  if (c.rope_dim == 0 || c.rope_dim > c.head_dim || c.rope_dim % 2 != 0)
    fail("rope dimension count", keys.rope_dim, std::to_string(c.rope_dim),
         "an even number from 2 to the head size " + std::to_string(c.head_dim));
  const auto check_theta = [&](const std::string& key, float theta) {
    if (!(theta > 0.0f && theta < 1e12f))  // false for NaN too
      fail("rope frequency base", key, std::to_string(theta), "a positive number below 1e12");
  };
  check_theta(keys.rope_theta, c.rope_theta);
  for (float factor : {c.rope_linear_factor, c.rope_linear_factor_sliding})
    if (!(factor > 0.0f && factor < 1e6f))
      fail("RoPE scaling factor", keys.rope_linear_factor, std::to_string(factor), "a positive number below 1e6");
  if (c.sliding_window != 0) {
    in_range("sliding window", keys.sliding_window, c.sliding_window, kMaxContext);
    if (c.sliding_period > kMaxLayers)
      fail("sliding window pattern", keys.sliding_period, std::to_string(c.sliding_period),
           "0 to " + std::to_string(kMaxLayers));
    if (!c.sliding_layers.empty() && c.sliding_layers.size() != c.n_layers)
      fail("sliding window pattern", keys.sliding_period, std::to_string(c.sliding_layers.size()) + " flags",
           "one flag per layer (" + std::to_string(c.n_layers) + ")");
    check_theta(keys.rope_theta_sliding, c.rope_theta_sliding);
  }
  const auto check_softcap = [&](const std::string& what, const std::string& key, float cap) {
    if (!(cap >= 0.0f && cap < 1e12f)) fail(what, key, std::to_string(cap), "0 (none) or a positive number");
  };
  check_softcap("attention logit softcap", keys.attn_softcap, c.attn_softcap);
  check_softcap("final logit softcap", keys.final_softcap, c.final_softcap);
  if (!(c.rms_eps > 0.0f && c.rms_eps < 1.0f))
    fail("RMS norm epsilon", keys.rms_eps, std::to_string(c.rms_eps), "a number in (0, 1)");
}

}  // namespace pdbench
