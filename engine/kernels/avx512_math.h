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
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(89.0f));
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

// Eigen's generic_fast_tanh_float: an odd degree-13 over an even degree-6
// polynomial on x clamped to +-7.9053 (where tanh rounds to +-1 in f32),
// within 2.6e-7 of tanh over the whole range (measured against libm in
// double); x itself below 4e-4, where tanh(x) rounds to x.
inline __m512 tanh(__m512 x) {
  const __m512 c = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(7.90531110763549805f)),
                                 _mm512_set1_ps(-7.90531110763549805f));
  const __m512 c2 = _mm512_mul_ps(c, c);
  __m512 p = _mm512_set1_ps(-2.76076847742355e-16f);
  p = _mm512_fmadd_ps(p, c2, _mm512_set1_ps(2.00018790482477e-13f));
  p = _mm512_fmadd_ps(p, c2, _mm512_set1_ps(-8.60467152213735e-11f));
  p = _mm512_fmadd_ps(p, c2, _mm512_set1_ps(5.12229709037114e-08f));
  p = _mm512_fmadd_ps(p, c2, _mm512_set1_ps(1.48572235717979e-05f));
  p = _mm512_fmadd_ps(p, c2, _mm512_set1_ps(6.37261928875436e-04f));
  p = _mm512_fmadd_ps(p, c2, _mm512_set1_ps(4.89352455891786e-03f));
  p = _mm512_mul_ps(p, c);
  __m512 q = _mm512_set1_ps(1.19825839466702e-06f);
  q = _mm512_fmadd_ps(q, c2, _mm512_set1_ps(1.18534705686654e-04f));
  q = _mm512_fmadd_ps(q, c2, _mm512_set1_ps(2.26843463243900e-03f));
  q = _mm512_fmadd_ps(q, c2, _mm512_set1_ps(4.89352518554385e-03f));
  const __mmask16 tiny = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(0.0004f), _CMP_LT_OQ);
  return _mm512_mask_mov_ps(_mm512_div_ps(p, q), tiny, x);
}

// cap tanh(x / cap), as ref::softcap.
inline __m512 softcap(__m512 x, __m512 cap, __m512 inverse_cap) {
  return _mm512_mul_ps(tanh(_mm512_mul_ps(x, inverse_cap)), cap);
}

}  // namespace pdbench::avx512_math
