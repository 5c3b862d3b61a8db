#pragma once
// Weight element types, numbered as GGUF (ggml) numbers them; the block
// layouts of the quantized ones are quant_blocks.h.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/format/quant_blocks.h"

namespace pdbench {

enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  IQ4_NL = 20,
  IQ4_XS = 23,
  BF16 = 30,
};

struct TensorTypeTraits {
  std::string_view name;
  size_t block_size;   // elements per block (1 for unquantized types)
  size_t block_bytes;  // bytes per block
};

// Traits of a supported type, or nullopt for any other ggml type number.
std::optional<TensorTypeTraits> tensor_type_traits(uint32_t type);
const TensorTypeTraits& traits(TensorType type);

// Name of any ggml type number, supported or not ("q4_K", "type 99"), for errors.
std::string ggml_type_name(uint32_t type);

// "f32, f16, q4_0, ...": the supported types, for error messages.
std::string supported_tensor_type_names();

// Bytes of one row of n elements; n must be a multiple of the block size.
inline size_t row_bytes(TensorType type, size_t n) {
  const auto& t = traits(type);
  return n / t.block_size * t.block_bytes;
}

}  // namespace pdbench
