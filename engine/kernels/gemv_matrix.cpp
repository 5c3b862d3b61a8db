#include "engine/kernels/gemv_matrix.h"

#include <string>

#include "engine/kernels/gemv_isa.h"
#include "engine/kernels/grouped_rows.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

void regroup(const MatrixView& w, std::byte* out) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < w.rows; ++r)
    group_row(w.type, w.row(r), out + static_cast<size_t>(r) * w.row_stride(), static_cast<size_t>(w.cols));
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
