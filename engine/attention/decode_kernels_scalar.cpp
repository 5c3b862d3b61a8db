// Decode attention kernels in portable C++: the fallback for CPUs without
// AVX-512, and the second opinion the AVX-512 kernels are tested against.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "engine/attention/decode_kernels.h"
#include "engine/kernels/reference.h"
#include "engine/util/half.h"

namespace pdbench::decode_detail {

namespace {

// Element i of one stored vector, as f32 (kv_decode one element at a time).
template <KvType T>
struct Element;
template <>
struct Element<KvType::F32> {
  explicit Element(size_t) {}
  float operator()(const std::byte* vec, size_t i) const {
    float x;
    std::memcpy(&x, vec + 4 * i, 4);
    return x;
  }
};
template <>
struct Element<KvType::F16> {
  explicit Element(size_t) {}
  float operator()(const std::byte* vec, size_t i) const {
    uint16_t h;
    std::memcpy(&h, vec + 2 * i, 2);
    return fp16_to_f32(h);
  }
};
template <>
struct Element<KvType::BF16> {
  explicit Element(size_t) {}
  float operator()(const std::byte* vec, size_t i) const {
    uint16_t h;
    std::memcpy(&h, vec + 2 * i, 2);
    return bf16_to_f32(h);
  }
};
template <>
struct Element<KvType::Q8_0> {
  explicit Element(size_t head_dim) : group(kv_q8_group(head_dim)) {}
  float operator()(const std::byte* vec, size_t i) const {
    const std::byte* g = vec + i / group * (2 + group);
    uint16_t d;
    std::memcpy(&d, g, 2);
    return fp16_to_f32(d) * static_cast<float>(static_cast<int8_t>(g[2 + i % group]));
  }
  size_t group;
};

void prepare_query(const float* q, size_t head_dim, float* prepared) {
  std::copy_n(q, head_dim, prepared);
}

template <KvType T>
float dot_keys(const float* q, const std::byte* keys, size_t n_tokens, size_t head_dim, float scale,
               float* scores) {
  const Element<T> element(head_dim);
  const size_t stride = kv_vector_bytes(T, head_dim);
  float max = -std::numeric_limits<float>::infinity();
  for (size_t t = 0; t < n_tokens; ++t) {
    float s = 0.0f;
    for (size_t i = 0; i < head_dim; ++i) s += q[i] * element(keys + t * stride, i);
    scores[t] = s / scale;
    max = std::max(max, scores[t]);
  }
  return max;
}

template <KvType T>
void add_values(const float* w, size_t w_stride, size_t n_heads, const std::byte* values,
                size_t n_tokens, size_t head_dim, float* acc) {
  const Element<T> element(head_dim);
  const size_t stride = kv_vector_bytes(T, head_dim);
  for (size_t h = 0; h < n_heads; ++h)
    for (size_t t = 0; t < n_tokens; ++t)
      for (size_t i = 0; i < head_dim; ++i)
        acc[h * head_dim + i] += w[h * w_stride + t] * element(values + t * stride, i);
}

float exp_sum(float* x, size_t n, float max) {
  float sum = 0.0f;
  for (size_t t = 0; t < n; ++t) {
    x[t] = std::exp(x[t] - max);
    sum += x[t];
  }
  return sum;
}

void merge_head(const float* const* acc, const float* factor, size_t n_parts, float sum, size_t head_dim,
                float* out) {
  for (size_t i = 0; i < head_dim; ++i) {
    float x = 0.0f;
    for (size_t p = 0; p < n_parts; ++p) x += factor[p] * acc[p][i];
    out[i] = x / sum;
  }
}

}  // namespace

const DecodeKernels kScalarDecodeKernels = {
    {prepare_query, prepare_query, prepare_query, prepare_query},
    {dot_keys<KvType::F32>, dot_keys<KvType::F16>, dot_keys<KvType::BF16>, dot_keys<KvType::Q8_0>},
    {add_values<KvType::F32>, add_values<KvType::F16>, add_values<KvType::BF16>,
     add_values<KvType::Q8_0>},
    exp_sum,
    ref::softcap,
    merge_head,
};

}  // namespace pdbench::decode_detail
