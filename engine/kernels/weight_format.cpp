#include "engine/kernels/weight_format.h"

#include <array>

#include "engine/kernels/dequantize.h"
#include "engine/kernels/finite_check.h"
#include "engine/kernels/quantize.h"

namespace pdbench {

namespace {

constexpr std::array<ActivationTypeTraits, kActivationTypeCount> kActivationTypes{{
    {1, sizeof(float)},        // F32
    {32, sizeof(BlockQ8Act)},  // Q8_32
}};

constexpr WeightFormat kFormats[] = {
    // type, reference dequantize and quantize, finite check, activation, prefill GEMM when memory is short
    {TensorType::F32, ref::dequantize_f32, ref::quantize_f32, first_non_finite_f32, ActivationType::F32,
     GemmPrecision::F32},
    {TensorType::F16, ref::dequantize_f16, ref::quantize_f16, first_non_finite_f16, ActivationType::F32,
     GemmPrecision::BF16},
    {TensorType::Q4_0, ref::dequantize_blocks<BlockQ4_0>, ref::quantize_blocks<BlockQ4_0>, first_non_finite_q4_0, ActivationType::Q8_32,
     GemmPrecision::Int8},
    {TensorType::Q8_0, ref::dequantize_blocks<BlockQ8_0>, ref::quantize_blocks<BlockQ8_0>, first_non_finite_q8_0, ActivationType::Q8_32,
     GemmPrecision::Int8},
    {TensorType::BF16, ref::dequantize_bf16, ref::quantize_bf16, first_non_finite_bf16, ActivationType::F32,
     GemmPrecision::BF16},
};

}  // namespace

const ActivationTypeTraits& activation_traits(ActivationType type) {
  return kActivationTypes[static_cast<size_t>(type)];
}

std::span<const WeightFormat> weight_formats() { return kFormats; }

const WeightFormat& weight_format(TensorType type) {
  for (const WeightFormat& format : kFormats)
    if (format.type == type) return format;
  return kFormats[0];  // unreachable: every TensorType has a row (weight_format_test)
}

}  // namespace pdbench
