// Decode attention kernels for AVX2 (+ FMA, F16C), 8 f32 lanes: null in
// the table for the query's preparation, a copy, which the scalar kernels
// do (decode_attention.cpp fills it in); heads of a size not a multiple of
// 8 go to the scalar kernels. q8_0 keys take the f32 path (AVX-512 rounds
// the query to int8 for them instead). Built with those flags
// (engine/attention/CMakeLists.txt); see decode_kernels.h for why it keeps
// to raw pointers and intrinsics.
//
// A key is scored by FMAs over its head_dim and one horizontal sum; values
// are added for up to four query heads of the GQA group at once, a 16-wide
// slice of each head's accumulator in registers, so each value is loaded and
// converted once per group.
#include <cstdint>
#include <cstring>
#include <limits>

#include "engine/attention/decode_kernels.h"
#include "engine/kernels/avx2_math.h"

namespace pdbench::decode_detail {

namespace {

// Loaders of one stored K/V type: load(vec, i), elements [i, i + 8) of one
// stored vector (i a multiple of 8) as f32.
struct F32 {
  static constexpr KvType kType = KvType::F32;
  explicit F32(size_t) {}
  __m256 load(const std::byte* vec, size_t i) const { return _mm256_loadu_ps(reinterpret_cast<const float*>(vec) + i); }
};
struct F16 {
  static constexpr KvType kType = KvType::F16;
  explicit F16(size_t) {}
  __m256 load(const std::byte* vec, size_t i) const {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(vec + 2 * i)));
  }
};
// bf16 is the top half of an f32: widen and shift left by 16.
struct BF16 {
  static constexpr KvType kType = KvType::BF16;
  explicit BF16(size_t) {}
  __m256 load(const std::byte* vec, size_t i) const {
    const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(vec + 2 * i)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
  }
};
// q8_0: int8 in groups of 32, or of the whole vector (kv_type.h), each
// after its f16 scale, so 8 elements from a multiple of 8 never straddle
// two groups: the scale times each int8, the product the scalar kernel's.
struct Q8 {
  static constexpr KvType kType = KvType::Q8_0;
  explicit Q8(size_t head_dim) : group(kv_q8_group(head_dim)) {}
  __m256 load(const std::byte* vec, size_t i) const {
    const std::byte* g = vec + i / group * (2 + group);
    uint16_t d;
    std::memcpy(&d, g, sizeof(d));
    const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(g + 2 + i % group));
    return _mm256_mul_ps(_mm256_set1_ps(_cvtsh_ss(d)), _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)));
  }
  size_t group;
};

template <typename Loader>
float dot(const float* q, const std::byte* keys, size_t n_tokens, size_t head_dim, float scale, float* scores) {
  const auto type = static_cast<size_t>(Loader::kType);
  if (head_dim % 8 != 0) return kScalarDecodeKernels.dot[type](q, keys, n_tokens, head_dim, scale, scores);
  const Loader loader(head_dim);
  const size_t stride = kv_vector_bytes(Loader::kType, head_dim);
  float max = -std::numeric_limits<float>::infinity();
  for (size_t t = 0; t < n_tokens; ++t) {
    const std::byte* k = keys + t * stride;
    // Two sums: half as long a chain of dependent FMAs.
    __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= head_dim; i += 16) {
      even = _mm256_fmadd_ps(loader.load(k, i), _mm256_loadu_ps(q + i), even);
      odd = _mm256_fmadd_ps(loader.load(k, i + 8), _mm256_loadu_ps(q + i + 8), odd);
    }
    if (i < head_dim) even = _mm256_fmadd_ps(loader.load(k, i), _mm256_loadu_ps(q + i), even);
    scores[t] = avx2_math::hsum(_mm256_add_ps(even, odd)) / scale;  // divide, as the reference does
    max = scores[t] > max ? scores[t] : max;
  }
  return max;
}

