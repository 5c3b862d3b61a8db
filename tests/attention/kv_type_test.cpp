// Element types: names, sizes, and encode/decode round trips within the
// bounds kv_type.h states.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/attention/kv_type.h"
#include "engine/util/error.h"
#include "engine/util/half.h"
#include "tests/attention/kv_test_util.h"

namespace pdbench {
namespace {

TEST(KvType, ParsesEveryNameAndListsThemOnError) {
  for (KvType type : {KvType::F32, KvType::F16, KvType::BF16, KvType::Q8_0})
    EXPECT_EQ(parse_kv_type(kv_type_name(type)), type);
  try {
    parse_kv_type("q4_0");
    FAIL() << "q4_0 parsed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "KV cache: unknown element type 'q4_0' (expected one of f32, f16, bf16, q8_0)");
  }
}

TEST(KvType, VectorBytes) {
  EXPECT_EQ(kv_vector_bytes(KvType::F32, 64), 256u);
  EXPECT_EQ(kv_vector_bytes(KvType::F16, 64), 128u);
  EXPECT_EQ(kv_vector_bytes(KvType::BF16, 64), 128u);
  EXPECT_EQ(kv_vector_bytes(KvType::Q8_0, 64), 68u);  // two BlockQ8_0
  EXPECT_EQ(kv_q8_group(48), 48u);                    // not a multiple of 32: one scale
  EXPECT_EQ(kv_vector_bytes(KvType::Q8_0, 48), 50u);
  EXPECT_EQ(kv_vector_bytes(KvType::Q8_0, 8), 10u);
}

std::vector<float> round_trip(KvType type, const std::vector<float>& x,
                              std::vector<std::byte>& stored) {
  stored.assign(kv_vector_bytes(type, x.size()), std::byte{0});
  kv_encode(type, x.data(), stored.data(), x.size());
  std::vector<float> y(x.size());
  kv_decode(type, stored.data(), y.data(), x.size());
  return y;
}

TEST(KvType, FloatRoundTripsWithinBounds) {
  const auto x = test::random_normal(4096, 1, 3.0f);
  std::vector<std::byte> stored;
  EXPECT_EQ(round_trip(KvType::F32, x, stored), x);
  const auto f16 = round_trip(KvType::F16, x, stored);
  const auto bf16 = round_trip(KvType::BF16, x, stored);
  for (size_t i = 0; i < x.size(); ++i) {
    // 2^-25 covers values in f16's subnormal range, where the step is 2^-24.
    EXPECT_LE(std::abs(f16[i] - x[i]), std::max(std::ldexp(std::abs(x[i]), -11), 0x1p-25f)) << x[i];
    EXPECT_LE(std::abs(bf16[i] - x[i]), std::ldexp(std::abs(x[i]), -8)) << x[i];
  }
}

TEST(KvType, Q8RoundTripsWithinHalfTheStoredScale) {
  for (size_t head_dim : {64u, 48u, 8u}) {
    const size_t group = kv_q8_group(head_dim);
    for (uint32_t seed = 0; seed < 50; ++seed) {
      const auto x = test::random_normal(head_dim, seed, 2.0f);
      std::vector<std::byte> stored;
      const auto y = round_trip(KvType::Q8_0, x, stored);
      for (size_t i = 0; i < head_dim; ++i) {
        uint16_t d16;
        std::memcpy(&d16, stored.data() + i / group * (2 + group), 2);
        const float d = fp16_to_f32(d16);
        EXPECT_LE(std::abs(y[i] - x[i]), d / 2 * (1 + 1e-6f)) << "head_dim " << head_dim;
      }
    }
  }
}

TEST(KvType, Q8OfZerosIsZeros) {
  const std::vector<float> x(32, 0.0f);
  std::vector<std::byte> stored;
  EXPECT_EQ(round_trip(KvType::Q8_0, x, stored), x);
}

}  // namespace
}  // namespace pdbench
