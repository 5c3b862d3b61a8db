// The prefill attention tile kernel for AVX2 (+ FMA, F16C). Built with those
// flags (engine/attention/CMakeLists.txt); see decode_kernels.h for why it
// keeps to raw pointers and intrinsics.
//
// AVX-512's kernel (prefill_kernels_avx512.cpp) on 8 lanes: a vector holds
// one element of 8 query rows (the tile is transposed), a row block's
// scores against keys are a register per key, grown by broadcasting key
// elements, and the online softmax goes lane by lane. AVX2's 16 registers
// hold the scores of 8 keys, so a K/V tile goes in two halves, each folded
// into the rows' softmax state in turn.
#include <limits>

#include "engine/attention/prefill_kernels.h"
#include "engine/kernels/avx2_math.h"

namespace pdbench::prefill_detail {

namespace {

constexpr size_t kLanes = 8;

// Keys [first, first + 8) into rows [r, r + 8) of the tile; keys and values
// are those 8 keys' rows.
template <size_t kHeadDim>
[[gnu::always_inline]] inline void attend_eight(const QueryTile& tile, const float* keys, const float* values,
                                                size_t first, size_t r) {
  const size_t rows = tile.rows, hd = kHeadDim != 0 ? kHeadDim : tile.head_dim;
  __m256 s[kLanes];
#pragma GCC unroll 8
  for (__m256& sc : s) sc = _mm256_setzero_ps();
  for (size_t i = 0; i < hd; ++i) {
    const __m256 q = _mm256_loadu_ps(tile.q + i * rows + r);
#pragma GCC unroll 8
    for (size_t c = 0; c < kLanes; ++c) s[c] = _mm256_fmadd_ps(q, _mm256_set1_ps(keys[c * hd + i]), s[c]);
  }
  if (tile.softcap != 0) {  // Gemma 2
    const __m256 cap = _mm256_set1_ps(tile.softcap), inverse = _mm256_set1_ps(1.0f / tile.softcap);
#pragma GCC unroll 8
    for (__m256& sc : s) sc = avx2_math::softcap(sc, cap, inverse);
  }
  // Causal and window mask: lane r sees key c when its window's first
  // position <= first + c <= its position; a key it does not see scores
  // -inf, which exp takes to 0 once the row has seen a key.
  const __m256i pos = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile.pos + r));
  const __m256i row_first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile.first + r));
  const __m256 minus_inf = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256 tile_max = minus_inf;
#pragma GCC unroll 8
  for (size_t c = 0; c < kLanes; ++c) {
    const __m256i key = _mm256_set1_epi32(static_cast<int>(first + c));
    const __m256i unseen = _mm256_or_si256(_mm256_cmpgt_epi32(key, pos), _mm256_cmpgt_epi32(row_first, key));
    s[c] = _mm256_blendv_ps(s[c], minus_inf, _mm256_castsi256_ps(unseen));
    tile_max = _mm256_max_ps(tile_max, s[c]);
  }
  const __m256 old_max = _mm256_loadu_ps(tile.max + r);
  const __m256 max = _mm256_max_ps(old_max, tile_max);
  // 0 in a lane that has seen no key yet (its window starts past these
  // keys), where exp(-inf - -inf) would be NaN.
  const __m256 started = _mm256_cmp_ps(max, minus_inf, _CMP_NEQ_UQ);
  const __m256 f = _mm256_and_ps(started, avx2_math::exp(_mm256_sub_ps(old_max, max)));
  __m256 sum = _mm256_mul_ps(_mm256_loadu_ps(tile.sum + r), f);
#pragma GCC unroll 8
  for (size_t c = 0; c < kLanes; ++c) {
    s[c] = _mm256_and_ps(started, avx2_math::exp(_mm256_sub_ps(s[c], max)));
    sum = _mm256_add_ps(sum, s[c]);
  }
  _mm256_storeu_ps(tile.max + r, max);
  _mm256_storeu_ps(tile.sum + r, sum);
  // Even and odd keys in two sums: half as long a chain of dependent FMAs.
  for (size_t i = 0; i < hd; ++i) {
    __m256 even = _mm256_mul_ps(_mm256_loadu_ps(tile.acc + i * rows + r), f);
    __m256 odd = _mm256_setzero_ps();
#pragma GCC unroll 8
    for (size_t c = 0; c < kLanes; c += 2) {
      even = _mm256_fmadd_ps(s[c], _mm256_set1_ps(values[c * hd + i]), even);
      odd = _mm256_fmadd_ps(s[c + 1], _mm256_set1_ps(values[(c + 1) * hd + i]), odd);
    }
    _mm256_storeu_ps(tile.acc + i * rows + r, _mm256_add_ps(even, odd));
  }
}

// kHeadDim != 0 fixes head_dim at compile time: each key then sits at a
// constant offset from one pointer.
template <size_t kHeadDim>
void attend(const QueryTile& tile, const float* keys, const float* values, size_t first) {
  const size_t hd = kHeadDim != 0 ? kHeadDim : tile.head_dim;
  static_assert(kRowBlock % kLanes == 0 && kKvTile % kLanes == 0);
  for (size_t r = 0; r < tile.rows; r += kLanes)
    for (size_t c = 0; c < kKvTile; c += kLanes)
      attend_eight<kHeadDim>(tile, keys + c * hd, values + c * hd, first + c, r);
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

const AttendKvTile kAvx2Attend = attend_any;

}  // namespace pdbench::prefill_detail
