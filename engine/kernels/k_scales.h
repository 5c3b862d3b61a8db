#pragma once
// The K-quants' packed sub-block scales, unpacked four bytes at a time as
// ggml's vec_dot kernels read them (Q3_K's all 16 in one vector), for the
// SIMD gemv files, which all have AVX2: static, so each compiles its own
// copy with its ISA's flags (gemv_isa.h). quant_blocks.h reads the same
// fields one at a time (q3_k_scale, k4_scale_min); the kernel tests hold
// the two to the same results.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

namespace pdbench::gemv_detail {

// Q3_K's 16 six-bit sub-block scales (0..63; w uses s - 32) from their 12
// bytes: sub-blocks 0-7's low nibbles are the low nibbles of bytes 0-7,
// 8-15's their high nibbles, and byte 8 + j % 4 holds the high 2 bits of j,
// j + 4, j + 8 and j + 12. Byte j of the result is sub-block j's scale:
// from the packed words p0 p1 p2, its words are the low nibbles of [p0,
// p1, p0 >> 4, p1 >> 4] with the 2-bit pairs of p2 >> 0, 2, 4, 6 above,
// all four at once. Word by word in scalar registers, the unpack took a
// quarter of the AVX-512 kernel's one-token time (BM_gemm_rows q3_K_grouped,
// Llama-3.2-1B gate/up, AMD EPYC Zen 4).
static inline __m128i unpack_q3_k_scales(const std::byte* packed12) {
  uint32_t p2;
  std::memcpy(&p2, packed12 + 8, sizeof(p2));
  const __m128i p =
      _mm_insert_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(packed12)), static_cast<int>(p2), 2);
  const __m128i low = _mm_and_si128(_mm_srlv_epi32(_mm_shuffle_epi32(p, _MM_SHUFFLE(1, 0, 1, 0)), _mm_setr_epi32(0, 0, 4, 4)),
                                    _mm_set1_epi32(0x0f0f0f0f));
  const __m128i high = _mm_and_si128(_mm_srlv_epi32(_mm_shuffle_epi32(p, _MM_SHUFFLE(2, 2, 2, 2)), _mm_setr_epi32(0, 2, 4, 6)),
                                     _mm_set1_epi32(0x03030303));
  return _mm_or_si128(low, _mm_slli_epi32(high, 4));
}

// A Q4_K (or Q5_K) super-block's header as 4 words: d and dmin (f16),
// then the 12 bytes that pack its 8 sub-blocks' 6-bit scales and mins (as
// get_scale_min_k4): scales into scale[0..1], mins into min[0..1], byte j
// of the pair sub-block j's.
struct Q4KHeader {
  uint32_t d_dmin;
  uint32_t scale[2];
  uint32_t min[2];
};

static inline Q4KHeader read_q4_k_header(const std::byte* p) {
  uint32_t u[4];
  std::memcpy(u, p, sizeof(u));
  return {u[0],
          {u[1] & 0x3f3f3f3fu, (u[3] & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4)},
          {u[2] & 0x3f3f3f3fu, ((u[3] >> 4) & 0x0f0f0f0fu) | (((u[2] >> 6) & 0x03030303u) << 4)}};
}

}  // namespace pdbench::gemv_detail
