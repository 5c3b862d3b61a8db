#pragma once
// The block layouts of the quantized GGUF types, byte for byte as ggml
// stores them (ggml-common.h's block_* structs), each with the number of
// weights it holds (kElements). Scales are f16 bit patterns
// (engine/util/half.h converts them). The quants of a block are integers;
// what they mean (an offset, a grid) is each type's comment.
#include <cstddef>
#include <cstdint>

namespace pdbench {

// Elements per block of the "legacy" types and of the K-quants' super-blocks.
inline constexpr size_t kQuantBlock = 32;
inline constexpr size_t kSuperBlock = 256;

// Q8_0: 32 weights share one f16 scale; w = d * q.
struct BlockQ8_0 {
  static constexpr size_t kElements = kQuantBlock;
  uint16_t d;  // f16 scale
  int8_t qs[32];
};
static_assert(sizeof(BlockQ8_0) == 34, "Q8_0 block is 2 + 32 bytes, unpadded");

// Q4_0: 32 weights share one f16 scale; w = d * (q - 8). Byte j holds weight j
// in its low nibble and weight j + 16 in its high nibble.
struct BlockQ4_0 {
  static constexpr size_t kElements = kQuantBlock;
  uint16_t d;  // f16 scale
  uint8_t qs[16];
};
static_assert(sizeof(BlockQ4_0) == 18, "Q4_0 block is 2 + 16 bytes, unpadded");

// Q4_1: w = d * q + m, q in 0..15, nibbles as Q4_0's.
struct BlockQ4_1 {
  static constexpr size_t kElements = kQuantBlock;
  uint16_t d;  // f16 scale
  uint16_t m;  // f16 offset (the block's minimum)
  uint8_t qs[16];
};
static_assert(sizeof(BlockQ4_1) == 20, "Q4_1 block is 2 + 2 + 16 bytes, unpadded");

// Q5_0: w = d * (q - 16), q in 0..31: the low 4 bits as Q4_0's nibbles, the
// fifth in qh (bit_at).
struct BlockQ5_0 {
  static constexpr size_t kElements = kQuantBlock;
  uint16_t d;  // f16 scale
  uint8_t qh[4];
  uint8_t qs[16];
};
static_assert(sizeof(BlockQ5_0) == 22, "Q5_0 block is 2 + 4 + 16 bytes, unpadded");

// Q5_1: w = d * q + m, q in 0..31 stored as Q5_0's.
struct BlockQ5_1 {
  static constexpr size_t kElements = kQuantBlock;
  uint16_t d;  // f16 scale
  uint16_t m;  // f16 offset
  uint8_t qh[4];
  uint8_t qs[16];
};
static_assert(sizeof(BlockQ5_1) == 24, "Q5_1 block is 2 + 2 + 4 + 16 bytes, unpadded");

// IQ4_NL: w = d * kIq4NlValues[q], q a nibble stored as Q4_0's.
struct BlockIQ4_NL {
  static constexpr size_t kElements = kQuantBlock;
  uint16_t d;  // f16 scale
  uint8_t qs[16];
};
static_assert(sizeof(BlockIQ4_NL) == 18, "IQ4_NL block is 2 + 16 bytes, unpadded");

// The non-uniform 4-bit grid of IQ4_NL and IQ4_XS (ggml's kvalues_iq4nl):
// denser near zero, where most weights are.
inline constexpr int8_t kIq4NlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// K-quants: super-blocks of 256 weights in sub-blocks of 16 or 32, each
// sub-block's scale (and min) quantized against the super-block's f16 ones.
// Across a 128- or 64-weight chunk the quants are stored bit plane by bit
// plane: byte l of a chunk holds the same bits of weights l, l + 32, ...
// (the positions below the structs).

// Q2_K: 16 sub-blocks of 16; w = d * (sc & 15) * q - dmin * (sc >> 4),
// q in 0..3 (crumb_at), sc = scales[e / 16].
struct BlockQ2_K {
  static constexpr size_t kElements = kSuperBlock;
  uint8_t scales[16];  // 4-bit scale (low) and 4-bit min (high) per sub-block
  uint8_t qs[64];
  uint16_t d;     // f16 super-block scale of the scales
  uint16_t dmin;  // f16 super-block scale of the mins
};
static_assert(sizeof(BlockQ2_K) == 84, "Q2_K block is 16 + 64 + 2 + 2 bytes, unpadded");

// Q3_K: 16 sub-blocks of 16; w = d * (s - 32) * (q - 4), q in 0..7: its low
// 2 bits placed as Q2_K's, its high bit in hmask (high_bit_at); s is 6 bits
// (q3_k_scale).
struct BlockQ3_K {
  static constexpr size_t kElements = kSuperBlock;
  uint8_t hmask[32];
  uint8_t qs[64];
  uint8_t scales[12];  // 16 6-bit scales
  uint16_t d;          // f16 super-block scale
};
static_assert(sizeof(BlockQ3_K) == 110, "Q3_K block is 32 + 64 + 12 + 2 bytes, unpadded");

// Q4_K: 8 sub-blocks of 32; w = d * sc * q - dmin * m, q in 0..15
// (k_nibble_at), sc and m 6 bits each (k4_scale_min).
struct BlockQ4_K {
  static constexpr size_t kElements = kSuperBlock;
  uint16_t d;     // f16 super-block scale of the scales
  uint16_t dmin;  // f16 super-block scale of the mins
  uint8_t scales[12];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ4_K) == 144, "Q4_K block is 2 + 2 + 12 + 128 bytes, unpadded");

