#include "engine/attention/kv_type.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "engine/kernels/weight_format.h"
#include "engine/util/error.h"
#include "engine/util/half.h"

namespace pdbench {

namespace {

constexpr std::array<KvType, kKvTypeCount> kAllTypes = {KvType::F32, KvType::F16, KvType::BF16,
                                                        KvType::Q8_0};

void encode_q8(const float* x, std::byte* out, size_t n) {
  float amax = 0.0f;
  for (size_t i = 0; i < n; ++i) amax = std::max(amax, std::abs(x[i]));
  const uint16_t d16 = f32_to_fp16(amax / 127.0f);
  const float d = fp16_to_f32(d16);
  std::memcpy(out, &d16, sizeof(d16));
  for (size_t i = 0; i < n; ++i) {
    // The clamp only acts when d underflowed into f16 subnormals.
    const long q = d != 0.0f ? std::clamp(std::lround(x[i] / d), -127L, 127L) : 0L;
    out[sizeof(d16) + i] = static_cast<std::byte>(static_cast<int8_t>(q));
  }
}

void decode_q8(const std::byte* in, float* out, size_t n) {
  uint16_t d16;
  std::memcpy(&d16, in, sizeof(d16));
  const float d = fp16_to_f32(d16);
  for (size_t i = 0; i < n; ++i)
    out[i] = d * static_cast<float>(static_cast<int8_t>(in[sizeof(d16) + i]));
}

// The weight format whose rows a vector of `type` is, converted by that
// format's reference functions (weight_format.h). q8_0 vectors are not
// Q8_0 rows: their groups may span head_dim, and they round against the
// stored scale (kv_type.h).
std::optional<TensorType> stored_as(KvType type) {
  switch (type) {
    case KvType::F32:
      return TensorType::F32;
    case KvType::F16:
      return TensorType::F16;
    case KvType::BF16:
      return TensorType::BF16;
    case KvType::Q8_0:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::string_view kv_type_name(KvType type) {
  switch (type) {
    case KvType::F32:
      return "f32";
    case KvType::F16:
      return "f16";
    case KvType::BF16:
      return "bf16";
    case KvType::Q8_0:
      break;
  }
  return "q8_0";
}

KvType parse_kv_type(std::string_view name) {
  std::string choices;
  for (KvType type : kAllTypes) {
    if (kv_type_name(type) == name) return type;
    choices += (choices.empty() ? "" : ", ") + std::string(kv_type_name(type));
  }
  throw Error("KV cache: unknown element type '" + std::string(name) + "' (expected one of " +
              choices + ")");
}

size_t kv_q8_group(size_t head_dim) { return head_dim % 32 == 0 ? 32 : head_dim; }

size_t kv_vector_bytes(KvType type, size_t head_dim) {
  if (const auto format = stored_as(type)) return row_bytes(*format, head_dim);
  const size_t group = kv_q8_group(head_dim);
  return head_dim / group * (sizeof(uint16_t) + group);
}

void kv_encode(KvType type, const float* x, std::byte* out, size_t head_dim) {
  if (const auto format = stored_as(type)) return weight_format(*format).quantize(x, out, head_dim);
  const size_t group = kv_q8_group(head_dim);
  for (size_t g = 0; g < head_dim / group; ++g)
    encode_q8(x + g * group, out + g * (sizeof(uint16_t) + group), group);
}

void kv_decode(KvType type, const std::byte* in, float* out, size_t head_dim) {
  if (const auto format = stored_as(type)) return weight_format(*format).dequantize(in, out, head_dim);
  const size_t group = kv_q8_group(head_dim);
  for (size_t g = 0; g < head_dim / group; ++g)
    decode_q8(in + g * (sizeof(uint16_t) + group), out + g * group, group);
}

}  // namespace pdbench
