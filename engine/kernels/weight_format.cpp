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
    // type, reference dequantize and quantize, finite check,
    //  activation, prefill GEMM when memory is short
    {TensorType::F32, ref::dequantize_f32, ref::quantize_f32, first_non_finite_f32,
     ActivationType::F32, GemmPrecision::F32},
    {TensorType::F16, ref::dequantize_f16, ref::quantize_f16, first_non_finite_f16,
     ActivationType::F32, GemmPrecision::BF16},
    {TensorType::Q4_0, ref::dequantize_blocks<BlockQ4_0>, ref::quantize_blocks<BlockQ4_0>, first_non_finite_q4_0,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q4_1, ref::dequantize_blocks<BlockQ4_1>, ref::quantize_blocks<BlockQ4_1>, first_non_finite_q4_1,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q5_0, ref::dequantize_blocks<BlockQ5_0>, ref::quantize_blocks<BlockQ5_0>, first_non_finite_q5_0,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q5_1, ref::dequantize_blocks<BlockQ5_1>, ref::quantize_blocks<BlockQ5_1>, first_non_finite_q5_1,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q8_0, ref::dequantize_blocks<BlockQ8_0>, ref::quantize_blocks<BlockQ8_0>, first_non_finite_q8_0,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q2_K, ref::dequantize_blocks<BlockQ2_K>, ref::quantize_blocks<BlockQ2_K>, first_non_finite_q2_k,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q3_K, ref::dequantize_blocks<BlockQ3_K>, ref::quantize_blocks<BlockQ3_K>, first_non_finite_q3_k,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q4_K, ref::dequantize_blocks<BlockQ4_K>, ref::quantize_blocks<BlockQ4_K>, first_non_finite_q4_k,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q5_K, ref::dequantize_blocks<BlockQ5_K>, ref::quantize_blocks<BlockQ5_K>, first_non_finite_q5_k,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::Q6_K, ref::dequantize_blocks<BlockQ6_K>, ref::quantize_blocks<BlockQ6_K>, first_non_finite_q6_k,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::IQ4_NL, ref::dequantize_blocks<BlockIQ4_NL>, ref::quantize_blocks<BlockIQ4_NL>, first_non_finite_iq4_nl,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::IQ4_XS, ref::dequantize_blocks<BlockIQ4_XS>, ref::quantize_blocks<BlockIQ4_XS>, first_non_finite_iq4_xs,
     ActivationType::Q8_32, GemmPrecision::Int8},
    {TensorType::BF16, ref::dequantize_bf16, ref::quantize_bf16, first_non_finite_bf16,
     ActivationType::F32, GemmPrecision::BF16},
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
