#pragma once
// Reference conversion of f32 rows into each stored weight type, with the
// same rounding as ggml's reference quantizers so files written here load
// identically elsewhere: llama-quantize's bytes without an importance
// matrix (tests/kernels/llama_quantize_fixture_test.cpp). The inverse of
// dequantize_row up to the format's error. One function per format, which
// its row in weight_format.h names, and quantize_row for any.
#include <cstddef>
#include <cstring>

#include "engine/format/tensor_type.h"

namespace pdbench {

// n must be a multiple of the type's block size; out holds row_bytes(type, n).
void quantize_row(TensorType type, const float* x, std::byte* out, size_t n);

namespace ref {
void quantize_f32(const float* x, std::byte* out, size_t n);
void quantize_f16(const float* x, std::byte* out, size_t n);
void quantize_bf16(const float* x, std::byte* out, size_t n);

// Block::kElements values of x into b, which starts zeroed: the types whose
// scales follow from the block's extremes in quantize.cpp, the K-quants in
// quantize_k.cpp, IQ4 in quantize_iq4.cpp (those search for their scales).
void quantize_block(const float* x, BlockQ8_0& b);
void quantize_block(const float* x, BlockQ4_0& b);
void quantize_block(const float* x, BlockQ4_1& b);
void quantize_block(const float* x, BlockQ5_0& b);
void quantize_block(const float* x, BlockQ5_1& b);
void quantize_block(const float* x, BlockIQ4_NL& b);
void quantize_block(const float* x, BlockQ2_K& b);
void quantize_block(const float* x, BlockQ3_K& b);
void quantize_block(const float* x, BlockQ4_K& b);
void quantize_block(const float* x, BlockQ5_K& b);
void quantize_block(const float* x, BlockQ6_K& b);
void quantize_block(const float* x, BlockIQ4_XS& b);

// n values of x (whole blocks) into a row of blocks, which need not be aligned.
template <typename Block>
void quantize_blocks(const float* x, std::byte* out, size_t n) {
  for (size_t i = 0; i < n / Block::kElements; ++i) {
    Block b{};
    quantize_block(x + i * Block::kElements, b);
    std::memcpy(out + i * sizeof(Block), &b, sizeof(Block));
  }
}
}  // namespace ref

}  // namespace pdbench
