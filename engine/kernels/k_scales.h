#pragma once
// The K-quants' packed sub-block scales, unpacked four bytes at a time as
// ggml's vec_dot kernels read them, for the SIMD gemv files: static, so each
// compiles its own copy with its ISA's flags (gemv_isa.h). quant_blocks.h
// reads the same fields one at a time (q3_k_scale, k4_scale_min); the
// kernel tests hold the two to the same results.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pdbench::gemv_detail {

// Q3_K's 16 six-bit sub-block scales (0..63; w uses s - 32) from their 12
// bytes: sub-blocks 0-7's low nibbles are the low nibbles of bytes 0-7,
// 8-15's their high nibbles, and byte 8 + j % 4 holds the high 2 bits of j,
// j + 4, j + 8 and j + 12. Byte j of the 4 words (little-endian) is
// sub-block j's scale.
struct Q3KScales {
  uint32_t word[4];
};

static inline Q3KScales unpack_q3_k_scales(const std::byte* packed12) {
  uint32_t p[3];
  std::memcpy(p, packed12, sizeof(p));
  const auto six_bits = [&](uint32_t low, unsigned high_shift) {
    return (low & 0x0f0f0f0fu) | (((p[2] >> high_shift) & 0x03030303u) << 4);
  };
  return {{six_bits(p[0], 0), six_bits(p[1], 2), six_bits(p[0] >> 4, 4), six_bits(p[1] >> 4, 6)}};
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
