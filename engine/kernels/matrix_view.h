#pragma once
// A weight matrix: `rows` output rows, each of `cols` input elements,
// contiguous, in any supported element type; as stored in the model file, or
// regrouped for the decode kernels (RowLayout).
#include <cstddef>
#include <cstdint>

#include "engine/format/tensor_type.h"

namespace pdbench {

// How a quantized row's blocks are arranged:
//   Blocks: as in the file.
//   GroupedQuants: rearranged for the AVX-512 and AVX2 integer kernels in
//     the same bytes (grouped_rows.h says how; gemv_matrix.h makes the copy).
enum class RowLayout : uint8_t { Blocks, GroupedQuants };

struct MatrixView {
  TensorType type = TensorType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  const std::byte* data = nullptr;
  RowLayout layout = RowLayout::Blocks;

  size_t row_stride() const { return row_bytes(type, static_cast<size_t>(cols)); }
  const std::byte* row(int64_t r) const { return data + static_cast<size_t>(r) * row_stride(); }
  size_t bytes() const { return static_cast<size_t>(rows) * row_stride(); }
  // Rows [first, first + count) as a matrix of their own: a fused tensor's
  // parts (phi3's attn_qkv) are used in place.
  MatrixView row_range(int64_t first, int64_t count) const { return {type, count, cols, row(first), layout}; }
};

}  // namespace pdbench
