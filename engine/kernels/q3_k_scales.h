#pragma once
// Q3_K's 16 six-bit sub-block scales (0..63; w uses s - 32) unpacked from
// their 12 bytes four at a time, as ggml's vec_dot_q3_K does: sub-blocks
// 0-7's low nibbles are the low nibbles of bytes 0-7, 8-15's their high
// nibbles, and byte 8 + j % 4 holds the high 2 bits of j, j + 4, j + 8 and
// j + 12 (q3_k_scale in quant_blocks.h, one at a time). For the SIMD gemv
// files: static, so each compiles its own copy with its ISA's flags
// (gemv_isa.h).
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pdbench::gemv_detail {

// Byte j of the 4 words (little-endian) is sub-block j's scale.
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

}  // namespace pdbench::gemv_detail