// acc of NH heads += their weights times each position's values, 16
// elements of every head's acc in registers while the positions go by.
template <typename Loader, size_t NH>
void add_heads(const Loader& loader, size_t stride, const float* w, size_t w_stride, const std::byte* values, size_t n_tokens,
               size_t head_dim, float* acc) {
  for (size_t i = 0; i < head_dim; i += 16) {
    const bool pair = i + 16 <= head_dim;  // else the last 8
    __m256 a[NH][2];
#pragma GCC unroll 4
    for (size_t h = 0; h < NH; ++h) {
      a[h][0] = _mm256_loadu_ps(acc + h * head_dim + i);
      a[h][1] = pair ? _mm256_loadu_ps(acc + h * head_dim + i + 8) : _mm256_setzero_ps();
    }
    for (size_t t = 0; t < n_tokens; ++t) {
      const std::byte* vec = values + t * stride;
      const __m256 v0 = loader.load(vec, i), v1 = pair ? loader.load(vec, i + 8) : _mm256_setzero_ps();
#pragma GCC unroll 4
      for (size_t h = 0; h < NH; ++h) {
        const __m256 wh = _mm256_set1_ps(w[h * w_stride + t]);
        a[h][0] = _mm256_fmadd_ps(wh, v0, a[h][0]);
        a[h][1] = _mm256_fmadd_ps(wh, v1, a[h][1]);
      }
    }
#pragma GCC unroll 4
    for (size_t h = 0; h < NH; ++h) {
      _mm256_storeu_ps(acc + h * head_dim + i, a[h][0]);
      if (pair) _mm256_storeu_ps(acc + h * head_dim + i + 8, a[h][1]);
    }
  }
}

// Up to four heads per pass keep every accumulator in a register.
template <typename Loader>
void add(const float* w, size_t w_stride, size_t n_heads, const std::byte* values, size_t n_tokens, size_t head_dim,
         float* acc) {
  const auto type = static_cast<size_t>(Loader::kType);
  if (head_dim % 8 != 0)
    return kScalarDecodeKernels.add[type](w, w_stride, n_heads, values, n_tokens, head_dim, acc);
  const Loader loader(head_dim);
  const size_t stride = kv_vector_bytes(Loader::kType, head_dim);
  for (size_t h = 0; h < n_heads;) {
    const size_t nh = n_heads - h;
    const float* wh = w + h * w_stride;
    float* acch = acc + h * head_dim;
    if (nh >= 4) add_heads<Loader, 4>(loader, stride, wh, w_stride, values, n_tokens, head_dim, acch);
    else if (nh == 3) add_heads<Loader, 3>(loader, stride, wh, w_stride, values, n_tokens, head_dim, acch);
    else if (nh == 2) add_heads<Loader, 2>(loader, stride, wh, w_stride, values, n_tokens, head_dim, acch);
    else add_heads<Loader, 1>(loader, stride, wh, w_stride, values, n_tokens, head_dim, acch);
    h += nh < 4 ? nh : 4;
  }
}

float exp_sum(float* x, size_t n, float max) {
  const __m256 vmax = _mm256_set1_ps(max);
  __m256 sum = _mm256_setzero_ps();
  for (size_t t = 0; t < n; t += 8) {
    const __m256i m = avx2_math::first_lanes(n - t);
    const __m256 e = avx2_math::exp(_mm256_sub_ps(_mm256_maskload_ps(x + t, m), vmax));
    _mm256_maskstore_ps(x + t, m, e);
    sum = _mm256_add_ps(sum, _mm256_and_ps(_mm256_castsi256_ps(m), e));
  }
  return avx2_math::hsum(sum);
}

void softcap(float* x, size_t n, float cap) {
  const __m256 vcap = _mm256_set1_ps(cap), inverse = _mm256_set1_ps(1.0f / cap);
  for (size_t t = 0; t < n; t += 8) {
    const __m256i m = avx2_math::first_lanes(n - t);
    _mm256_maskstore_ps(x + t, m, avx2_math::softcap(_mm256_maskload_ps(x + t, m), vcap, inverse));
  }
}

void merge_head(const float* const* acc, const float* factor, size_t n_parts, float sum, size_t head_dim,
                float* out) {
  const __m256 divisor = _mm256_set1_ps(sum);
  for (size_t i = 0; i < head_dim; i += 8) {
    const __m256i m = avx2_math::first_lanes(head_dim - i);
    __m256 x = _mm256_setzero_ps();
    for (size_t p = 0; p < n_parts; ++p)
      x = _mm256_add_ps(x, _mm256_mul_ps(_mm256_set1_ps(factor[p]), _mm256_maskload_ps(acc[p] + i, m)));
    _mm256_maskstore_ps(out + i, m, _mm256_div_ps(x, divisor));
  }
}

}  // namespace

const DecodeKernels kAvx2DecodeKernels = {
    {nullptr, nullptr, nullptr, nullptr},
    {dot<F32>, dot<F16>, dot<BF16>, dot<Q8>},
    {add<F32>, add<F16>, add<BF16>, add<Q8>},
    exp_sum,
    softcap,
    merge_head,
};

}  // namespace pdbench::decode_detail
