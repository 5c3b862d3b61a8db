// Prefill attention tile kernels for AVX-512 F/BW/VL (+ FMA, F16C). Built
// with those flags (engine/attention/CMakeLists.txt); see decode_kernels.h
// for why it keeps to raw pointers and intrinsics.
//
// A vector holds one element of 16 query rows (the tile is transposed), so a
// row block's scores against a K/V tile are 16 registers, one per key, each
// grown by broadcasting key elements; the online softmax is lane by lane
// with no horizontal sums; and the values go in the same way, one FMA per
// (key, element).
//
// Loops over arrays of vectors carry #pragma GCC unroll: unrolled, the arrays
// live in registers (GCC 12 at -O2 otherwise keeps them on the stack).
#include <limits>

#include "engine/attention/kv_avx512.h"
#include "engine/attention/prefill_kernels.h"

namespace pdbench::prefill_detail {

namespace {

using avx512_math::lanes;

template <typename Loader>
void unpack(const std::byte* vectors, size_t n, size_t head_dim, float* out) {
  const Loader loader(head_dim);
  const size_t stride = kv_vector_bytes(Loader::kType, head_dim);
  for (size_t t = 0; t < n; ++t)
    for (size_t i = 0; i < head_dim; i += 16) {
      const __mmask16 m = lanes(head_dim, i);
      _mm512_mask_storeu_ps(out + t * head_dim + i, m, load(loader, vectors + t * stride, i, m));
    }
}

// kHeadDim != 0 fixes head_dim at compile time: each key then sits at a
// constant offset from one pointer, where a run-time head_dim needs 16
// pointers, more than the registers left.
template <size_t kHeadDim>
void attend(const QueryTile& tile, const float* keys, const float* values, size_t first) {
  const size_t rows = tile.rows, hd = kHeadDim != 0 ? kHeadDim : tile.head_dim;
  for (size_t r = 0; r < rows; r += kRowBlock) {
    __m512 s[kKvTile];
#pragma GCC unroll 16
    for (__m512& sc : s) sc = _mm512_setzero_ps();
    for (size_t i = 0; i < hd; ++i) {
      const __m512 q = _mm512_loadu_ps(tile.q + i * rows + r);
#pragma GCC unroll 16
      for (size_t c = 0; c < kKvTile; ++c)
        s[c] = _mm512_fmadd_ps(q, _mm512_set1_ps(keys[c * hd + i]), s[c]);
    }
    if (tile.softcap != 0) {  // Gemma 2
      const __m512 cap = _mm512_set1_ps(tile.softcap), inverse = _mm512_set1_ps(1.0f / tile.softcap);
#pragma GCC unroll 16
      for (__m512& sc : s) sc = avx512_math::softcap(sc, cap, inverse);
    }
    // Causal and window mask: lane r sees key c when its window's first
    // position <= first + c <= its position.
    const __m512i pos = _mm512_loadu_si512(tile.pos + r);
    const __m512i row_first = _mm512_loadu_si512(tile.first + r);
    const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    __mmask16 seen[kKvTile];
    __m512 tile_max = minus_inf;
#pragma GCC unroll 16
    for (size_t c = 0; c < kKvTile; ++c) {
      const __m512i key = _mm512_set1_epi32(static_cast<int>(first + c));
      seen[c] = _mm512_cmp_epi32_mask(key, pos, _MM_CMPINT_LE) &
                _mm512_cmp_epi32_mask(row_first, key, _MM_CMPINT_LE);
      tile_max = _mm512_mask_max_ps(tile_max, seen[c], tile_max, s[c]);
    }
    const __m512 old_max = _mm512_loadu_ps(tile.max + r);
    const __m512 max = _mm512_max_ps(old_max, tile_max);
    // Rescales what came before; 0 in a lane that has seen no key yet (its
    // window starts past this tile), where exp(-inf - -inf) would be NaN.
    const __mmask16 started = _mm512_cmp_ps_mask(max, minus_inf, _CMP_NEQ_UQ);
    const __m512 f = _mm512_maskz_mov_ps(started, avx512_math::exp(_mm512_sub_ps(old_max, max)));
    __m512 sum = _mm512_mul_ps(_mm512_loadu_ps(tile.sum + r), f);
#pragma GCC unroll 16
    for (size_t c = 0; c < kKvTile; ++c) {
      s[c] = _mm512_maskz_mov_ps(seen[c], avx512_math::exp(_mm512_sub_ps(s[c], max)));
      sum = _mm512_add_ps(sum, s[c]);
    }
    _mm512_storeu_ps(tile.max + r, max);
    _mm512_storeu_ps(tile.sum + r, sum);
    // Even and odd keys in two sums: half as long a chain of dependent FMAs.
    for (size_t i = 0; i < hd; ++i) {
      __m512 even = _mm512_mul_ps(_mm512_loadu_ps(tile.acc + i * rows + r), f);
      __m512 odd = _mm512_setzero_ps();
#pragma GCC unroll 16
      for (size_t c = 0; c < kKvTile; c += 2) {
        even = _mm512_fmadd_ps(s[c], _mm512_set1_ps(values[c * hd + i]), even);
        odd = _mm512_fmadd_ps(s[c + 1], _mm512_set1_ps(values[(c + 1) * hd + i]), odd);
      }
      _mm512_storeu_ps(tile.acc + i * rows + r, _mm512_add_ps(even, odd));
    }
  }
}

void attend_any(const QueryTile& tile, const float* keys, const float* values, size_t first) {
  switch (tile.head_dim) {
    case 64:
      return attend<64>(tile, keys, values, first);
    case 128:
      return attend<128>(tile, keys, values, first);
    default:
      return attend<0>(tile, keys, values, first);
  }
}

}  // namespace

const PrefillKernels kAvx512PrefillKernels = {
    {unpack<kv_avx512::F32>, unpack<kv_avx512::F16>, unpack<kv_avx512::BF16>,
     unpack<kv_avx512::Q8>},
    attend_any,
};

}  // namespace pdbench::prefill_detail
