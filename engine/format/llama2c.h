#pragma once
// Reader for llama2.c legacy (version 0) checkpoints: a 7 x int32 header, then
// f32 arrays in a fixed order, used in place from a memory map. Weight
// matrices are row-major [out][in], the same layout as a GGUF tensor with
// shape {in, out}.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "engine/util/mapped_file.h"

namespace pdbench {

struct Llama2cConfig {
  size_t dim = 0;
  size_t hidden_dim = 0;
  size_t n_layers = 0;
  size_t n_heads = 0;
  size_t n_kv_heads = 0;
  size_t vocab_size = 0;
  size_t seq_len = 0;
  bool shared_classifier = true;  // header vocab_size > 0: wcls is the token embedding

  size_t head_size() const { return dim / n_heads; }
  size_t kv_dim() const { return dim / n_heads * n_kv_heads; }
};

class Llama2cCheckpoint {
 public:
  // Maps the file and checks the header and the file size (see llama2c.cpp).
  static Llama2cCheckpoint open(const std::string& path);

  const std::string& path() const { return file_.path(); }
  const Llama2cConfig& config() const { return config_; }

  std::span<const float> token_embedding() const;    // [vocab][dim]
  std::span<const float> rms_att(size_t layer) const;  // [dim]
  std::span<const float> wq(size_t layer) const;       // [dim][dim]
  std::span<const float> wk(size_t layer) const;       // [kv_dim][dim]
  std::span<const float> wv(size_t layer) const;       // [kv_dim][dim]
  std::span<const float> wo(size_t layer) const;       // [dim][dim]
  std::span<const float> rms_ffn(size_t layer) const;  // [dim]
  std::span<const float> w1(size_t layer) const;       // [hidden][dim] (gate)
  std::span<const float> w2(size_t layer) const;       // [dim][hidden] (down)
  std::span<const float> w3(size_t layer) const;       // [hidden][dim] (up)
  std::span<const float> rms_final() const;            // [dim]
  std::span<const float> wcls() const;                 // [vocab][dim]; the token embedding when shared

 private:
  // Where each array starts, in floats from the first one.
  struct Layout {
    size_t token_embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, wcls;
  };

  explicit Llama2cCheckpoint(MappedFile file) : file_(std::move(file)) {}
  std::span<const float> floats(size_t offset, size_t count) const;
  std::span<const float> layer_slice(size_t offset, size_t layer, size_t per_layer) const;

  MappedFile file_;
  Llama2cConfig config_;
  Layout layout_{};
};

}  // namespace pdbench
