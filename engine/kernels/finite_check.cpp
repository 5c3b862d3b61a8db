#include "engine/kernels/finite_check.h"

#include <algorithm>
#include <cstddef>
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

// Whether any of the kWords Words at p is NaN or Inf.
template <class Word, size_t kWords>
bool any_all_ones(const std::byte* p, Word exponent) {
  bool hit = false;
  for (size_t w = 0; w < kWords; ++w) hit |= all_ones(p + w * sizeof(Word), exponent);
  return hit;
}

// Checks kWords Words kOffset bytes into every kStride bytes (a block's
// scales). Each chunk is OR-reduced first (a loop without an early exit,
// which the compiler vectorizes for packed values) and searched only when
// it holds a hit.
template <class Word, size_t kStride, size_t kOffset = 0, size_t kWords = 1>
std::optional<uint64_t> scan(std::span<const std::byte> data, Word exponent, uint64_t elements_per_stride) {
  constexpr size_t kChunk = 4096;
  const size_t n = data.size() / kStride;
  const std::byte* first = data.data() + kOffset;
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t end = std::min(n, begin + kChunk);
    bool hit = false;
    for (size_t i = begin; i < end; ++i) hit |= any_all_ones<Word, kWords>(first + i * kStride, exponent);
    if (!hit) continue;
    for (size_t i = begin; i < end; ++i)
      if (any_all_ones<Word, kWords>(first + i * kStride, exponent)) return i * elements_per_stride;
  }
  return std::nullopt;
}

// A quantized type's f16 scales: kScales of them, kOffset bytes into each
// block. Every value of a block is NaN or Inf when one of them is (Inf
// times a zero quant or sub-block scale is NaN), and finite otherwise: f16
// scales times quants of at most 8 bits stay far below f32's range.
template <typename Block, size_t kOffset = 0, size_t kScales = 1>
std::optional<uint64_t> scan_scales(std::span<const std::byte> data) {
  return scan<uint16_t, sizeof(Block), kOffset, kScales>(data, kF16Exponent, Block::kElements);
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

std::optional<uint64_t> first_non_finite_q8_0(std::span<const std::byte> data) {
  return scan_scales<BlockQ8_0>(data);
}

std::optional<uint64_t> first_non_finite_q4_0(std::span<const std::byte> data) {
  return scan_scales<BlockQ4_0>(data);
}

std::optional<uint64_t> first_non_finite_q4_1(std::span<const std::byte> data) {
  return scan_scales<BlockQ4_1, offsetof(BlockQ4_1, d), 2>(data);
}

std::optional<uint64_t> first_non_finite_q5_0(std::span<const std::byte> data) {
  return scan_scales<BlockQ5_0>(data);
}

std::optional<uint64_t> first_non_finite_q5_1(std::span<const std::byte> data) {
  return scan_scales<BlockQ5_1, offsetof(BlockQ5_1, d), 2>(data);
}

std::optional<uint64_t> first_non_finite_iq4_nl(std::span<const std::byte> data) {
  return scan_scales<BlockIQ4_NL>(data);
}

std::optional<uint64_t> first_non_finite_q2_k(std::span<const std::byte> data) {
  return scan_scales<BlockQ2_K, offsetof(BlockQ2_K, d), 2>(data);
}

std::optional<uint64_t> first_non_finite_q3_k(std::span<const std::byte> data) {
  return scan_scales<BlockQ3_K, offsetof(BlockQ3_K, d)>(data);
}

std::optional<uint64_t> first_non_finite_q4_k(std::span<const std::byte> data) {
  return scan_scales<BlockQ4_K, offsetof(BlockQ4_K, d), 2>(data);
}

std::optional<uint64_t> first_non_finite_q5_k(std::span<const std::byte> data) {
  return scan_scales<BlockQ5_K, offsetof(BlockQ5_K, d), 2>(data);
}

std::optional<uint64_t> first_non_finite_q6_k(std::span<const std::byte> data) {
  return scan_scales<BlockQ6_K, offsetof(BlockQ6_K, d)>(data);
}

std::optional<uint64_t> first_non_finite_iq4_xs(std::span<const std::byte> data) {
  return scan_scales<BlockIQ4_XS>(data);
}

}  // namespace pdbench
