#pragma once
// Contiguous f32 KV cache of one sequence: K and V for every layer and
// position up to a fixed capacity, laid out [layer][position][kv_dim]. The
// simplest storage there is: the reference the paged cache's attention is
// tested against (the engine itself runs on PagedKvCache).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pdbench {

class KvCache {
 public:
  KvCache(size_t n_layers, size_t kv_dim, size_t capacity);

  size_t capacity() const { return capacity_; }
  size_t kv_dim() const { return kv_dim_; }
  size_t length() const { return length_; }  // positions filled
  void set_length(size_t n);                  // after writing positions < n

  float* key(size_t layer, size_t pos) { return &k_[index(layer, pos)]; }
  float* value(size_t layer, size_t pos) { return &v_[index(layer, pos)]; }
  const float* key(size_t layer, size_t pos) const { return &k_[index(layer, pos)]; }
  const float* value(size_t layer, size_t pos) const { return &v_[index(layer, pos)]; }

  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

 private:
  size_t index(size_t layer, size_t pos) const { return (layer * capacity_ + pos) * kv_dim_; }

  size_t kv_dim_;
  size_t capacity_;
  size_t length_ = 0;
  std::vector<float> k_;
  std::vector<float> v_;
};

}  // namespace pdbench
