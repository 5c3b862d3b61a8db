// engine/util/half.h: fp16 and bf16 conversions, exhaustively over 16-bit
// patterns and against the compiler's correctly rounded _Float16.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/util/half.h"

namespace pdbench {
namespace {

bool is_nan_fp16(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool is_nan_bf16(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

TEST(Half, Fp16RoundTripsEveryPattern) {
  for (uint32_t i = 0; i <= 0xffffu; ++i) {
    const auto h = static_cast<uint16_t>(i);
    const float f = fp16_to_f32(h);
    if (is_nan_fp16(h)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << i;
      EXPECT_TRUE(is_nan_fp16(f32_to_fp16(f))) << std::hex << i;
    } else {
      ASSERT_EQ(f32_to_fp16(f), h) << std::hex << i;
    }
  }
}

TEST(Half, Bf16RoundTripsEveryPattern) {
  for (uint32_t i = 0; i <= 0xffffu; ++i) {
    const auto b = static_cast<uint16_t>(i);
    const float f = bf16_to_f32(b);
    if (is_nan_bf16(b)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << i;
      EXPECT_TRUE(is_nan_bf16(f32_to_bf16(f))) << std::hex << i;
    } else {
      ASSERT_EQ(f32_to_bf16(f), b) << std::hex << i;
    }
  }
}

TEST(Half, Fp16KnownValues) {
  EXPECT_EQ(f32_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_fp16(0.0f), 0x0000);
  EXPECT_EQ(f32_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_fp16(65504.0f), 0x7bff);  // largest finite
  EXPECT_EQ(f32_to_fp16(65519.0f), 0x7bff);  // below the halfway point to 65536
  EXPECT_EQ(f32_to_fp16(65520.0f), 0x7c00);  // tie rounds to even: overflows to inf
  EXPECT_EQ(f32_to_fp16(1e10f), 0x7c00);
  EXPECT_EQ(f32_to_fp16(-1e10f), 0xfc00);
  EXPECT_EQ(f32_to_fp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(is_nan_fp16(f32_to_fp16(std::numeric_limits<float>::quiet_NaN())));
  // Ties between neighbours 2^-10 apart round to the even mantissa.
  EXPECT_EQ(f32_to_fp16(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(f32_to_fp16(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(f32_to_fp16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);  // just above the tie
  // Subnormals: steps of 2^-24.
  EXPECT_EQ(f32_to_fp16(0x1p-24f), 0x0001);
  EXPECT_EQ(f32_to_fp16(0x1p-25f), 0x0000);      // tie to even (zero)
  EXPECT_EQ(f32_to_fp16(3 * 0x1p-25f), 0x0002);  // tie to even (two)
  EXPECT_EQ(f32_to_fp16(0x1p-26f), 0x0000);
  EXPECT_EQ(f32_to_fp16(-0x1p-24f), 0x8001);
  EXPECT_EQ(f32_to_fp16(0x1p-14f - 0x1p-25f), 0x0400);  // largest subnormal rounds up to the smallest normal
  EXPECT_EQ(fp16_to_f32(0x0001), 0x1p-24f);
  EXPECT_EQ(fp16_to_f32(0x03ff), 0x1p-14f - 0x1p-24f);
  EXPECT_EQ(fp16_to_f32(0x0400), 0x1p-14f);
  EXPECT_EQ(fp16_to_f32(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(fp16_to_f32(0x8000)));
}

TEST(Half, Bf16KnownValues) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);          // tie to even
  EXPECT_EQ(f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);      // tie to even
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to inf
  EXPECT_EQ(f32_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_TRUE(is_nan_bf16(f32_to_bf16(std::bit_cast<float>(0x7f800001u))));  // NaN with only low bits set stays NaN
  EXPECT_EQ(bf16_to_f32(0xc040), -3.0f);
}

#ifdef __FLT16_MAX__
// Every 1021st float32 bit pattern (all exponents, varied mantissas) against
// the compiler's correctly rounded conversion.
TEST(Half, Fp16MatchesCompilerRounding) {
  for (uint64_t i = 0; i <= 0xffffffffu; i += 1021) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(i));
    if (std::isnan(f)) continue;
    const auto expected = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
    ASSERT_EQ(f32_to_fp16(f), expected) << std::hex << "float bits 0x" << i;
  }
}
#endif

}  // namespace
}  // namespace pdbench
