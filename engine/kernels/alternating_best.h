#pragma once
// Which of two ways of doing the same work runs faster here, timed for the
// kernel choices made at load (float_gemm_choice.h, row_pairing.h): one
// untimed run of each (first runs compile or fault in), then `runs` of each
// in turn, so a noisy machine's swings fall on both, the best time of each
// kept, since noise only adds time.
#include <algorithm>
#include <chrono>
#include <limits>

namespace pdbench {

struct BestOfTwo {
  double first_ms;
  double second_ms;
};

template <typename First, typename Second>
BestOfTwo alternating_best(int runs, First&& first, Second&& second) {
  const auto ms = [](auto&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  ms(first);
  ms(second);
  BestOfTwo best{std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
  for (int i = 0; i < runs; ++i) {
    best.first_ms = std::min(best.first_ms, ms(first));
    best.second_ms = std::min(best.second_ms, ms(second));
  }
  return best;
}

}  // namespace pdbench
