#pragma once
// How far one pass's logits are from another's, for tests that bound it.
#include <algorithm>
#include <cmath>
#include <span>

namespace pdbench::test {

// Max |a - b| over max |b|: logits errors relative to the logits' scale.
inline float relative_error(std::span<const float> a, std::span<const float> b) {
  float diff = 0, scale = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

}  // namespace pdbench::test
