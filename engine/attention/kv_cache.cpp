#include "engine/attention/kv_cache.h"

#include <algorithm>
#include <new>
#include <string>

#include "engine/util/error.h"

namespace pdbench {

KvCache::KvCache(size_t n_layers, size_t kv_dim, size_t capacity)
    : n_layers_(n_layers), kv_dim_(kv_dim), capacity_(capacity) {
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

void KvCache::copy_from(const KvCache& other) {
  if (other.n_layers_ != n_layers_ || other.kv_dim_ != kv_dim_ || other.capacity_ != capacity_)
    throw Error("KV cache: copy between caches of different shapes");
  // Only the filled positions of each layer matter.
  for (size_t layer = 0; layer < n_layers_; ++layer) {
    const size_t begin = index(layer, 0);
    const size_t count = other.length_ * kv_dim_;
    std::copy_n(other.k_.begin() + static_cast<std::ptrdiff_t>(begin), count,
                k_.begin() + static_cast<std::ptrdiff_t>(begin));
    std::copy_n(other.v_.begin() + static_cast<std::ptrdiff_t>(begin), count,
                v_.begin() + static_cast<std::ptrdiff_t>(begin));
  }
  length_ = other.length_;
}

}  // namespace pdbench
