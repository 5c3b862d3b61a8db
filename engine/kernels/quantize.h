#pragma once
// Reference conversion of f32 rows into each stored weight type, with the
// same rounding as ggml's reference quantizers so files written here load
// identically elsewhere. The inverse of dequantize_row up to the format's
// error. One function per format, which its row in weight_format.h names,
// and quantize_row for any.
#include <cstddef>

#include "engine/format/tensor_type.h"

namespace pdbench {

// n must be a multiple of the type's block size; out holds row_bytes(type, n).
void quantize_row(TensorType type, const float* x, std::byte* out, size_t n);

namespace ref {
void quantize_f32(const float* x, std::byte* out, size_t n);
void quantize_f16(const float* x, std::byte* out, size_t n);
void quantize_bf16(const float* x, std::byte* out, size_t n);
void quantize_q8_0(const float* x, std::byte* out, size_t n);
void quantize_q4_0(const float* x, std::byte* out, size_t n);
}  // namespace ref

}  // namespace pdbench
