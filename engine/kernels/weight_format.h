#pragma once
// The weight formats, one row each: what the engine does with a format
// beyond storing it. How it is stored (name, elements and bytes per block)
// is engine/format/tensor_type.h's row, below this library, where the file
// reader needs it. Adding a format is its row there and here, plus:
//   - a block struct with a static_assert on its size and its kElements
//     (engine/format/quant_blocks.h);
//   - the reference dequantize and quantize (a dequantize_block and a
//     quantize_block in dequantize.h, quantize.h), the definition every
//     fast kernel is held to, and its finite check (finite_check.h);
//   - the activation type its dot products take, a new one with its
//     quantizer (gemv_scalar.cpp, and SIMD ones where they pay);
//   - a scalar GEMV, the reference (gemv_scalar.cpp's list), and SIMD ones
//     in gemv_<isa>.cpp's lists; an ISA that lists none runs the scalar one.
// tests/kernels/weight_format_test.cpp and gemv_test.cpp hold every row to
// all of that.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "engine/format/tensor_type.h"

namespace pdbench {

// The form of x that a format's dot products take (ggml's vec_dot_type).
enum class ActivationType : uint8_t {
  F32,    // x itself
  Q8_32,  // BlockQ8Act: blocks of 32, also for the K-quants (ggml takes 256)
};
inline constexpr size_t kActivationTypeCount = 2;

// One 32-element block of an activation quantized for the integer kernels,
// like ggml's q8_1: x[j] ~= d * qs[j], |qs[j]| <= 127 (never -128, which the
// AVX2 Q8_0 kernel's sign trick relies on), and sum = sum of qs for the
// offsets (Q4_0's 8, Q5_0's 16) and the mins (d sum, ggml's q8_1 s: Q4_1's
// and Q5_1's m, Q4_K's and Q5_K's dmin; Q2_K's mins cover 16 weights, whose
// sums its kernels take from qs). The scale stays f32 (ggml rounds it to
// f16) so the activation error is only the rounding of qs.
struct BlockQ8Act {
  float d;
  int32_t sum;
  int8_t qs[32];
};
static_assert(sizeof(BlockQ8Act) == 40, "BlockQ8Act is 4 + 4 + 32 bytes, unpadded");

struct ActivationTypeTraits {
  size_t block_size;   // elements per block (1 for F32)
  size_t block_bytes;  // bytes per block
};
const ActivationTypeTraits& activation_traits(ActivationType type);

// The compute type of a prefill matrix product: what results files record
// and which roof of the machine it is judged against.
enum class GemmPrecision { F32, BF16, Int8 };

struct WeightFormat {
  TensorType type;
  // The reference conversions of a row of n elements, n a multiple of the
  // block size; quantize rounds as ggml's reference quantizer does.
  void (*dequantize)(const std::byte* row, float* out, size_t n);
  void (*quantize)(const float* x, std::byte* out, size_t n);
  // The index of the first element that is NaN or Inf in whole blocks of
  // stored data (of a quantized block, its first element when a scale is),
  // read from the bits.
  std::optional<uint64_t> (*first_non_finite)(std::span<const std::byte> data);
  ActivationType activation;  // what its GEMV kernels take
  // Its prefill's compute type when memory is short: Int8 for the formats
  // with integer dot products on their own blocks (Q8_0, Q4_0 to Q5_1, Q2_K
  // to Q6_K, IQ4_NL, IQ4_XS: gemm_rows),
  // BF16 for the 16-bit floats, which run F32 unless memory is short or, for
  // BF16, this CPU's bf16 GEMM is the faster (narrow_floats), F32 for F32.
  GemmPrecision gemm;
};

// Every format the engine loads, in tensor_type.h's order.
std::span<const WeightFormat> weight_formats();
const WeightFormat& weight_format(TensorType type);

}  // namespace pdbench
