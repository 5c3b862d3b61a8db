#pragma once
// Reference conversion of one stored row to f32: the definition every fast
// kernel of a weight format is tested against. One function per format,
// which its row in weight_format.h names, and dequantize_row for any.
#include <cstddef>

#include "engine/format/tensor_type.h"

namespace pdbench {

void dequantize_row(TensorType type, const std::byte* row, float* out, size_t n);

namespace ref {
void dequantize_f32(const std::byte* row, float* out, size_t n);
void dequantize_f16(const std::byte* row, float* out, size_t n);
void dequantize_bf16(const std::byte* row, float* out, size_t n);
void dequantize_q8_0(const std::byte* row, float* out, size_t n);
void dequantize_q4_0(const std::byte* row, float* out, size_t n);
}  // namespace ref

}  // namespace pdbench
