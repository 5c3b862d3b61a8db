#pragma once
// A weight matrix: `rows` output rows, each of `cols` input elements,
// contiguous, in any supported element type; as stored in the model file, or
// regrouped for the decode kernels (RowLayout).
#include <cstddef>
#include <cstdint>

#include "engine/format/tensor_type.h"

namespace pdbench {

// How a quantized row's blocks are arranged (engine/kernels/gemv_matrix.h
// makes the regrouped one; the same bytes per row as the file).
//   Blocks: as in the file, each block's f16 scale before its quants.
//   GroupedQuants: all of the row's scales first, then the quants in groups
//     of 16 blocks (the last group may have fewer, n), each group as chunks
//     of 4n bytes: chunk k holds bytes 4k..4k+3 of every block of the group
//     in turn (8 chunks for Q8_0's 32 bytes, 4 for Q4_0's 16). One vpdpbusd
//     on a chunk adds into 16 blocks' dot products, one per int32 lane, so a
//     group ends with every block's sum in its own lane, ready for one
//     multiply by the 16 scales that one load brings.
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
};

}  // namespace pdbench
