#pragma once
// The index of the first largest value: the greedy token (lowest id among
// equal logits). std::max_element is the reference; this is the fast one.
#include <cstddef>
#include <span>

namespace pdbench {

// 0 for an empty span. NaN is never larger than anything, so a NaN-only
// span also gives 0. std::max_element's compare-and-branch per element took
// ~440 us over a 128,256-token vocabulary (a tenth of a batch-8 decode step's
// non-matmul time); a 16-lane max per block vectorizes, and only the block
// holding the maximum is searched for its first occurrence: ~25 us with the
// baseline SSE2.
size_t first_argmax(std::span<const float> v);

}  // namespace pdbench
