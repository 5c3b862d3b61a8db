#pragma once
// NaN and Inf in stored weights, found from their bits without converting
// them: every value of an f32, f16 or bf16 tensor, and every f16 scale (and
// min) of a quantized block (the quants are integers, always finite). One
// function per format, which its row in weight_format.h names, and
// first_non_finite for any.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "engine/format/tensor_type.h"

namespace pdbench {

// The index of the first element that is NaN or Inf (for a quantized type,
// the first element of the block whose scale is), or nullopt.
std::optional<uint64_t> first_non_finite(TensorType type, std::span<const std::byte> data);

std::optional<uint64_t> first_non_finite_f32(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_f16(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_bf16(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q8_0(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q4_0(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q4_1(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q5_0(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q5_1(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_iq4_nl(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q2_k(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q3_k(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q4_k(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q5_k(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_q6_k(std::span<const std::byte> data);
std::optional<uint64_t> first_non_finite_iq4_xs(std::span<const std::byte> data);

}  // namespace pdbench
