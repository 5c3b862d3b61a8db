#pragma once
// The head layout every attention kernel reads: query heads grouped
// n_heads / n_kv_heads per KV head (grouped-query attention).
#include <cstddef>

namespace pdbench::ref {

struct AttentionShape {
  size_t n_heads;
  size_t n_kv_heads;  // query heads are grouped n_heads / n_kv_heads per KV head
  size_t head_dim;
};

}  // namespace pdbench::ref
