#pragma once
// Pieces shared by the kernels built with AVX-512 flags: lane masks, exp
// and tanh on 16 f32 lanes. Only those files may include this (see gemv_isa.h on why
// inline AVX-512 code must stay in them).

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on their own
// _mm512_undefined_* (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstddef>

#include "engine/kernels/exp_tanh_polynomials.h"

namespace pdbench::avx512_math {

// Lanes of the 16 starting at element i that lie inside n elements.
inline __mmask16 lanes(size_t n, size_t i) {
  if (i >= n) return 0;
  return n - i >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (n - i)) - 1);
}

// Cephes expf's range reduction and polynomial (about 1 ulp), with scalef
// applying 2^n: 0 below the subnormals, +inf above FLT_MAX, as std::exp.
inline __m512 exp(__m512 x) {
  // exp(-104) is below the f32 subnormals, exp(89) above FLT_MAX.
  namespace P = exp_tanh_polynomials;
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(P::kExpMin)), _mm512_set1_ps(P::kExpMax));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(P::kLog2E)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(P::kLn2High), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(P::kLn2Low), r);
  __m512 p = _mm512_set1_ps(P::kExpP[0]);
#pragma GCC unroll 8
  for (int i = 1; i < 6; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(P::kExpP[i]));
  const __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(y, n);
}

// Eigen's generic_fast_tanh_float: an odd degree-13 over an even degree-6
// polynomial on x clamped to +-7.9053 (where tanh rounds to +-1 in f32),
// within 2.6e-7 of tanh over the whole range (measured against libm in
// double); x itself below 4e-4, where tanh(x) rounds to x.
inline __m512 tanh(__m512 x) {
  namespace P = exp_tanh_polynomials;
  const __m512 c = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(P::kTanhClamp)), _mm512_set1_ps(-P::kTanhClamp));
  const __m512 c2 = _mm512_mul_ps(c, c);
  __m512 p = _mm512_set1_ps(P::kTanhP[0]);
#pragma GCC unroll 8
  for (int i = 1; i < 7; ++i) p = _mm512_fmadd_ps(p, c2, _mm512_set1_ps(P::kTanhP[i]));
  p = _mm512_mul_ps(p, c);
  __m512 q = _mm512_set1_ps(P::kTanhQ[0]);
#pragma GCC unroll 8
  for (int i = 1; i < 4; ++i) q = _mm512_fmadd_ps(q, c2, _mm512_set1_ps(P::kTanhQ[i]));
  const __mmask16 tiny = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(P::kTanhTiny), _CMP_LT_OQ);
  return _mm512_mask_mov_ps(_mm512_div_ps(p, q), tiny, x);
}

// cap tanh(x / cap), as ref::softcap.
inline __m512 softcap(__m512 x, __m512 cap, __m512 inverse_cap) {
  return _mm512_mul_ps(tanh(_mm512_mul_ps(x, inverse_cap)), cap);
}

}  // namespace pdbench::avx512_math
