#include "engine/kernels/dequantize.h"

#include <cstdint>
#include <cstring>

#include "engine/kernels/weight_format.h"
#include "engine/util/half.h"

namespace pdbench {

namespace {

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // rows need not be aligned for T
  return v;
}

template <float (*ToF32)(uint16_t)>
void widen_halves(const std::byte* row, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = ToF32(load<uint16_t>(row + 2 * i));
}

}  // namespace

void dequantize_row(TensorType type, const std::byte* row, float* out, size_t n) {
  weight_format(type).dequantize(row, out, n);
}

namespace ref {

void dequantize_f32(const std::byte* row, float* out, size_t n) { std::memcpy(out, row, n * sizeof(float)); }

void dequantize_f16(const std::byte* row, float* out, size_t n) { widen_halves<fp16_to_f32>(row, out, n); }

void dequantize_bf16(const std::byte* row, float* out, size_t n) { widen_halves<bf16_to_f32>(row, out, n); }

void dequantize_q8_0(const std::byte* row, float* out, size_t n) {
  for (size_t b = 0; b < n / 32; ++b) {
    const auto block = load<BlockQ8_0>(row + b * sizeof(BlockQ8_0));
    const float d = fp16_to_f32(block.d);
    for (size_t j = 0; j < 32; ++j) out[b * 32 + j] = d * static_cast<float>(block.qs[j]);
  }
}

void dequantize_q4_0(const std::byte* row, float* out, size_t n) {
  for (size_t b = 0; b < n / 32; ++b) {
    const auto block = load<BlockQ4_0>(row + b * sizeof(BlockQ4_0));
    const float d = fp16_to_f32(block.d);
    for (size_t j = 0; j < 16; ++j) {
      out[b * 32 + j] = d * static_cast<float>((block.qs[j] & 0x0f) - 8);
      out[b * 32 + j + 16] = d * static_cast<float>((block.qs[j] >> 4) - 8);
    }
  }
}

}  // namespace ref

}  // namespace pdbench
