#include "engine/sampling/argmax.h"

#include <limits>

namespace pdbench {

size_t first_argmax(std::span<const float> v) {
  constexpr size_t kLanes = 16, kBlock = 1024;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float best = kNegInf;
  size_t best_block = 0;
  for (size_t b = 0; b < v.size(); b += kBlock) {
    const size_t end = v.size() - b < kBlock ? v.size() : b + kBlock;
    float lanes[kLanes];
    for (float& l : lanes) l = kNegInf;
    size_t i = b;
    for (; i + kLanes <= end; i += kLanes)
      for (size_t j = 0; j < kLanes; ++j) lanes[j] = v[i + j] > lanes[j] ? v[i + j] : lanes[j];
    float block_max = kNegInf;
    for (float l : lanes) block_max = l > block_max ? l : block_max;
    for (; i < end; ++i) block_max = v[i] > block_max ? v[i] : block_max;
    if (block_max > best) {  // strictly: an equal later block is not first
      best = block_max;
      best_block = b;
    }
  }
  for (size_t i = best_block; i < v.size(); ++i)
    if (v[i] == best) return i;
  return 0;  // nothing above -inf and no -inf: empty, or NaN only
}

}  // namespace pdbench
