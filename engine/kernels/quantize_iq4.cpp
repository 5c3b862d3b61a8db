// The reference quantizers of IQ4_NL and IQ4_XS: what llama-quantize writes
// without an importance matrix, ggml's quantize_row_iq4_nl_impl (as
// quantize_iq4_nl and quantize_iq4_xs call it, with ntry 7 and weights x^2)
// reproduced bit for bit. Each 32-weight sub-block's scale is searched over
// 15 candidates that put its largest value near a grid point; IQ4_XS then
// quantizes the 8 scales of a super-block to 6 bits against the largest.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/kernels/quantize.h"
#include "engine/kernels/scale_search.h"
#include "engine/util/half.h"

namespace pdbench::ref {

namespace {

using scale_search::nearest_grid_index;

// The weighted least-squares fit of x to d * grid[index(x / d)], w = x^2.
struct GridFit {
  float sumqx = 0, sumq2 = 0;
};
GridFit grid_fit(const float* x, float id) {
  GridFit fit;
  for (size_t j = 0; j < 32; ++j) {
    const float q = kIq4NlValues[nearest_grid_index(kIq4NlValues, id * x[j])];
    const float w = x[j] * x[j];
    fit.sumqx += w * q * x[j];
    fit.sumq2 += w * q * q;
  }
  return fit;
}

// Sub-block x's scale: the fit of d = max / 127, then of the inverse
// scales (k - 127) / max, k in -7..7, the best by sumqx^2 / sumq2; 0 for an
// all-zero sub-block. (Its quants are rounded again for the scale kept.)
float sub_block_scale(const float* x) {
  const float max = scale_search::signed_absmax(32, x);
  if (std::abs(max) < scale_search::kGroupMaxEps) return 0;
  const float d0 = -max / static_cast<float>(kIq4NlValues[0]);
  GridFit fit = grid_fit(x, 1 / d0);
  float d = fit.sumq2 > 0 ? fit.sumqx / fit.sumq2 : 0.0f;
  float best = d * fit.sumqx;
  for (int k = -7; k <= 7; ++k) {
    fit = grid_fit(x, static_cast<float>(k + kIq4NlValues[0]) / max);
    if (fit.sumq2 > 0 && fit.sumqx * fit.sumqx > best * fit.sumq2) {
      d = fit.sumqx / fit.sumq2;
      best = d * fit.sumqx;
    }
  }
  return d;
}

// x's 32 grid indices for the scale d (for d = 0, the index nearest 0).
void put_indices(const float* x, float d, uint8_t* qs) {
  const float id = d != 0.0f ? 1 / d : 0.0f;
  for (size_t j = 0; j < 32; ++j)
    put_field(qs, nibble_at(j), static_cast<unsigned>(nearest_grid_index(kIq4NlValues, id * x[j])));
}

// The 6-bit scale l (0..63) of sub-block ib into the packing iq4_xs_scale reads.
void put_iq4_xs_scale(BlockIQ4_XS& b, size_t ib, int l) {
  b.scales_l[ib / 2] = static_cast<uint8_t>(b.scales_l[ib / 2] | ((l & 0xf) << (4 * (ib % 2))));
  b.scales_h = static_cast<uint16_t>(b.scales_h | ((l >> 4) << (2 * ib)));
}

}  // namespace

// IQ4_NL: ggml's quantize_iq4_nl without importance weights.
void quantize_block(const float* x, BlockIQ4_NL& b) {
  const float d = sub_block_scale(x);
  b.d = f32_to_fp16(d);
  put_indices(x, d, b.qs);
}

// IQ4_XS: ggml's quantize_iq4_xs without importance weights.
void quantize_block(const float* x, BlockIQ4_XS& b) {
  float scales[8];
  for (size_t ib = 0; ib < 8; ++ib) scales[ib] = sub_block_scale(x + 32 * ib);
  const float d = -scale_search::signed_absmax(8, scales) / 32;
  b.d = f32_to_fp16(d);
  const float id = d != 0.0f ? 1 / d : 0.0f;
  for (size_t ib = 0; ib < 8; ++ib) {
    const int l = std::clamp(scale_search::nearest_int(id * scales[ib]), -32, 31);
    put_indices(x + 32 * ib, d * static_cast<float>(l), b.qs + 16 * ib);
    put_iq4_xs_scale(b, ib, l + 32);
  }
}

}  // namespace pdbench::ref
