#pragma once
// Reference conversion of one stored row to f32: the definition every fast
// kernel of a weight format is tested against.
#include <cstddef>

#include "engine/format/tensor_type.h"

namespace pdbench {

void dequantize_row(TensorType type, const std::byte* row, float* out, size_t n);

}  // namespace pdbench