// Q5_K: Q4_K with a fifth bit in qh (high_bit_at).
struct BlockQ5_K {
  static constexpr size_t kElements = kSuperBlock;
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qh[32];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ5_K) == 176, "Q5_K block is 2 + 2 + 12 + 32 + 128 bytes, unpadded");

// Q6_K: 16 sub-blocks of 16; w = d * scales[e / 16] * (q - 32), q in 0..63:
// its low nibble in ql (q6_k_nibble_at), its high 2 bits in qh placed as
// Q2_K's quants (crumb_at).
struct BlockQ6_K {
  static constexpr size_t kElements = kSuperBlock;
  uint8_t ql[128];
  uint8_t qh[64];
  int8_t scales[16];  // signed 8-bit sub-block scales
  uint16_t d;         // f16 super-block scale
};
static_assert(sizeof(BlockQ6_K) == 210, "Q6_K block is 128 + 64 + 16 + 2 bytes, unpadded");

// IQ4_XS: 8 sub-blocks of 32, each IQ4_NL's nibbles (16 bytes per
// sub-block) with w = d * (s - 32) * kIq4NlValues[q], s 6 bits
// (iq4_xs_scale).
struct BlockIQ4_XS {
  static constexpr size_t kElements = kSuperBlock;
  uint16_t d;  // f16 super-block scale
  uint16_t scales_h;  // high 2 bits of sub-block ib's scale at bits 2 ib
  uint8_t scales_l[4];  // low 4 bits: nibble ib % 2 of byte ib / 2
  uint8_t qs[128];
};
static_assert(sizeof(BlockIQ4_XS) == 136, "IQ4_XS block is 2 + 2 + 4 + 128 bytes, unpadded");

// Where weight e of a block keeps its bits: a byte of one of the block's
// arrays and the shift of the field within it. The dequantizers read the
// fields and the quantizers write them through the same positions.
struct BitField {
  size_t byte;
  unsigned shift;
};

// The nibble of weight j (0..31) of Q4_0/Q4_1/Q5_0/Q5_1/IQ4_NL qs and of an
// IQ4_XS sub-block: weights j and j + 16 share byte j % 16.
inline BitField nibble_at(size_t j) { return {j % 16, static_cast<unsigned>(4 * (j / 16))}; }

// Bit j (0..31) of Q5_0/Q5_1 qh, a little-endian u32.
inline BitField bit_at(size_t j) { return {j / 8, static_cast<unsigned>(j % 8)}; }

// The 2 bits of weight e (0..255) in 64 bytes of 2-bit planes: Q2_K's
// quants, Q3_K's low bits (qs), Q6_K's high bits (qh).
inline BitField crumb_at(size_t e) {
  return {32 * (e / 128) + e % 32, static_cast<unsigned>(2 * ((e % 128) / 32))};
}

// The high bit of Q3_K (hmask) and Q5_K (qh) weight e.
inline BitField high_bit_at(size_t e) { return {e % 32, static_cast<unsigned>(e / 32)}; }

// The low nibble of Q4_K/Q5_K weight e in qs.
inline BitField k_nibble_at(size_t e) {
  return {32 * (e / 64) + e % 32, static_cast<unsigned>(4 * ((e % 64) / 32))};
}

// The low nibble of Q6_K weight e in ql: in each half of 128 weights, the
// 32-weight quarters 0 and 2 share bytes 0-31, 1 and 3 bytes 32-63.
inline BitField q6_k_nibble_at(size_t e) {
  const size_t quarter = (e % 128) / 32;
  return {64 * (e / 128) + 32 * (quarter % 2) + e % 32, static_cast<unsigned>(4 * (quarter / 2))};
}

// The field of `bits` bits at f in bytes.
inline unsigned field(const uint8_t* bytes, BitField f, unsigned bits) {
  return (bytes[f.byte] >> f.shift) & ((1u << bits) - 1);
}

// Writes v into the field at f, which is still zero.
inline void put_field(uint8_t* bytes, BitField f, unsigned v) {
  bytes[f.byte] = static_cast<uint8_t>(bytes[f.byte] | (v << f.shift));
}

// The 6-bit scale and min of Q4_K/Q5_K sub-block j (0..7) from the 12
// packed bytes: sub-blocks 0-3 in the low 6 bits of bytes 0-3 (scales) and
// 4-7 (mins); 4-7 in the nibbles of bytes 8-11 with their top 2 bits in the
// top bits of bytes 0-7. ggml's get_scale_min_k4.
struct ScaleMin {
  uint8_t scale;
  uint8_t min;
};
inline ScaleMin k4_scale_min(const uint8_t* scales, size_t j) {
  if (j < 4) return {static_cast<uint8_t>(scales[j] & 63), static_cast<uint8_t>(scales[j + 4] & 63)};
  return {static_cast<uint8_t>((scales[j + 4] & 0xf) | ((scales[j - 4] >> 6) << 4)),
          static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4))};
}

// Q3_K sub-block j's (0..15) 6-bit scale, 0..63 (w uses s - 32): its low
// nibble is nibble j / 8 of byte j % 8, its high 2 bits bits 2 (j / 4) of
// byte 8 + j % 4.
inline int q3_k_scale(const uint8_t* scales, size_t j) {
  const int low = (scales[j % 8] >> (4 * (j / 8))) & 0xf;
  const int high = (scales[8 + j % 4] >> (2 * (j / 4))) & 3;
  return low | (high << 4);
}

// IQ4_XS sub-block ib's (0..7) 6-bit scale, 0..63 (w uses s - 32).
inline int iq4_xs_scale(const BlockIQ4_XS& b, size_t ib) {
  return ((b.scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | (((b.scales_h >> (2 * ib)) & 3) << 4);
}

}  // namespace pdbench
