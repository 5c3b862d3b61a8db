#pragma once
// NaN and Inf in stored weights, found from their bits without converting
// them: every value of an f32, f16 or bf16 tensor, and every block scale of
// a q8_0 or q4_0 one (their 8- and 4-bit quants are integers, always finite).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "engine/format/tensor_type.h"
#include "engine/model/model.h"

namespace pdbench {

// The index of the first element that is NaN or Inf (for a quantized type,
// the first element of the block whose scale is), or nullopt.
std::optional<uint64_t> first_non_finite(TensorType type, std::span<const std::byte> data);

// Throws Error "PATH: tensor NAME: element I is NaN or Inf" for the first
// such value in the model's tensors. It reads every weight: on the 1.3 GB
// Llama-3.2-1B q8_0 file about 1.6% of the time the fast pass takes to pack
// them, but 2-3x Engine::load, which only maps the file and builds the
// tokenizer.
void require_finite_weights(const Model& model);

}  // namespace pdbench
