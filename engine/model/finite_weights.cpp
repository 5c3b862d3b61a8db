#include "engine/model/finite_weights.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/util/error.h"

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
  switch (type) {
    case TensorType::F32:
      return scan<uint32_t, 4>(data, kF32Exponent, 1);
    case TensorType::F16:
      return scan<uint16_t, 2>(data, kF16Exponent, 1);
    case TensorType::BF16:
      return scan<uint16_t, 2>(data, kBf16Exponent, 1);
    case TensorType::Q8_0:  // each block opens with its f16 scale
      return scan<uint16_t, sizeof(BlockQ8_0)>(data, kF16Exponent, traits(type).block_size);
    case TensorType::Q4_0:
      return scan<uint16_t, sizeof(BlockQ4_0)>(data, kF16Exponent, traits(type).block_size);
  }
  return std::nullopt;
}

void require_finite_weights(const Model& model) {
  for (const NamedTensor& t : model.tensors())
    if (const auto at = first_non_finite(t.type, t.bytes))
      fail_file(model.path(), "tensor " + t.name + ": element " + std::to_string(*at) + " is NaN or Inf" +
                                  (traits(t.type).block_size > 1 ? " (its block's scale)" : ""));
}

}  // namespace pdbench
