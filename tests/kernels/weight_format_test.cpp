// Every row of the format table (weight_format.h) against the properties a
// format must have. Its GEMV kernels on every ISA are held to the reference
// by gemv_test.cpp, whose suites are instantiated over this table too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/weight_format.h"
#include "tests/support/random_values.h"

namespace pdbench {
namespace {

// A width every format's blocks and its activation's divide.
constexpr size_t kCols = 2048;

TEST(WeightFormat, EveryLoadableTypeHasOneRowAndEveryRowIsLoadable) {
  std::set<TensorType> rows;
  for (const WeightFormat& format : weight_formats()) {
    EXPECT_TRUE(rows.insert(format.type).second) << traits(format.type).name << " has two rows";
    EXPECT_TRUE(tensor_type_traits(static_cast<uint32_t>(format.type))) << traits(format.type).name;
    EXPECT_EQ(&weight_format(format.type), &format);
  }
  for (uint32_t id = 0; id < 64; ++id)
    EXPECT_EQ(rows.contains(static_cast<TensorType>(id)), tensor_type_traits(id).has_value()) << ggml_type_name(id);
}

TEST(WeightFormat, TraitsAgree) {
  for (const WeightFormat& format : weight_formats()) {
    const TensorTypeTraits& stored = traits(format.type);
    SCOPED_TRACE(stored.name);
    const ActivationTypeTraits& activation = activation_traits(format.activation);
    // A row of whole weight blocks is whole activation blocks.
    EXPECT_EQ(stored.block_size % activation.block_size, 0u);
    EXPECT_EQ(kCols % stored.block_size, 0u);
    EXPECT_GT(stored.block_bytes, 0u);
    // Floats are multiplied as floats. A quantized format's dot products
    // take quantized activations where it has integer kernels, and then its
    // prefill is integer too (every quantized format has them now).
    const bool quantized = stored.block_size > 1;
    EXPECT_TRUE(quantized || format.activation == ActivationType::F32);
    EXPECT_EQ(format.gemm == GemmPrecision::Int8, format.activation != ActivationType::F32);
    // The scalar GEMV, every SIMD kernel's reference, reads the file's rows.
    EXPECT_EQ(gemv_layout(format.type, Isa::Scalar), RowLayout::Blocks);
  }
}

// The quantizers that search for their scales (the K-quants and IQ4, as
// ggml's do) may settle on other scales, fitting as well, for values
// already on a grid; they are held to llama-quantize's bytes instead
// (llama_quantize_fixture_test.cpp).
bool searches_its_scales(TensorType type) {
  static const std::set<TensorType> kSearching{TensorType::Q2_K, TensorType::Q3_K,   TensorType::Q4_K,
                                               TensorType::Q5_K, TensorType::Q6_K,   TensorType::IQ4_NL,
                                               TensorType::IQ4_XS};
  return kSearching.contains(type);
}

// Stored values are fixed points of the round trip: quantizing what a row
// dequantizes to gives the row back, bit for bit, for every format whose
// scale follows from the block's values alone. (How close the first round
// trip comes is each format's own bound: reference_kernels_test.)
TEST(WeightFormat, QuantizeOfDequantizeGivesTheStoredRowBack) {
  const std::vector<float> x = test::random_normal(kCols, 1, 0.02f);
  for (const WeightFormat& format : weight_formats()) {
    if (searches_its_scales(format.type)) continue;
    SCOPED_TRACE(traits(format.type).name);
    std::vector<std::byte> stored(row_bytes(format.type, kCols)), again(stored.size());
    std::vector<float> back(kCols);
    format.quantize(x.data(), stored.data(), kCols);
    format.dequantize(stored.data(), back.data(), kCols);
    format.quantize(back.data(), again.data(), kCols);
    EXPECT_EQ(again, stored);
  }
}

// The finite check reads bits; the reference dequantize says which values
// they are. On random bytes, where exponents of all ones (NaN and Inf)
// turn up in values and scales alike, both must name the same first
// element: for a quantized block, its first, since every value of a block
// with a non-finite scale is non-finite (Inf times 0 is NaN).
TEST(WeightFormat, FiniteCheckFindsWhatDequantizeMakesNonFinite) {
  for (const WeightFormat& format : weight_formats()) {
    SCOPED_TRACE(traits(format.type).name);
    std::vector<float> values(kCols);
    std::vector<std::byte> stored(row_bytes(format.type, kCols));
    format.quantize(test::random_normal(kCols, 2, 0.02f).data(), stored.data(), kCols);
    EXPECT_EQ(format.first_non_finite(stored), std::nullopt);
    size_t hits = 0;
    std::mt19937 gen(3);
    for (int trial = 0; trial < 64; ++trial) {
      for (std::byte& b : stored) b = static_cast<std::byte>(gen());
      format.dequantize(stored.data(), values.data(), kCols);
      std::optional<uint64_t> first;
      for (size_t i = 0; i < kCols && !first; ++i)
        if (!std::isfinite(values[i])) first = i;
      EXPECT_EQ(format.first_non_finite(stored), first) << "trial " << trial;
      hits += first.has_value();
    }
    EXPECT_GT(hits, 0u);  // the bytes did test the check
  }
}

// The largest float overflows every narrower format's element or scale to
// Inf when quantized (f32 holds it, finite); the check finds it where the
// reference dequantize does.
TEST(WeightFormat, FiniteCheckFindsOverflowToInf) {
  for (const WeightFormat& format : weight_formats()) {
    SCOPED_TRACE(traits(format.type).name);
    std::vector<float> x = test::random_normal(kCols, 4, 0.02f);
    x[1000] = -std::numeric_limits<float>::max();
    std::vector<std::byte> stored(row_bytes(format.type, kCols));
    format.quantize(x.data(), stored.data(), kCols);
    std::vector<float> values(kCols);
    format.dequantize(stored.data(), values.data(), kCols);
    const TensorTypeTraits& stored_as = traits(format.type);
    const bool narrower = stored_as.block_bytes < sizeof(float) * stored_as.block_size;
    const uint64_t block_start = 1000 / stored_as.block_size * stored_as.block_size;
    EXPECT_EQ(!std::isfinite(values[block_start]), narrower);
    EXPECT_EQ(format.first_non_finite(stored), narrower ? std::optional<uint64_t>(block_start) : std::nullopt);
  }
}

}  // namespace
}  // namespace pdbench
