#include "engine/kernels/dequantize.h"

#include <cstdint>
#include <cstring>

#include "engine/util/half.h"

namespace pdbench {

namespace {

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // rows need not be aligned for T
  return v;
}

}  // namespace

void dequantize_row(TensorType type, const std::byte* row, float* out, size_t n) {
  switch (type) {
    case TensorType::F32:
      std::memcpy(out, row, n * sizeof(float));
      return;
    case TensorType::F16:
      for (size_t i = 0; i < n; ++i) out[i] = fp16_to_f32(load<uint16_t>(row + 2 * i));
      return;
    case TensorType::BF16:
      for (size_t i = 0; i < n; ++i) out[i] = bf16_to_f32(load<uint16_t>(row + 2 * i));
      return;
    case TensorType::Q8_0:
      for (size_t b = 0; b < n / 32; ++b) {
        const auto block = load<BlockQ8_0>(row + b * sizeof(BlockQ8_0));
        const float d = fp16_to_f32(block.d);
        for (size_t j = 0; j < 32; ++j) out[b * 32 + j] = d * static_cast<float>(block.qs[j]);
      }
      return;
    case TensorType::Q4_0:
      for (size_t b = 0; b < n / 32; ++b) {
        const auto block = load<BlockQ4_0>(row + b * sizeof(BlockQ4_0));
        const float d = fp16_to_f32(block.d);
        for (size_t j = 0; j < 16; ++j) {
          out[b * 32 + j] = d * static_cast<float>((block.qs[j] & 0x0f) - 8);
          out[b * 32 + j + 16] = d * static_cast<float>((block.qs[j] >> 4) - 8);
        }
      }
      return;
  }
}

}  // namespace pdbench
