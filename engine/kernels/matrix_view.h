#pragma once
// A weight matrix as stored in the model file: `rows` output rows, each of
// `cols` input elements, contiguous, in any supported element type.
#include <cstddef>
#include <cstdint>

#include "engine/format/tensor_type.h"

namespace pdbench {

struct MatrixView {
  TensorType type = TensorType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  const std::byte* data = nullptr;

  size_t row_stride() const { return row_bytes(type, static_cast<size_t>(cols)); }
  const std::byte* row(int64_t r) const { return data + static_cast<size_t>(r) * row_stride(); }
  size_t bytes() const { return static_cast<size_t>(rows) * row_stride(); }
};

}  // namespace pdbench
