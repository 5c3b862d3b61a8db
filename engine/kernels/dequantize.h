#pragma once
// Reference conversion of one stored row to f32: the definition every fast
// kernel of a weight format is tested against, bit for bit ggml's
// dequantize_row_<type> (tests/kernels/llama_quantize_fixture_test.cpp holds
// them to ggml's output on llama-quantize's files). One function per
// format, which its row in weight_format.h names, and dequantize_row for any.
#include <cstddef>
#include <cstring>

#include "engine/format/tensor_type.h"

namespace pdbench {

void dequantize_row(TensorType type, const std::byte* row, float* out, size_t n);

namespace ref {
void dequantize_f32(const std::byte* row, float* out, size_t n);
void dequantize_f16(const std::byte* row, float* out, size_t n);
void dequantize_bf16(const std::byte* row, float* out, size_t n);

// One block's Block::kElements values: blocks of 32 in dequantize.cpp,
// super-blocks of 256 in dequantize_k.cpp.
void dequantize_block(const BlockQ8_0& b, float* out);
void dequantize_block(const BlockQ4_0& b, float* out);
void dequantize_block(const BlockQ4_1& b, float* out);
void dequantize_block(const BlockQ5_0& b, float* out);
void dequantize_block(const BlockQ5_1& b, float* out);
void dequantize_block(const BlockIQ4_NL& b, float* out);
void dequantize_block(const BlockQ2_K& b, float* out);
void dequantize_block(const BlockQ3_K& b, float* out);
void dequantize_block(const BlockQ4_K& b, float* out);
void dequantize_block(const BlockQ5_K& b, float* out);
void dequantize_block(const BlockQ6_K& b, float* out);
void dequantize_block(const BlockIQ4_XS& b, float* out);

// A row of quantized blocks, n values (whole blocks); rows need not be
// aligned for Block.
template <typename Block>
void dequantize_blocks(const std::byte* row, float* out, size_t n) {
  for (size_t i = 0; i < n / Block::kElements; ++i) {
    Block b;
    std::memcpy(&b, row + i * sizeof(Block), sizeof(Block));
    dequantize_block(b, out + i * Block::kElements);
  }
}
}  // namespace ref

}  // namespace pdbench
