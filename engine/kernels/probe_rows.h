#pragma once
// Rows for the kernel probes (row_pairing.h, stream_prefetch.h): `count`
// rows of `cols` normal values (sigma 0.02, a trained layer's scale)
// quantized as `type` by the reference quantizer, so their scales are
// normal numbers. A kernel's speed does not depend on the values, so a probe
// copies a few such rows to the size it needs.
#include <cstddef>
#include <random>
#include <vector>

#include "engine/kernels/quantize.h"

namespace pdbench {

inline std::vector<std::byte> random_rows(TensorType type, size_t cols, size_t count, std::mt19937& gen) {
  std::normal_distribution<float> normal(0.0f, 0.02f);
  const size_t bytes = row_bytes(type, cols);
  std::vector<std::byte> rows(count * bytes);
  std::vector<float> values(cols);
  for (size_t r = 0; r < count; ++r) {
    for (float& v : values) v = normal(gen);
    quantize_row(type, values.data(), rows.data() + r * bytes, cols);
  }
  return rows;
}

}  // namespace pdbench
