// The AVX2 elementwise kernels of activation.h: activation_avx512.cpp's on 8
// lanes, a row's last n % 8 elements by masked loads and stores. Built with
// AVX2 flags (CMakeLists.txt); like gemv_avx2.cpp it instantiates nothing
// that portable files also instantiate.
#include "engine/kernels/activation.h"
#include "engine/kernels/avx2_math.h"

namespace pdbench::activation_detail {

namespace {

// The lanes of the 8 starting at element i that lie inside n elements.
__m256i lanes(size_t n, size_t i) { return avx2_math::first_lanes(n - i); }

}  // namespace

void rmsnorm_avx2(float* out, const float* x, const float* weight, size_t n, float eps) {
  // Two sums: half as long a chain of dependent adds.
  __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    even = _mm256_fmadd_ps(a, a, even);
    odd = _mm256_fmadd_ps(b, b, odd);
  }
  for (; i < n; i += 8) {
    const __m256 a = _mm256_maskload_ps(x + i, lanes(n, i));
    even = _mm256_fmadd_ps(a, a, even);
  }
  float ss = avx2_math::hsum(_mm256_add_ps(even, odd));
  ss /= static_cast<float>(n);
  ss += eps;
  // The same scalar steps and products as ref::rmsnorm from here on
  // (sqrtss rounds as std::sqrt, which this file must not instantiate).
  const __m256 scale = _mm256_set1_ps(1.0f / _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(ss))));
  for (i = 0; i < n; i += 8) {
    const __m256i m = lanes(n, i);
    _mm256_maskstore_ps(out + i, m,
                        _mm256_mul_ps(_mm256_maskload_ps(weight + i, m), _mm256_mul_ps(scale, _mm256_maskload_ps(x + i, m))));
  }
}

void swiglu_avx2(float* gate, const float* up, size_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes(n, i);
    const __m256 g = _mm256_maskload_ps(gate + i, m);
    // g * (1 / (1 + exp(-g))) * up, the reference's order of operations.
    const __m256 e = avx2_math::exp(_mm256_sub_ps(_mm256_setzero_ps(), g));
    const __m256 sigmoid = _mm256_div_ps(one, _mm256_add_ps(one, e));
    _mm256_maskstore_ps(gate + i, m, _mm256_mul_ps(_mm256_mul_ps(g, sigmoid), _mm256_maskload_ps(up + i, m)));
  }
}

void add_avx2(float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes(n, i);
    _mm256_maskstore_ps(a + i, m, _mm256_add_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m)));
  }
}

}  // namespace pdbench::activation_detail
