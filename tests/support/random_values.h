#pragma once
// Seeded random test data: the same values on every run and machine that
// shares the standard library's distributions.
#include <cstdint>
#include <random>
#include <vector>

namespace pdbench::test {

inline std::vector<float> random_normal(size_t n, uint32_t seed, float stddev = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, stddev);
  std::vector<float> x(n);
  for (float& v : x) v = normal(gen);
  return x;
}

}  // namespace pdbench::test
