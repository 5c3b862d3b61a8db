#pragma once
// Hyperparameters of a llama-family decoder, whatever file they came from.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/attention/attention_shape.h"
#include "engine/kernels/reference.h"

namespace pdbench {

enum class Architecture { Llama, Qwen2, Qwen3, Phi3, Gemma2, Gemma3 };

// The FFN's gated activation: act(gate) * up.
enum class FfnActivation {
  SwiGlu,  // silu
  GeGlu,   // gelu, tanh approximation (Gemma), as ggml's CPU backend rounds it (ref::geglu)
};

struct ModelConfig {
  Architecture arch = Architecture::Llama;
  size_t dim = 0;         // residual stream width
  size_t n_layers = 0;
  size_t n_heads = 0;
  size_t n_kv_heads = 0;  // < n_heads: grouped-query attention
  size_t head_dim = 0;
  size_t ffn_dim = 0;
  size_t vocab = 0;
  size_t context_length = 0;  // trained context; the default KV capacity
  size_t rope_dim = 0;        // leading dims of each head that RoPE rotates
  float rope_theta = 10000.0f;
  ref::RopeStyle rope_style = ref::RopeStyle::AdjacentPairs;
  float rms_eps = 1e-5f;
  bool qkv_bias = false;
  bool qk_norm = false;  // RMSNorm of each Q and K head before RoPE (qwen3, gemma3)
  // Q, K, V stored as one attn_qkv matrix and gate, up as one ffn_up of
  // twice the FFN width, gate rows first (phi3).
  bool fused_projections = false;
  FfnActivation ffn_activation = FfnActivation::SwiGlu;
  // RMSNorm of the attention and FFN outputs before each residual add
  // (attn_post_norm, ffn_post_norm: Gemma).
  bool post_norms = false;
  bool scaled_embedding = false;  // embedding rows times sqrt(dim) (Gemma)
  // Sliding-window attention: a sliding layer's query at position p sees
  // the keys at p0 with p - p0 < sliding_window (llama.cpp's is_masked_swa).
  // 0: no sliding layers. Of every sliding_period layers the last is global
  // (llama.cpp's set_swa_pattern; 0: every layer slides), unless the file
  // names each layer's kind (sliding_layers, one flag per layer, true:
  // sliding). Sliding layers rotate with rope_theta_sliding, global ones
  // with rope_theta.
  size_t sliding_window = 0;
  size_t sliding_period = 0;
  std::vector<bool> sliding_layers;
  float rope_theta_sliding = 10000.0f;
  // The scores' factor where it is not 1 / sqrt(head_dim) (Gemma 27B: 1 /
  // sqrt(dim / n_heads)); 0: 1 / sqrt(head_dim).
  float attention_scale = 0;
  // Scores become attn_softcap tanh(score / attn_softcap) before the
  // softmax (Gemma 2), the logits final_softcap tanh(logit /
  // final_softcap); 0: none.
  float attn_softcap = 0;
  float final_softcap = 0;
  bool tied_output = false;  // LM head shares the token embedding
  // Llama 3 RoPE scaling: > 0 when the file carries rope_freqs.weight (a
  // divisor per rotated pair, applied to the pair's frequency), then its
  // largest divisor: the scaling factor its converter put on the longest
  // wavelengths (Llama 3.1: 8, 3.2: 32), from which make-model writes it.
  float llama3_rope_factor = 0;
  // Linear RoPE scaling (rope.scaling.factor): position p turns as p /
  // factor would unscaled. Gemma 3 scales only its global layers (llama.cpp
  // leaves freq_scale_swa at 1), Gemma 2 its sliding ones too. 1: none.
  float rope_linear_factor = 1;
  float rope_linear_factor_sliding = 1;

  size_t q_dim() const { return n_heads * head_dim; }
  size_t kv_dim() const { return n_kv_heads * head_dim; }
  bool is_sliding(size_t layer) const {
    if (sliding_window == 0) return false;
    if (!sliding_layers.empty()) return sliding_layers[layer];
    return sliding_period == 0 || layer % sliding_period < sliding_period - 1;
  }
  // The keys a query of the layer sees back from its own position (0: all).
  size_t layer_window(size_t layer) const { return is_sliding(layer) ? sliding_window : 0; }
  ref::AttentionShape attention_shape(size_t layer) const {
    return {n_heads, n_kv_heads, head_dim, layer_window(layer), attn_softcap};
  }
  // RoPE of the global or the sliding layers; Llama 3's divisors are weights, not config.
  ref::RopeFrequencies rope_frequencies(bool sliding) const {
    return sliding ? ref::RopeFrequencies{rope_theta_sliding, 1 / rope_linear_factor_sliding}
                   : ref::RopeFrequencies{rope_theta, 1 / rope_linear_factor};
  }
  ref::RopeFrequencies layer_rope(size_t layer) const { return rope_frequencies(is_sliding(layer)); }
};

// What an architecture's files imply rather than state: how Q and K are
// stored for RoPE, which optional tensors every layer has, the FFN's
// activation and whether the embedding is scaled.
struct ArchitectureTraits {
  Architecture arch;
  const char* name;  // general.architecture
  ref::RopeStyle rope_style;
  bool qkv_bias;
  bool qk_norm;
  bool fused_projections;
  FfnActivation ffn_activation;
  bool post_norms;
  bool scaled_embedding;
};

// Throws pdbench::Error "PATH: architecture 'NAME' is not supported
// (supported: ...)" for a name with no row.
const ArchitectureTraits& architecture_traits(const std::string& name, const std::string& path);
const ArchitectureTraits& architecture_traits(Architecture arch);
std::string architecture_name(Architecture arch);
// The traits' fields of a config: what a file of its architecture reads back as.
void apply_traits(const ArchitectureTraits& traits, ModelConfig& config);

// What a file calls each hyperparameter ("llama.block_count", "header
// n_layers"), so an error names the key to look at.
struct ConfigKeys {
  std::string dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_dim, vocab, context_length, rope_dim, rope_theta,
      rms_eps, sliding_window, sliding_period, rope_theta_sliding, attn_softcap, final_softcap, rope_linear_factor;
};

// The GGUF metadata keys of an architecture; the vocabulary size is the
// token embedding's row count.
ConfigKeys gguf_config_keys(Architecture arch);

// Throws pdbench::Error "PATH: ..." naming the key, before anything is
// sized from the config, for shapes the forward pass cannot run: zero or
// absurd sizes (bounds far above any real model, which also keep size
// arithmetic from overflowing), heads not dividing, rope_dim odd or above
// head_dim, non-finite or out-of-range rope thetas, RMS epsilon and softcap.
void validate(const ModelConfig& config, const std::string& path, const ConfigKeys& keys);

}  // namespace pdbench
