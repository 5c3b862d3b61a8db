#include "engine/model/config.h"

#include "engine/util/error.h"

namespace pdbench {

std::string architecture_name(Architecture arch) {
  return arch == Architecture::Llama ? "llama" : "qwen2";
}

void validate(const ModelConfig& c, const std::string& path) {
  // Bounds far above any real model; they keep size arithmetic from overflowing.
  constexpr size_t kMaxDim = 1 << 20;
  constexpr size_t kMaxHeads = 1 << 12;
  constexpr size_t kMaxLayers = 1 << 12;
  constexpr size_t kMaxVocab = 1 << 24;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) fail_file(path, what);
  };
  auto in_range = [](size_t v, size_t max) { return v > 0 && v <= max; };
  check(in_range(c.dim, kMaxDim), "embedding length " + std::to_string(c.dim) + " is out of range");
  check(in_range(c.n_layers, kMaxLayers), "block count " + std::to_string(c.n_layers) + " is out of range");
  check(in_range(c.n_heads, kMaxHeads), "head count " + std::to_string(c.n_heads) + " is out of range");
  check(in_range(c.n_kv_heads, c.n_heads) && c.n_heads % c.n_kv_heads == 0,
        "KV head count " + std::to_string(c.n_kv_heads) + " must divide the head count " +
            std::to_string(c.n_heads));
  check(in_range(c.head_dim, kMaxDim), "head size " + std::to_string(c.head_dim) + " is out of range");
  check(in_range(c.ffn_dim, kMaxDim), "feed-forward length " + std::to_string(c.ffn_dim) + " is out of range");
  check(in_range(c.vocab, kMaxVocab), "vocabulary size " + std::to_string(c.vocab) + " is out of range");
  check(in_range(c.context_length, 1 << 24), "context length " + std::to_string(c.context_length) + " is out of range");
  check(c.rope_dim > 0 && c.rope_dim <= c.head_dim && c.rope_dim % 2 == 0,
        "rope dimension count " + std::to_string(c.rope_dim) + " must be even and at most the head size " +
            std::to_string(c.head_dim));
  check(c.rope_theta > 0.0f && c.rope_theta < 1e12f, "rope freq_base must be positive and finite");
  check(c.rms_eps > 0.0f && c.rms_eps < 1.0f, "RMS norm epsilon must be in (0, 1)");
}

}  // namespace pdbench
