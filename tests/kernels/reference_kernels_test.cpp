// The reference kernels on hand-checked values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>
#include <random>
#include <vector>

#include "engine/kernels/dequantize.h"
#include "engine/kernels/quantize.h"
#include "engine/kernels/reference.h"
#include "engine/kernels/weight_format.h"
#include "engine/util/half.h"

namespace pdbench {
namespace {


TEST(Dequantize, Q8_0BlockIsScaleTimesQuant) {
  BlockQ8_0 block{};
  block.d = f32_to_fp16(0.5f);
  for (int i = 0; i < 32; ++i) block.qs[i] = static_cast<int8_t>(i - 16);
  std::vector<float> out(32);
  dequantize_row(TensorType::Q8_0, reinterpret_cast<const std::byte*>(&block), out.data(), 32);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[static_cast<size_t>(i)], 0.5f * static_cast<float>(i - 16));
}

TEST(Dequantize, Q4_0LowNibblesFirstHalfHighNibblesSecond) {
  BlockQ4_0 block{};
  block.d = f32_to_fp16(2.0f);
  for (int j = 0; j < 16; ++j) block.qs[j] = static_cast<uint8_t>((15 - j) << 4 | j);
  std::vector<float> out(32);
  dequantize_row(TensorType::Q4_0, reinterpret_cast<const std::byte*>(&block), out.data(), 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(out[static_cast<size_t>(j)], 2.0f * static_cast<float>(j - 8));
    EXPECT_EQ(out[static_cast<size_t>(j + 16)], 2.0f * static_cast<float>(15 - j - 8));
  }
}

TEST(Dequantize, HalfTypesConvertExactly) {
  const std::vector<float> values{0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f};
  std::vector<uint16_t> f16, bf16;
  for (float v : values) {
    f16.push_back(f32_to_fp16(v));
    bf16.push_back(f32_to_bf16(v));
  }
  std::vector<float> out(values.size());
  dequantize_row(TensorType::F16, reinterpret_cast<const std::byte*>(f16.data()), out.data(), out.size());
  EXPECT_EQ(out, values);
  dequantize_row(TensorType::BF16, reinterpret_cast<const std::byte*>(bf16.data()), out.data(), out.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(out[i], values[i], std::abs(values[i]) / 128);
}

TEST(ReferenceMatmul, MatchesDoublePrecisionOnEveryType) {
  constexpr size_t rows = 5, cols = 64, tokens = 3;
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(rows * cols), x(tokens * cols);
  for (auto& v : w) v = normal(gen);
  for (auto& v : x) v = normal(gen);
  std::vector<float> y(tokens * rows);
  const MatrixView view{TensorType::F32, rows, cols, reinterpret_cast<const std::byte*>(w.data())};
  ref::matmul(view, x.data(), y.data(), tokens);
  for (size_t t = 0; t < tokens; ++t)
    for (size_t r = 0; r < rows; ++r) {
      double want = 0;
      for (size_t c = 0; c < cols; ++c) want += double{w[r * cols + c]} * double{x[t * cols + c]};
      EXPECT_NEAR(y[t * rows + r], want, 1e-4) << t << "," << r;
    }
  // Through f16 storage: the same as converting the weights first.
  std::vector<uint16_t> w16(w.size());
  for (size_t i = 0; i < w.size(); ++i) w16[i] = f32_to_fp16(w[i]);
  const MatrixView view16{TensorType::F16, rows, cols, reinterpret_cast<const std::byte*>(w16.data())};
  ref::matmul(view16, x.data(), y.data(), tokens);
  for (size_t r = 0; r < rows; ++r) {
    float want = 0;
    for (size_t c = 0; c < cols; ++c) want += fp16_to_f32(w16[r * cols + c]) * x[c];
    EXPECT_EQ(y[r], want);
  }
}

TEST(ReferenceRope, PositionZeroIsIdentity) {
  std::vector<float> x(16);
  std::iota(x.begin(), x.end(), 1.0f);
  const auto before = x;
  ref::rope(x.data(), 2, 8, 8, 0, {10000.0f}, ref::RopeStyle::AdjacentPairs);
  EXPECT_EQ(x, before);
}

TEST(ReferenceRope, NeoxEqualsAdjacentPairsOnInterleavedDims) {
  // NEOX rotates (i, i + d/2); adjacent-pair rotates (2i, 2i + 1) with the
  // same frequency: the same rotation after interleaving the halves.
  constexpr size_t d = 8;
  std::vector<float> neox(d), adjacent(d);
  for (size_t i = 0; i < d; ++i) neox[i] = static_cast<float>(i) * 0.37f - 1.0f;
  for (size_t i = 0; i < d / 2; ++i) {
    adjacent[2 * i] = neox[i];
    adjacent[2 * i + 1] = neox[i + d / 2];
  }
  ref::rope(neox.data(), 1, d, d, 5, {10000.0f}, ref::RopeStyle::Neox);
  ref::rope(adjacent.data(), 1, d, d, 5, {10000.0f}, ref::RopeStyle::AdjacentPairs);
  for (size_t i = 0; i < d / 2; ++i) {
    EXPECT_EQ(adjacent[2 * i], neox[i]);
    EXPECT_EQ(adjacent[2 * i + 1], neox[i + d / 2]);
  }
}

TEST(ReferenceRope, PartialRotaryLeavesTheRestAlone) {
  std::vector<float> x(8, 1.0f);
  ref::rope(x.data(), 1, 8, 4, 3, {10000.0f}, ref::RopeStyle::AdjacentPairs);
  for (size_t i = 4; i < 8; ++i) EXPECT_EQ(x[i], 1.0f);
  EXPECT_NE(x[0], 1.0f);
  EXPECT_NEAR(x[0] * x[0] + x[1] * x[1], 2.0f, 1e-6);  // a rotation keeps length
}

TEST(ReferenceRope, FrequencyDivisorsSlowEachPairAlone) {
  // Dividing pair i's frequency by k turns by the angle of position pos / k:
  // divisors {1, 4} at position 8 give pair 0 position 8's rotation and
  // pair 1 position 2's.
  std::vector<float> scaled(4), at8(4), at2(4);
  const float divisors[] = {1.0f, 4.0f};
  ref::rope_rotation(8, 4, {10000.0f, 1.0f, divisors}, scaled.data());
  ref::rope_rotation(8, 4, {10000.0f}, at8.data());
  ref::rope_rotation(2, 4, {10000.0f}, at2.data());
  EXPECT_EQ(scaled[0], at8[0]);
  EXPECT_EQ(scaled[1], at8[1]);
  EXPECT_NEAR(scaled[2], at2[2], 1e-7);
  EXPECT_NEAR(scaled[3], at2[3], 1e-7);
}

// Linear scaling by 4 turns position 8 as position 2 unscaled, every pair.
TEST(ReferenceRope, PositionScaleSlowsEveryPair) {
  std::vector<float> scaled(8), at2(8);
  ref::rope_rotation(8, 8, {10000.0f, 0.25f}, scaled.data());
  ref::rope_rotation(2, 8, {10000.0f}, at2.data());
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(scaled[i], at2[i], 1e-7) << i;
}

TEST(ReferenceOps, RmsnormSoftmaxSwiglu) {
  const std::vector<float> x{3.0f, 4.0f};
  const std::vector<float> w{1.0f, 2.0f};
  std::vector<float> out(2);
  ref::rmsnorm(out.data(), x.data(), w.data(), 2, 0.0f);  // rms = sqrt(12.5)
  EXPECT_NEAR(out[0], 3.0 / std::sqrt(12.5), 1e-6);
  EXPECT_NEAR(out[1], 8.0 / std::sqrt(12.5), 1e-6);

  std::vector<float> s{1.0f, 2.0f, 3.0f, 1000.0f};
  ref::softmax(s.data(), s.size());
  EXPECT_NEAR(std::accumulate(s.begin(), s.end(), 0.0), 1.0, 1e-6);
  EXPECT_NEAR(s[3], 1.0f, 1e-6);  // no overflow: max subtracted first

  std::vector<float> gate{0.0f, 2.0f};
  const std::vector<float> up{5.0f, 3.0f};
  ref::swiglu(gate.data(), up.data(), 2);
  EXPECT_EQ(gate[0], 0.0f);
  EXPECT_NEAR(gate[1], 2.0 / (1.0 + std::exp(-2.0)) * 3.0, 1e-5);
}

// ggml's CPU gelu: the tanh formula on the input rounded to f16, rounded to
// f16, so within 2^-11 of the input's (times gelu's slope, below 1.13) and
// of the output's magnitude (plus an f16 subnormal step) of the formula in
// double; 0 and the identity beyond -10 and 10, as ggml's table is used
// only between them.
TEST(ReferenceOps, GeluIsTheTanhFormulaAtF16) {
  const auto exact = [](double x) {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * x * (1 + 0.044715 * x * x)));
  };
  for (float x = -9.99f; x < 10.0f; x += 0.0137f) {
    const double want = exact(x);
    EXPECT_NEAR(ref::gelu(x), want, 0x1p-11 * (1.13 * std::abs(x) + std::abs(want)) + 0x1p-24) << x;
    EXPECT_NEAR(ref::gelu_tanh(x), want, 1e-6 * (std::abs(x) + 1)) << x;
  }
  EXPECT_EQ(ref::gelu(0.0f), 0.0f);
  EXPECT_EQ(ref::gelu(-10.0f), 0.0f);
  EXPECT_EQ(ref::gelu(-1e30f), 0.0f);
  EXPECT_EQ(ref::gelu(10.0f), 10.0f);
  EXPECT_EQ(ref::gelu(123.5f), 123.5f);
  std::vector<float> gate{1.0f, -2.0f}, up{3.0f, 0.5f};
  ref::geglu(gate.data(), up.data(), 2);
  EXPECT_EQ(gate[0], ref::gelu(1.0f) * 3.0f);
  EXPECT_EQ(gate[1], ref::gelu(-2.0f) * 0.5f);
}

