#pragma once
// Pieces shared by the kernels built with AVX2 flags: lane masks, a
// horizontal sum and maximum, and exp and tanh on 8 f32 lanes (avx512_math.h's, whose
// comments say where they come from).
// Only those files may include this (see gemv_isa.h on why inline AVX2
// code must stay in them).
#if !defined(__AVX2__) || !defined(__FMA__)
#error "avx2_math.h is for the files built with the AVX2 flags"
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "engine/kernels/exp_tanh_polynomials.h"

namespace pdbench::avx2_math {

// The first n of 8 int32 lanes (all of them for n >= 8).
inline __m256i first_lanes(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n < 8 ? n : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline float hsum(__m256 v) {
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

inline int32_t hsum(__m256i v) {
  const __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i s2 = _mm_add_epi32(s4, _mm_unpackhi_epi64(s4, s4));
  return _mm_cvtsi128_si32(_mm_add_epi32(s2, _mm_shuffle_epi32(s2, 1)));
}

inline float hmax(__m256 v) {
  const __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 m2 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
  return _mm_cvtss_f32(_mm_max_ss(m2, _mm_movehdup_ps(m2)));
}

// avx512_math::exp's reduction and polynomial. AVX2 has no scalef, so 2^n
// (n in -150..128) is two factors 2^(n/2) and 2^(n - n/2) built in the
// exponent bits, each a normal float: the product rounds as scalef's does,
// to 0 below the subnormals and +inf above FLT_MAX.
inline __m256 exp(__m256 x) {
  namespace P = exp_tanh_polynomials;
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(P::kExpMin)), _mm256_set1_ps(P::kExpMax));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(P::kLog2E)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(P::kLn2High), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(P::kLn2Low), r);
  __m256 p = _mm256_set1_ps(P::kExpP[0]);
#pragma GCC unroll 8
  for (int i = 1; i < 6; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(P::kExpP[i]));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(ni, 1);
  const auto power = [](__m256i e) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23));
  };
  return _mm256_mul_ps(_mm256_mul_ps(y, power(half)), power(_mm256_sub_epi32(ni, half)));
}

// avx512_math::tanh: Eigen's generic_fast_tanh_float.
inline __m256 tanh(__m256 x) {
  namespace P = exp_tanh_polynomials;
  const __m256 c = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(P::kTanhClamp)), _mm256_set1_ps(-P::kTanhClamp));
  const __m256 c2 = _mm256_mul_ps(c, c);
  __m256 p = _mm256_set1_ps(P::kTanhP[0]);
#pragma GCC unroll 8
  for (int i = 1; i < 7; ++i) p = _mm256_fmadd_ps(p, c2, _mm256_set1_ps(P::kTanhP[i]));
  p = _mm256_mul_ps(p, c);
  __m256 q = _mm256_set1_ps(P::kTanhQ[0]);
#pragma GCC unroll 8
  for (int i = 1; i < 4; ++i) q = _mm256_fmadd_ps(q, c2, _mm256_set1_ps(P::kTanhQ[i]));
  const __m256 abs = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 tiny = _mm256_cmp_ps(abs, _mm256_set1_ps(P::kTanhTiny), _CMP_LT_OQ);
  return _mm256_blendv_ps(_mm256_div_ps(p, q), x, tiny);
}

// cap tanh(x / cap), as ref::softcap.
inline __m256 softcap(__m256 x, __m256 cap, __m256 inverse_cap) {
  return _mm256_mul_ps(tanh(_mm256_mul_ps(x, inverse_cap)), cap);
}

}  // namespace pdbench::avx2_math
