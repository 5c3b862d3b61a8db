#include "engine/kernels/gemv_matrix.h"

#include <cstring>
#include <string>

#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

bool is_quantized(TensorType type) { return type == TensorType::Q8_0 || type == TensorType::Q4_0; }

// Row by row: every block's 2-byte scale, in order, then every block's quants.
void split_scales(const MatrixView& w, std::byte* out) {
  const size_t n_blocks = static_cast<size_t>(w.cols) / traits(w.type).block_size;
  const size_t block_bytes = traits(w.type).block_bytes;
  const size_t quant_bytes = block_bytes - sizeof(uint16_t);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < w.rows; ++r) {
    const std::byte* row = w.row(r);
    std::byte* scales = out + static_cast<size_t>(r) * w.row_stride();
    std::byte* quants = scales + n_blocks * sizeof(uint16_t);
    for (size_t b = 0; b < n_blocks; ++b) {
      std::memcpy(scales + b * sizeof(uint16_t), row + b * block_bytes, sizeof(uint16_t));
      std::memcpy(quants + b * quant_bytes, row + b * block_bytes + sizeof(uint16_t), quant_bytes);
    }
  }
}

}  // namespace

RowLayout gemv_layout(TensorType type, GemvIsa isa) {
  return isa == GemvIsa::Avx512 && is_quantized(type) ? RowLayout::SplitScales : RowLayout::Blocks;
}

GemvMatrix::GemvMatrix(const MatrixView& w, GemvIsa isa) : view_(w) {
  if (w.layout != RowLayout::Blocks) throw Error("GemvMatrix: expects a matrix as stored in the file");
  if (gemv_layout(w.type, isa) == RowLayout::Blocks) return;
  require_memory(w.bytes(), "decode GEMV weights (" + std::to_string(w.rows) + " x " + std::to_string(w.cols) + ")");
  storage_.resize(w.bytes());
  split_scales(w, storage_.data());
  view_.data = storage_.data();
  view_.layout = RowLayout::SplitScales;
}

}  // namespace pdbench
