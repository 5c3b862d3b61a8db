// The reference dequantizers of the types in super-blocks of 256 (the
// K-quants and IQ4_XS). Each reproduces ggml's dequantize_row_<type>
// (ggml-quants.c) bit for bit: a sub-block's scale (and min) is multiplied
// out once, d * sc in f32, then each weight is that times its quant (minus
// the min's product), rounded at each step as ggml rounds (no FMA here).
#include <cstdint>

#include "engine/kernels/dequantize.h"
#include "engine/util/half.h"

namespace pdbench::ref {

namespace {

// Q4_K and Q5_K: ggml's dequantize_row_q4_K and dequantize_row_q5_K; Q4_K
// has no high bits (qh null).
void dequantize_q45_k(uint16_t d16, uint16_t dmin16, const uint8_t* scales, const uint8_t* qs, const uint8_t* qh,
                      float* out) {
  const float d = fp16_to_f32(d16), dmin = fp16_to_f32(dmin16);
  for (size_t sub = 0; sub < 8; ++sub) {
    const ScaleMin sm = k4_scale_min(scales, sub);
    const float dl = d * static_cast<float>(sm.scale);
    const float ml = dmin * static_cast<float>(sm.min);
    for (size_t e = 32 * sub; e < 32 * sub + 32; ++e) {
      const unsigned q = field(qs, k_nibble_at(e), 4) | (qh != nullptr ? field(qh, high_bit_at(e), 1) << 4 : 0);
      out[e] = dl * static_cast<float>(q) - ml;
    }
  }
}

}  // namespace

// Q2_K: ggml's dequantize_row_q2_K.
void dequantize_block(const BlockQ2_K& b, float* out) {
  const float d = fp16_to_f32(b.d), dmin = fp16_to_f32(b.dmin);
  for (size_t sub = 0; sub < 16; ++sub) {
    const float dl = d * static_cast<float>(b.scales[sub] & 0xf);
    const float ml = dmin * static_cast<float>(b.scales[sub] >> 4);
    for (size_t e = 16 * sub; e < 16 * sub + 16; ++e)
      out[e] = dl * static_cast<float>(field(b.qs, crumb_at(e), 2)) - ml;
  }
}

// Q3_K: ggml's dequantize_row_q3_K. A clear high bit subtracts 4.
void dequantize_block(const BlockQ3_K& b, float* out) {
  const float d = fp16_to_f32(b.d);
  for (size_t sub = 0; sub < 16; ++sub) {
    const float dl = d * static_cast<float>(q3_k_scale(b.scales, sub) - 32);
    for (size_t e = 16 * sub; e < 16 * sub + 16; ++e) {
      const int q = static_cast<int>(field(b.qs, crumb_at(e), 2)) - (field(b.hmask, high_bit_at(e), 1) ? 0 : 4);
      out[e] = dl * static_cast<float>(q);
    }
  }
}

void dequantize_block(const BlockQ4_K& b, float* out) { dequantize_q45_k(b.d, b.dmin, b.scales, b.qs, nullptr, out); }

void dequantize_block(const BlockQ5_K& b, float* out) { dequantize_q45_k(b.d, b.dmin, b.scales, b.qs, b.qh, out); }

// Q6_K: ggml's dequantize_row_q6_K, which multiplies d * sc first.
void dequantize_block(const BlockQ6_K& b, float* out) {
  const float d = fp16_to_f32(b.d);
  for (size_t e = 0; e < kSuperBlock; ++e) {
    const int q = static_cast<int>(field(b.ql, q6_k_nibble_at(e), 4) | (field(b.qh, crumb_at(e), 2) << 4)) - 32;
    out[e] = d * static_cast<float>(b.scales[e / 16]) * static_cast<float>(q);
  }
}

// IQ4_XS: ggml's dequantize_row_iq4_xs.
void dequantize_block(const BlockIQ4_XS& b, float* out) {
  const float d = fp16_to_f32(b.d);
  for (size_t sub = 0; sub < 8; ++sub) {
    const float dl = d * static_cast<float>(iq4_xs_scale(b, sub) - 32);
    const uint8_t* qs = b.qs + 16 * sub;
    for (size_t j = 0; j < 32; ++j)
      out[32 * sub + j] = dl * static_cast<float>(kIq4NlValues[field(qs, nibble_at(j), 4)]);
  }
}

}  // namespace pdbench::ref
