// The AVX-512 elementwise kernels of activation.h. Built with AVX-512 flags
// (CMakeLists.txt); like gemv_avx512.cpp it instantiates nothing that
// portable files also instantiate.
#include "engine/kernels/activation.h"
#include "engine/kernels/avx512_math.h"

namespace pdbench::activation_detail {

using avx512_math::lanes;

void rmsnorm_avx512(float* out, const float* x, const float* weight, size_t n, float eps) {
  // Two sums: half as long a chain of dependent adds.
  __m512 even = _mm512_setzero_ps(), odd = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
    even = _mm512_fmadd_ps(a, a, even);
    odd = _mm512_fmadd_ps(b, b, odd);
  }
  for (; i < n; i += 16) {
    const __m512 a = _mm512_maskz_loadu_ps(lanes(n, i), x + i);
    even = _mm512_fmadd_ps(a, a, even);
  }
  float ss = _mm512_reduce_add_ps(_mm512_add_ps(even, odd));
  ss /= static_cast<float>(n);
  ss += eps;
  // The same scalar steps and products as ref::rmsnorm from here on
  // (sqrtss rounds as std::sqrt, which this file must not instantiate).
  const __m512 scale = _mm512_set1_ps(1.0f / _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(ss))));
  for (i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n, i);
    _mm512_mask_storeu_ps(out + i, m,
                          _mm512_mul_ps(_mm512_maskz_loadu_ps(m, weight + i),
                                        _mm512_mul_ps(scale, _mm512_maskz_loadu_ps(m, x + i))));
  }
}

void swiglu_avx512(float* gate, const float* up, size_t n) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n, i);
    const __m512 g = _mm512_maskz_loadu_ps(m, gate + i);
    // g * (1 / (1 + exp(-g))) * up, the reference's order of operations.
    const __m512 e = avx512_math::exp(_mm512_sub_ps(_mm512_setzero_ps(), g));
    const __m512 sigmoid = _mm512_div_ps(one, _mm512_add_ps(one, e));
    _mm512_mask_storeu_ps(gate + i, m, _mm512_mul_ps(_mm512_mul_ps(g, sigmoid), _mm512_maskz_loadu_ps(m, up + i)));
  }
}

void add_avx512(float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n, i);
    const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    _mm512_mask_storeu_ps(a + i, m, sum);
  }
}

}  // namespace pdbench::activation_detail
