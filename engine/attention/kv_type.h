#pragma once
// Element types of the paged KV cache, chosen separately for K and V, and the
// conversion of one head vector (head_dim floats) to and from its stored
// bytes. An f32, f16 or bf16 vector is a row of that weight format,
// converted by the format's reference functions (engine/kernels/
// weight_format.h); q8_0 has its own groups and rounding, below.
//
// q8_0 stores groups of int8 with one f16 scale each: groups of 32 (the
// BlockQ8_0 layout) when head_dim is a multiple of 32, else one group of
// head_dim per (token, head) vector. The fallback adds no error case, so
// every model (stories260K has head_dim 8) can use a q8_0 cache.
#include <cstddef>
#include <string>
#include <string_view>

namespace pdbench {

enum class KvType { F32, F16, BF16, Q8_0 };
inline constexpr size_t kKvTypeCount = 4;

std::string_view kv_type_name(KvType type);

// "f32", "f16", "bf16" or "q8_0"; anything else is an Error listing them.
KvType parse_kv_type(std::string_view name);

// Elements sharing one q8_0 scale for vectors of head_dim elements.
size_t kv_q8_group(size_t head_dim);

// Bytes of one stored head vector of head_dim elements.
size_t kv_vector_bytes(KvType type, size_t head_dim);

// Stores x[0..head_dim) as `type` into out (kv_vector_bytes long).
// Bounds of decode(encode(x)) - x: f32 exact; f16 2^-11 |x| and bf16 2^-8 |x|
// (round to nearest even, for x in the normal range); q8_0 d/2 where d is the
// group's stored f16 scale, because q rounds x against that scale rather than
// the unrounded max|x| / 127 (ggml's choice, which errs by up to 127 * 2^-11 d
// more).
void kv_encode(KvType type, const float* x, std::byte* out, size_t head_dim);

// The reference conversion back to f32, which every attention kernel matches.
void kv_decode(KvType type, const std::byte* in, float* out, size_t head_dim);

}  // namespace pdbench
