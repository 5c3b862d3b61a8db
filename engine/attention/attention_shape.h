#pragma once
// The head layout every attention kernel reads: query heads grouped
// n_heads / n_kv_heads per KV head (grouped-query attention), and how far
// back a query sees.
#include <cstddef>

namespace pdbench::ref {

struct AttentionShape {
  size_t n_heads;
  size_t n_kv_heads;  // query heads are grouped n_heads / n_kv_heads per KV head
  size_t head_dim;
  // Sliding-window attention: a query at position p sees the keys at p0 <=
  // p with p - p0 < window (llama.cpp's is_masked_swa); 0: every key up to p.
  size_t window = 0;
  // Gemma 2's attention logit softcapping: each score s becomes
  // softcap tanh(s / softcap) before the softmax (ref::softcap); 0: none.
  float softcap = 0;
};

// The first key position a query at `pos` sees.
inline size_t first_visible(const AttentionShape& shape, size_t pos) {
  return shape.window != 0 && pos >= shape.window ? pos + 1 - shape.window : 0;
}

}  // namespace pdbench::ref
