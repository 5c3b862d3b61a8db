#pragma once
// A loaded model: its configuration and views of its weights, used in place
// from the memory-mapped file.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/kernels/matrix_view.h"
#include "engine/model/config.h"

namespace pdbench {
namespace gguf {
class GgufFile;
}

struct LayerWeights {
  std::span<const float> attn_norm;
  MatrixView wq, wk, wv, wo;
  std::span<const float> bq, bk, bv;  // empty unless config.qkv_bias
  std::span<const float> q_norm, k_norm;  // head_dim each; empty unless config.qk_norm
  std::span<const float> ffn_norm;
  MatrixView w_gate, w_up, w_down;
  std::span<const float> attn_post_norm, ffn_post_norm;  // dim each; empty unless config.post_norms
};

// A weight tensor as the file names it, for checks that report by name.
struct NamedTensor {
  std::string name;
  TensorType type;
  std::span<const std::byte> bytes;
};

struct ModelWeights {
  MatrixView token_embedding;  // vocab rows of dim
  std::vector<LayerWeights> layers;
  std::span<const float> output_norm;
  MatrixView output;  // LM head: vocab rows of dim (the embedding when tied)
  std::span<const float> rope_freqs;  // rope_dim / 2 divisors; empty unless config.llama3_rope_factor
};

class Model {
 public:
  // GGUF or llama2.c checkpoint, told apart by the file's first bytes.
  static Model load(const std::string& path);

  const std::string& path() const { return path_; }
  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  // The GGUF file behind the model (its metadata holds the tokenizer), or
  // nullptr for a llama2.c checkpoint.
  const gguf::GgufFile* gguf() const { return gguf_; }
  // Every weight tensor the model uses, once each (a tied LM head is the embedding).
  const std::vector<NamedTensor>& tensors() const { return tensors_; }
  size_t weight_bytes() const;

 private:
  static Model load_gguf(const std::string& path);
  static Model load_llama2c(const std::string& path);

  std::string path_;
  ModelConfig config_;
  ModelWeights weights_;
  std::vector<NamedTensor> tensors_;
  const gguf::GgufFile* gguf_ = nullptr;
  std::shared_ptr<const void> file_;  // keeps the mapping alive
};

}  // namespace pdbench
