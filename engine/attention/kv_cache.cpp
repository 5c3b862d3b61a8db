#include "engine/attention/kv_cache.h"

#include <new>
#include <string>

#include "engine/util/error.h"

namespace pdbench {

KvCache::KvCache(size_t n_layers, size_t kv_dim, size_t capacity)
    : kv_dim_(kv_dim), capacity_(capacity) {
  const size_t elements = n_layers * capacity * kv_dim;
  if (capacity == 0 || elements / capacity / kv_dim != n_layers)
    throw Error("KV cache: capacity of " + std::to_string(capacity) + " tokens is invalid");
  try {
    k_.resize(elements);
    v_.resize(elements);
  } catch (const std::bad_alloc&) {
    throw Error("KV cache: cannot allocate " + std::to_string(2 * elements * sizeof(float)) +
                " bytes for " + std::to_string(capacity) + " tokens");
  }
}

void KvCache::set_length(size_t n) {
  if (n > capacity_)
    throw Error("KV cache: " + std::to_string(n) + " positions exceed its capacity of " +
                std::to_string(capacity_));
  length_ = n;
}

}  // namespace pdbench
