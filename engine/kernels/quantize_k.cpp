// The reference quantizers of the K-quants: ggml's quantize_row_<type>_ref
// (ggml-quants.c), what llama-quantize writes when it has no importance
// matrix, reproduced bit for bit. Each searches every sub-block's scale
// (scale_search.h), quantizes the sub-block scales against the largest,
// then rounds every weight again against its sub-block's scale as stored.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/kernels/quantize.h"
#include "engine/kernels/scale_search.h"
#include "engine/util/half.h"

namespace pdbench::ref {

namespace {

using scale_search::nearest_int;

// Sub-block scales and mins before they are quantized, and the quants.
template <size_t kSubs>
struct SubBlocks {
  float scales[kSubs] = {};
  float mins[kSubs] = {};
  float max_scale = 0, max_min = 0;  // the largest of each (all >= 0)
  uint8_t L[kSuperBlock] = {};

  void keep_largest(size_t j) {
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
};

// The 2-bit planes of Q2_K/Q3_K quants.
void put_crumbs(const uint8_t* L, uint8_t* qs) {
  for (size_t e = 0; e < kSuperBlock; ++e) put_field(qs, crumb_at(e), L[e]);
}

// Q3_K's 6-bit scale l (0..63) of sub-block j into the packing q3_k_scale reads.
void put_q3_k_scale(uint8_t* scales, size_t j, int l) {
  scales[j % 8] = static_cast<uint8_t>(scales[j % 8] | ((l & 0xf) << (4 * (j / 8))));
  scales[8 + j % 4] = static_cast<uint8_t>(scales[8 + j % 4] | ((l >> 4) << (2 * (j / 4))));
}

// The 6-bit scale and min of Q4_K/Q5_K sub-block j into the packing
// k4_scale_min reads; sub-blocks in order, as the high bits of 4-7 go into
// bytes that 0-7 wrote first.
void put_k4_scale_min(uint8_t* scales, size_t j, uint8_t ls, uint8_t lm) {
  if (j < 4) {
    scales[j] = ls;
    scales[j + 4] = lm;
    return;
  }
  scales[j + 4] = static_cast<uint8_t>((ls & 0xf) | ((lm & 0xf) << 4));
  scales[j - 4] = static_cast<uint8_t>(scales[j - 4] | ((ls >> 4) << 6));
  scales[j] = static_cast<uint8_t>(scales[j] | ((lm >> 4) << 6));
}

// What Q4_K and Q5_K share (ggml's quantize_row_q4_K_ref and
// quantize_row_q5_K_ref): sub-block fits weighted by rms(x) + |x|, by
// squared error; 6-bit scales and mins against 63rds of the largest. Fills
// L (0..nmax) and the scales.
template <int kNmax>
void quantize_q45_k(const float* x, float rmin, int nstep, uint16_t& d16, uint16_t& dmin16, uint8_t* packed,
                    uint8_t* L) {
  SubBlocks<8> s;
  for (size_t j = 0; j < 8; ++j) {
    const float* xs = x + 32 * j;
    float sum_x2 = 0;
    for (size_t l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    float weights[32];
    for (size_t l = 0; l < 32; ++l) weights[l] = av_x + std::abs(xs[l]);
    s.scales[j] =
        scale_search::offset_weighted(32, kNmax, xs, weights, s.L + 32 * j, &s.mins[j], rmin, 0.1f, nstep, false);
    s.keep_largest(j);
  }
  const float inv_scale = s.max_scale > 0 ? 63.0f / s.max_scale : 0.0f;
  const float inv_min = s.max_min > 0 ? 63.0f / s.max_min : 0.0f;
  for (size_t j = 0; j < 8; ++j) {
    const auto ls = static_cast<uint8_t>(nearest_int(inv_scale * s.scales[j]));
    const auto lm = static_cast<uint8_t>(nearest_int(inv_min * s.mins[j]));
    put_k4_scale_min(packed, j, std::min<uint8_t>(63, ls), std::min<uint8_t>(63, lm));
  }
  d16 = f32_to_fp16(s.max_scale / 63.0f);
  dmin16 = f32_to_fp16(s.max_min / 63.0f);
  std::copy_n(s.L, kSuperBlock, L);
  for (size_t j = 0; j < 8; ++j) {
    const ScaleMin sm = k4_scale_min(packed, j);
    const float d = fp16_to_f32(d16) * static_cast<float>(sm.scale);
    if (d == 0.0f) continue;
    const float dm = fp16_to_f32(dmin16) * static_cast<float>(sm.min);
    for (size_t e = 32 * j; e < 32 * j + 32; ++e)
      L[e] = static_cast<uint8_t>(std::clamp(nearest_int((x[e] + dm) / d), 0, kNmax));
  }
}

}  // namespace

// Q2_K: ggml's quantize_row_q2_K_ref. Sub-block fits weighted by |x|, by
// absolute error; 4-bit scales and mins against 15ths of the largest.
void quantize_block(const float* x, BlockQ2_K& b) {
  SubBlocks<16> s;
  for (size_t j = 0; j < 16; ++j) {
    float weights[16];
    for (size_t l = 0; l < 16; ++l) weights[l] = std::abs(x[16 * j + l]);
    s.scales[j] = scale_search::offset_weighted(16, 3, x + 16 * j, weights, s.L + 16 * j, &s.mins[j], -0.5f, 0.1f, 15,
                                                true);
    s.keep_largest(j);
  }
  constexpr float kLevels = 15.0f;
  if (s.max_scale > 0) {
    const float iscale = kLevels / s.max_scale;
    for (size_t j = 0; j < 16; ++j) b.scales[j] = static_cast<uint8_t>(nearest_int(iscale * s.scales[j]));
    b.d = f32_to_fp16(s.max_scale / kLevels);
  }
  if (s.max_min > 0) {
    const float iscale = kLevels / s.max_min;
    for (size_t j = 0; j < 16; ++j)
      b.scales[j] = static_cast<uint8_t>(b.scales[j] | (nearest_int(iscale * s.mins[j]) << 4));
    b.dmin = f32_to_fp16(s.max_min / kLevels);
  }
  for (size_t j = 0; j < 16; ++j) {
    const float d = fp16_to_f32(b.d) * static_cast<float>(b.scales[j] & 0xf);
    if (d == 0.0f) continue;
    const float dm = fp16_to_f32(b.dmin) * static_cast<float>(b.scales[j] >> 4);
    for (size_t e = 16 * j; e < 16 * j + 16; ++e)
      s.L[e] = static_cast<uint8_t>(std::clamp(nearest_int((x[e] + dm) / d), 0, 3));
  }
  put_crumbs(s.L, b.qs);
}

// Q3_K: ggml's quantize_row_q3_K_ref. Symmetric sub-block fits refined a
// quant at a time; signed 6-bit scales against the one of largest magnitude.
void quantize_block(const float* x, BlockQ3_K& b) {
  int8_t L[kSuperBlock];
  float scales[16];
  for (size_t j = 0; j < 16; ++j) scales[j] = scale_search::symmetric_refined(16, 4, x + 16 * j, L + 16 * j);
  const float max_scale = scale_search::signed_absmax(16, scales);
  if (max_scale != 0.0f) {
    const float iscale = -32.0f / max_scale;
    for (size_t j = 0; j < 16; ++j) {
      const auto l = static_cast<int8_t>(nearest_int(iscale * scales[j]));
      put_q3_k_scale(b.scales, j, std::clamp<int>(l, -32, 31) + 32);
    }
    b.d = f32_to_fp16(1 / iscale);
  }
  for (size_t j = 0; j < 16; ++j) {
    const float d = fp16_to_f32(b.d) * static_cast<float>(q3_k_scale(b.scales, j) - 32);
    if (d == 0.0f) continue;
    for (size_t e = 16 * j; e < 16 * j + 16; ++e)
      L[e] = static_cast<int8_t>(std::clamp(nearest_int(x[e] / d), -4, 3) + 4);
  }
  uint8_t low[kSuperBlock];
  for (size_t e = 0; e < kSuperBlock; ++e) {
    put_field(b.hmask, high_bit_at(e), L[e] > 3 ? 1 : 0);
    low[e] = static_cast<uint8_t>(L[e] > 3 ? L[e] - 4 : L[e]);
  }
  put_crumbs(low, b.qs);
}

// Q4_K: ggml's quantize_row_q4_K_ref.
void quantize_block(const float* x, BlockQ4_K& b) {
  uint8_t L[kSuperBlock];
  quantize_q45_k<15>(x, -1.0f, 20, b.d, b.dmin, b.scales, L);
  for (size_t e = 0; e < kSuperBlock; ++e) put_field(b.qs, k_nibble_at(e), L[e]);
}

// Q5_K: ggml's quantize_row_q5_K_ref.
void quantize_block(const float* x, BlockQ5_K& b) {
  uint8_t L[kSuperBlock];
  quantize_q45_k<31>(x, -0.5f, 15, b.d, b.dmin, b.scales, L);
  for (size_t e = 0; e < kSuperBlock; ++e) {
    put_field(b.qs, k_nibble_at(e), L[e] & 0xfu);
    put_field(b.qh, high_bit_at(e), L[e] >> 4);
  }
}

// Q6_K: ggml's quantize_row_q6_K_ref. Symmetric sub-block fits weighted by
// x^2; signed 8-bit scales against the one of largest magnitude.
void quantize_block(const float* x, BlockQ6_K& b) {
  int8_t L[kSuperBlock];
  float scales[16];
  for (size_t j = 0; j < 16; ++j) scales[j] = scale_search::symmetric_weighted(16, 32, x + 16 * j, L + 16 * j);
  const float max_scale = scale_search::signed_absmax(16, scales);
  if (std::abs(max_scale) < scale_search::kGroupMaxEps) return;  // all zero, as the block is
  const float iscale = -128.0f / max_scale;
  b.d = f32_to_fp16(1 / iscale);
  for (size_t j = 0; j < 16; ++j) b.scales[j] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[j])));
  for (size_t j = 0; j < 16; ++j) {
    const float d = fp16_to_f32(b.d) * static_cast<float>(b.scales[j]);
    if (d == 0.0f) continue;
    for (size_t e = 16 * j; e < 16 * j + 16; ++e)
      L[e] = static_cast<int8_t>(std::clamp(nearest_int(x[e] / d), -32, 31) + 32);
  }
  for (size_t e = 0; e < kSuperBlock; ++e) {
    const auto q = static_cast<unsigned>(L[e]);
    put_field(b.ql, q6_k_nibble_at(e), q & 0xf);
    put_field(b.qh, crumb_at(e), q >> 4);
  }
}

}  // namespace pdbench::ref
