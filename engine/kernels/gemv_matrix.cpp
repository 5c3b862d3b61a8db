#include "engine/kernels/gemv_matrix.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/kernels/gemv_isa.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

// Row by row: every block's 2-byte scale, in order, then every block's
// quants in RowLayout::GroupedQuants's chunks.
void regroup(const MatrixView& w, std::byte* out) {
  constexpr size_t kGroup = 16, kChunk = 4;
  const size_t n_blocks = static_cast<size_t>(w.cols) / traits(w.type).block_size;
  const size_t block_bytes = traits(w.type).block_bytes;
  const size_t quant_bytes = block_bytes - sizeof(uint16_t);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < w.rows; ++r) {
    const std::byte* row = w.row(r);
    std::byte* scales = out + static_cast<size_t>(r) * w.row_stride();
    std::byte* quants = scales + n_blocks * sizeof(uint16_t);
    for (size_t b = 0; b < n_blocks; ++b) {
      const std::byte* block = row + b * block_bytes;
      std::memcpy(scales + b * sizeof(uint16_t), block, sizeof(uint16_t));
      const size_t group_first = b / kGroup * kGroup;
      const size_t group_size = std::min(kGroup, n_blocks - group_first);
      std::byte* group = quants + group_first * quant_bytes;
      for (size_t k = 0; k < quant_bytes / kChunk; ++k)
        std::memcpy(group + k * kChunk * group_size + (b - group_first) * kChunk,
                    block + sizeof(uint16_t) + k * kChunk, kChunk);
    }
  }
}

}  // namespace

RowLayout gemv_layout(TensorType type, Isa isa) {
  return gemv_detail::kernels_for(isa, type).file_rows != nullptr ? RowLayout::Blocks : RowLayout::GroupedQuants;
}

GemvMatrix::GemvMatrix(const MatrixView& w, Isa isa) : view_(w) {
  if (w.layout != RowLayout::Blocks) throw Error("GemvMatrix: expects a matrix as stored in the file");
  const RowLayout layout = gemv_layout(w.type, isa);
  if (layout == RowLayout::Blocks) return;
  require_memory(w.bytes(), "decode GEMV weights (" + std::to_string(w.rows) + " x " + std::to_string(w.cols) + ")");
  storage_.resize(w.bytes());
  regroup(w, storage_.data());
  view_.data = storage_.data();
  view_.layout = layout;
}

}  // namespace pdbench
