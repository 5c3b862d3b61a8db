#include "engine/kernels/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/kernels/weight_format.h"
#include "engine/util/half.h"

namespace pdbench {

namespace {

// Q8_0: d = max|x| / 127, q = round(x / d).
void quantize_block(const float* x, BlockQ8_0& b) {
  float amax = 0.0f;
  for (size_t j = 0; j < 32; ++j) amax = std::max(amax, std::abs(x[j]));
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  b.d = f32_to_fp16(d);
  for (size_t j = 0; j < 32; ++j) b.qs[j] = static_cast<int8_t>(std::lround(x[j] * id));
}

// Q4_0: the value of largest magnitude maps to -8, so d = max / -8 keeps its
// sign; q = clamp(x / d + 8.5 truncated, 0, 15).
void quantize_block(const float* x, BlockQ4_0& b) {
  float amax = 0.0f, max = 0.0f;
  for (size_t j = 0; j < 32; ++j)
    if (std::abs(x[j]) > amax) {
      amax = std::abs(x[j]);
      max = x[j];
    }
  const float d = max / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  b.d = f32_to_fp16(d);
  for (size_t j = 0; j < 16; ++j) {
    const auto lo = static_cast<uint8_t>(std::min(15, static_cast<int>(x[j] * id + 8.5f)));
    const auto hi = static_cast<uint8_t>(std::min(15, static_cast<int>(x[j + 16] * id + 8.5f)));
    b.qs[j] = static_cast<uint8_t>(lo | (hi << 4));
  }
}

template <typename Block>
void quantize_blocks(const float* x, std::byte* out, size_t n) {
  for (size_t i = 0; i < n / 32; ++i) {
    Block b{};
    quantize_block(x + 32 * i, b);
    std::memcpy(out + i * sizeof(Block), &b, sizeof(Block));
  }
}

template <uint16_t (*Convert)(float)>
void convert_halves(const float* x, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint16_t h = Convert(x[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

}  // namespace

void quantize_row(TensorType type, const float* x, std::byte* out, size_t n) {
  weight_format(type).quantize(x, out, n);
}

namespace ref {

void quantize_f32(const float* x, std::byte* out, size_t n) { std::memcpy(out, x, n * sizeof(float)); }

void quantize_f16(const float* x, std::byte* out, size_t n) { convert_halves<f32_to_fp16>(x, out, n); }

void quantize_bf16(const float* x, std::byte* out, size_t n) { convert_halves<f32_to_bf16>(x, out, n); }

void quantize_q8_0(const float* x, std::byte* out, size_t n) { quantize_blocks<BlockQ8_0>(x, out, n); }

void quantize_q4_0(const float* x, std::byte* out, size_t n) { quantize_blocks<BlockQ4_0>(x, out, n); }

}  // namespace ref

}  // namespace pdbench
