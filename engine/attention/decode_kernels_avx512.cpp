// Decode attention kernels for AVX-512 F/BW/VL (+ FMA, F16C), 16 f32 lanes.
// The only file built with those flags (engine/attention/CMakeLists.txt); see
// decode_kernels.h for why it keeps to raw pointers and intrinsics.
//
// Each kernel walks a head vector 64 elements (four registers) at a time with
// masked loads, so any head_dim works and nothing past a vector is read.

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on their own
// _mm512_undefined_* (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>
#include <cstring>

#include "engine/attention/decode_kernels.h"

namespace pdbench::decode_detail {

namespace {

// Lanes of the 16 starting at element i that lie inside n elements.
__mmask16 lanes(size_t n, size_t i) {
  if (i >= n) return 0;
  return n - i >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (n - i)) - 1);
}

// Loaders: elements [i, i + 16) of one stored vector as f32, the lanes
// outside mask m zero.
struct F32 {
  explicit F32(size_t) {}
  __m512 load(const std::byte* vec, size_t i, __mmask16 m) const {
    return _mm512_maskz_loadu_ps(m, vec + 4 * i);
  }
};
struct F16 {
  explicit F16(size_t) {}
  __m512 load(const std::byte* vec, size_t i, __mmask16 m) const {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, vec + 2 * i));
  }
};
// bf16 is the top half of an f32: widen and shift left by 16, exact.
struct BF16 {
  explicit BF16(size_t) {}
  __m512 load(const std::byte* vec, size_t i, __mmask16 m) const {
    const __m512i wide = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, vec + 2 * i));
    return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
  }
};
// A group is 32 elements or the whole vector (kv_type.h), so 16 lanes from
// a multiple of 16 never straddle two groups: one scale per load.
struct Q8 {
  explicit Q8(size_t head_dim) : group(kv_q8_group(head_dim)) {}
  __m512 load(const std::byte* vec, size_t i, __mmask16 m) const {
    if (m == 0) return _mm512_setzero_ps();  // past the vector: its scale is not there to read
    const std::byte* g = vec + i / group * (2 + group);
    uint16_t d;
    std::memcpy(&d, g, sizeof(d));
    const __m128i q = _mm_maskz_loadu_epi8(m, g + 2 + i % group);
    return _mm512_mul_ps(_mm512_set1_ps(_cvtsh_ss(d)), _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)));
  }
  size_t group;
};

template <typename Loader>
void dot_keys(const float* q, const std::byte* keys, size_t stride, size_t n_tokens,
              size_t head_dim, float* scores) {
  const Loader loader(head_dim);
  for (size_t t = 0; t < n_tokens; ++t) {
    const std::byte* k = keys + t * stride;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    for (size_t i = 0; i < head_dim; i += 64) {
      const __mmask16 m0 = lanes(head_dim, i), m1 = lanes(head_dim, i + 16);
      const __mmask16 m2 = lanes(head_dim, i + 32), m3 = lanes(head_dim, i + 48);
      a0 = _mm512_fmadd_ps(loader.load(k, i, m0), _mm512_maskz_loadu_ps(m0, q + i), a0);
      a1 = _mm512_fmadd_ps(loader.load(k, i + 16, m1), _mm512_maskz_loadu_ps(m1, q + i + 16), a1);
      a2 = _mm512_fmadd_ps(loader.load(k, i + 32, m2), _mm512_maskz_loadu_ps(m2, q + i + 32), a2);
      a3 = _mm512_fmadd_ps(loader.load(k, i + 48, m3), _mm512_maskz_loadu_ps(m3, q + i + 48), a3);
    }
    scores[t] = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  }
}

// Head-dimension slices outer and positions inner, so each slice of acc stays
// in registers over all n_tokens values (they are in L1 from dot_keys).
template <typename Loader>
void add_values(const float* w, const std::byte* values, size_t stride, size_t n_tokens,
                size_t head_dim, float* acc) {
  const Loader loader(head_dim);
  for (size_t i = 0; i < head_dim; i += 64) {
    const __mmask16 m0 = lanes(head_dim, i), m1 = lanes(head_dim, i + 16);
    const __mmask16 m2 = lanes(head_dim, i + 32), m3 = lanes(head_dim, i + 48);
    __m512 a0 = _mm512_maskz_loadu_ps(m0, acc + i), a1 = _mm512_maskz_loadu_ps(m1, acc + i + 16);
    __m512 a2 = _mm512_maskz_loadu_ps(m2, acc + i + 32),
           a3 = _mm512_maskz_loadu_ps(m3, acc + i + 48);
    for (size_t t = 0; t < n_tokens; ++t) {
      const std::byte* v = values + t * stride;
      const __m512 wt = _mm512_set1_ps(w[t]);
      a0 = _mm512_fmadd_ps(wt, loader.load(v, i, m0), a0);
      a1 = _mm512_fmadd_ps(wt, loader.load(v, i + 16, m1), a1);
      a2 = _mm512_fmadd_ps(wt, loader.load(v, i + 32, m2), a2);
      a3 = _mm512_fmadd_ps(wt, loader.load(v, i + 48, m3), a3);
    }
    _mm512_mask_storeu_ps(acc + i, m0, a0);
    _mm512_mask_storeu_ps(acc + i + 16, m1, a1);
    _mm512_mask_storeu_ps(acc + i + 32, m2, a2);
    _mm512_mask_storeu_ps(acc + i + 48, m3, a3);
  }
}

// exp(x) for x <= 0 (scores minus their max): Cephes expf's range reduction
// and polynomial (about 1 ulp), with scalef applying 2^n (0 on underflow).
__m512 exp_nonpositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-104.0f));  // exp(-104) is below the f32 subnormals
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  const __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(y, n);
}

float exp_sum(float* x, size_t n, float max) {
  const __m512 vmax = _mm512_set1_ps(max);
  __m512 sum = _mm512_setzero_ps();
  for (size_t t = 0; t < n; t += 16) {
    const __mmask16 m = lanes(n, t);
    const __m512 e = exp_nonpositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + t), vmax));
    _mm512_mask_storeu_ps(x + t, m, e);
    sum = _mm512_mask_add_ps(sum, m, sum, e);
  }
  return _mm512_reduce_add_ps(sum);
}

template <typename Loader, KvType T>
void dot(const float* q, const std::byte* keys, size_t n_tokens, size_t head_dim, float* scores) {
  dot_keys<Loader>(q, keys, kv_vector_bytes(T, head_dim), n_tokens, head_dim, scores);
}

template <typename Loader, KvType T>
void add(const float* w, const std::byte* values, size_t n_tokens, size_t head_dim, float* acc) {
  add_values<Loader>(w, values, kv_vector_bytes(T, head_dim), n_tokens, head_dim, acc);
}

}  // namespace

const DecodeKernels kAvx512DecodeKernels = {
    {dot<F32, KvType::F32>, dot<F16, KvType::F16>, dot<BF16, KvType::BF16>, dot<Q8, KvType::Q8_0>},
    {add<F32, KvType::F32>, add<F16, KvType::F16>, add<BF16, KvType::BF16>, add<Q8, KvType::Q8_0>},
    exp_sum,
};

}  // namespace pdbench::decode_detail
