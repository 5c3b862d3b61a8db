// The reference dequantizers of the float types and of the types in blocks
// of 32 (the K-quants' super-blocks are dequantize_k.cpp). Each reproduces
// ggml's dequantize_row_<type> (ggml-quants.c) bit for bit: the same
// products and sums in the same order, each rounded to f32 (this file is
// built without FMA, so none is fused).
#include "engine/kernels/dequantize.h"

#include <cstdint>
#include <cstring>

#include "engine/kernels/weight_format.h"
#include "engine/util/half.h"

namespace pdbench {

namespace {

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // rows need not be aligned for T
  return v;
}

template <float (*ToF32)(uint16_t)>
void widen_halves(const std::byte* row, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = ToF32(load<uint16_t>(row + 2 * i));
}

// Weight j's 5-bit quant: its nibble, and bit j of qh on top.
unsigned five_bits(const uint8_t* qs, const uint8_t* qh, size_t j) {
  return field(qs, nibble_at(j), 4) | (field(qh, bit_at(j), 1) << 4);
}

}  // namespace

void dequantize_row(TensorType type, const std::byte* row, float* out, size_t n) {
  weight_format(type).dequantize(row, out, n);
}

namespace ref {

void dequantize_f32(const std::byte* row, float* out, size_t n) { std::memcpy(out, row, n * sizeof(float)); }

void dequantize_f16(const std::byte* row, float* out, size_t n) { widen_halves<fp16_to_f32>(row, out, n); }

void dequantize_bf16(const std::byte* row, float* out, size_t n) { widen_halves<bf16_to_f32>(row, out, n); }

// ggml's dequantize_row_q8_0.
void dequantize_block(const BlockQ8_0& b, float* out) {
  const float d = fp16_to_f32(b.d);
  for (size_t j = 0; j < 32; ++j) out[j] = d * static_cast<float>(b.qs[j]);
}

// ggml's dequantize_row_q4_0.
void dequantize_block(const BlockQ4_0& b, float* out) {
  const float d = fp16_to_f32(b.d);
  for (size_t j = 0; j < 32; ++j) out[j] = d * static_cast<float>(static_cast<int>(field(b.qs, nibble_at(j), 4)) - 8);
}

// ggml's dequantize_row_q4_1.
void dequantize_block(const BlockQ4_1& b, float* out) {
  const float d = fp16_to_f32(b.d), m = fp16_to_f32(b.m);
  for (size_t j = 0; j < 32; ++j) out[j] = static_cast<float>(field(b.qs, nibble_at(j), 4)) * d + m;
}

// ggml's dequantize_row_q5_0.
void dequantize_block(const BlockQ5_0& b, float* out) {
  const float d = fp16_to_f32(b.d);
  for (size_t j = 0; j < 32; ++j) out[j] = static_cast<float>(static_cast<int>(five_bits(b.qs, b.qh, j)) - 16) * d;
}

// ggml's dequantize_row_q5_1.
void dequantize_block(const BlockQ5_1& b, float* out) {
  const float d = fp16_to_f32(b.d), m = fp16_to_f32(b.m);
  for (size_t j = 0; j < 32; ++j) out[j] = static_cast<float>(five_bits(b.qs, b.qh, j)) * d + m;
}

// ggml's dequantize_row_iq4_nl.
void dequantize_block(const BlockIQ4_NL& b, float* out) {
  const float d = fp16_to_f32(b.d);
  for (size_t j = 0; j < 32; ++j) out[j] = d * static_cast<float>(kIq4NlValues[field(b.qs, nibble_at(j), 4)]);
}

}  // namespace ref

}  // namespace pdbench
