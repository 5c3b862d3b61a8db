#pragma once
// Model shapes small enough to write and run in milliseconds.
#include <cstddef>
#include <string_view>

#include "engine/model/synthetic_model.h"

namespace pdbench::test {

// The preset `like`'s architecture (bias, rope style, tied head) with 2
// layers, 4 query heads over 2 KV heads, a 128-token context and these sizes.
inline ModelConfig tiny_config(std::string_view like, size_t dim, size_t head_dim, size_t ffn_dim, size_t vocab) {
  ModelConfig c = preset_config(like);
  c.dim = dim;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.head_dim = head_dim;
  c.rope_dim = head_dim;
  c.ffn_dim = ffn_dim;
  c.vocab = vocab;
  c.context_length = 128;
  return c;
}

}  // namespace pdbench::test