// cap tanh(x / cap): about x where |x| << cap, and never past cap.
TEST(ReferenceOps, SoftcapBoundsByTanh) {
  std::vector<float> x{0.0f, 0.3f, -0.3f, 30.0f, 1e4f, -1e4f};
  ref::softcap(x.data(), x.size(), 30.0f);
  EXPECT_EQ(x[0], 0.0f);
  EXPECT_NEAR(x[1], 0.3f, 1e-4f);
  EXPECT_EQ(x[2], -x[1]);
  EXPECT_NEAR(x[3], 30.0 * std::tanh(1.0), 1e-5);
  EXPECT_EQ(x[4], 30.0f);
  EXPECT_EQ(x[5], -30.0f);
}

// Round trip through each stored type stays within the format's error, in
// units of amax, the largest |x| of the element's block (of 32, or the
// super-block of 256): half an f16/bf16 ulp; for Q8_0 half a step d/2 plus
// 127 x the f16 rounding of d (2^-11 d); for Q4_0 and Q5_0 a whole step d,
// as the range -2^(b-1)..2^(b-1)-1 clips +max one step short; for Q4_1 and
// Q5_1 half a step (max - min) / (2^b - 1) <= 2 amax / (2^b - 1) plus the
// f16 roundings of d (times the top quant) and of m, 3 amax 2^-11; for the
// K-quants, whose sub-block scales (and mins) are rounded against the
// super-block's largest, a whole step of their range over [-amax, amax]:
// 2 amax / nmax (Q2_K 3, Q4_K 15, Q5_K 31), and for the symmetric ones a
// whole step amax / 2^(b-1) plus 2^(b-1) times half their scale's step
// (Q3_K: 4 x amax / 4 / 64, Q6_K: 32 x amax / 32 / 256); for the IQ4 grid,
// whose widest gap is 24 and clipped end 127 - 113 = 14 units of d ~ amax /
// 113, 14 d, and for IQ4_XS half its 6-bit sub-block scale's step (d / 64
// of 127) more. Every row of the format table; the switch makes a new one
// state its bound.
TEST(Quantize, RoundTripWithinTheFormatsError) {
  std::mt19937 gen(3);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> x(512);
  for (auto& v : x) v = normal(gen);
  x[5] = 0.0f;
  std::fill_n(x.begin() + 256 + 64, 32, 0.0f);  // an all-zero sub-block
  for (const WeightFormat& format : weight_formats()) {
    const TensorType type = format.type;
    std::vector<std::byte> stored(row_bytes(type, x.size()));
    quantize_row(type, x.data(), stored.data(), x.size());
    std::vector<float> back(x.size());
    dequantize_row(type, stored.data(), back.data(), x.size());
    const size_t block = traits(type).block_size;
    for (size_t b = 0; b < x.size() / block; ++b) {
      float amax = 0;
      for (size_t j = 0; j < block; ++j) amax = std::max(amax, std::abs(x[b * block + j]));
      for (size_t j = 0; j < block; ++j) {
        const size_t i = b * block + j;
        float bound = 0;
        switch (type) {
          case TensorType::F32: bound = 0; break;
          case TensorType::F16: bound = std::max(std::abs(x[i]) / 2048, 6e-8f); break;
          case TensorType::BF16: bound = std::abs(x[i]) / 256; break;
          case TensorType::Q8_0: bound = amax / 127 * (0.5f + 127.0f / 2048); break;
          case TensorType::Q4_0: bound = amax / 8 * (1.0f + 8.0f / 2048); break;
          case TensorType::Q5_0: bound = amax / 16 * (1.0f + 16.0f / 2048); break;
          case TensorType::Q4_1: bound = amax / 15 + 3 * amax / 2048; break;
          case TensorType::Q5_1: bound = amax / 31 + 3 * amax / 2048; break;
          case TensorType::Q2_K: bound = 2 * amax / 3; break;
          case TensorType::Q4_K: bound = 2 * amax / 15; break;
          case TensorType::Q5_K: bound = 2 * amax / 31; break;
          case TensorType::Q3_K: bound = amax / 4 + amax / 64; break;
          case TensorType::Q6_K: bound = amax / 32 + amax / 256; break;
          case TensorType::IQ4_NL: bound = amax * 14 / 113; break;
          case TensorType::IQ4_XS: bound = amax * 14 / 113 + amax / 64; break;
        }
        EXPECT_LE(std::abs(back[i] - x[i]), bound) << traits(type).name << " element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace pdbench
