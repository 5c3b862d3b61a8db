#include "engine/kernels/finite_check.h"

#include <algorithm>
#include <cstring>

#include "engine/kernels/weight_format.h"

namespace pdbench {

namespace {

constexpr uint32_t kF32Exponent = 0x7f800000u;
constexpr uint16_t kF16Exponent = 0x7c00u;
constexpr uint16_t kBf16Exponent = 0x7f80u;

// A value is NaN or Inf when every bit of its exponent field is set.
template <class Word>
bool all_ones(const std::byte* p, Word exponent) {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return (w & exponent) == exponent;
}

// Checks the Word at the start of every kStride bytes. Each chunk is
// OR-reduced first (a loop without an early exit, which the compiler
// vectorizes for packed values) and searched only when it holds a hit.
template <class Word, size_t kStride>
std::optional<uint64_t> scan(std::span<const std::byte> data, Word exponent, uint64_t elements_per_stride) {
  constexpr size_t kChunk = 4096;
  const size_t n = data.size() / kStride;
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t end = std::min(n, begin + kChunk);
    bool hit = false;
    for (size_t i = begin; i < end; ++i) hit |= all_ones(data.data() + i * kStride, exponent);
    if (!hit) continue;
    for (size_t i = begin; i < end; ++i)
      if (all_ones(data.data() + i * kStride, exponent)) return i * elements_per_stride;
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> first_non_finite(TensorType type, std::span<const std::byte> data) {
  return weight_format(type).first_non_finite(data);
}


std::optional<uint64_t> first_non_finite_f32(std::span<const std::byte> data) {
  return scan<uint32_t, 4>(data, kF32Exponent, 1);
}

std::optional<uint64_t> first_non_finite_f16(std::span<const std::byte> data) {
  return scan<uint16_t, 2>(data, kF16Exponent, 1);
}

std::optional<uint64_t> first_non_finite_bf16(std::span<const std::byte> data) {
  return scan<uint16_t, 2>(data, kBf16Exponent, 1);
}

// Each block opens with its f16 scale.
std::optional<uint64_t> first_non_finite_q8_0(std::span<const std::byte> data) {
  return scan<uint16_t, sizeof(BlockQ8_0)>(data, kF16Exponent, 32);
}

std::optional<uint64_t> first_non_finite_q4_0(std::span<const std::byte> data) {
  return scan<uint16_t, sizeof(BlockQ4_0)>(data, kF16Exponent, 32);
}

}  // namespace pdbench
