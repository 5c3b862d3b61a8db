#pragma once
// The sampler's random numbers: splitmix64 (Steele, Lea & Flood 2014), a fixed
// integer recipe, so one seed gives the same stream on every platform. The
// std:: distributions are avoided because their output is implementation-defined.
#include <cstdint>

namespace pdbench {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) from the top 24 bits, which a float holds exactly.
  float next_float() { return static_cast<float>(next_u64() >> 40) * 0x1p-24f; }

 private:
  uint64_t state_;
};

}  // namespace pdbench
