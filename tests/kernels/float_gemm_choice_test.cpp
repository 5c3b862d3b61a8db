// The choice between oneDNN's f32 and bf16 GEMMs for BF16 prefill: the
// variable decides when set; else a measurement, made once.
#include "engine/kernels/float_gemm_choice.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/error_of.h"
#include "tests/support/scoped_env.h"

namespace pdbench {
namespace {

TEST(FloatGemmChoice, TheVariableNamesThePrecision) {
  for (const auto& [value, precision] : {std::pair{"f32", GemmPrecision::F32}, std::pair{"bf16", GemmPrecision::BF16}}) {
    const test::ScopedEnv forced(kFloatGemmVariable, value);
    const FloatGemmChoice c = float_gemm_choice();
    EXPECT_EQ(c.precision, precision) << value;
    EXPECT_EQ(c.source, kFloatGemmVariable);
  }
  const test::ScopedEnv bad(kFloatGemmVariable, "int8");
  EXPECT_EQ(test::error_of([] { float_gemm_choice(); }), "PDBENCH_FLOAT_GEMM=int8: expected f32 or bf16");
}

// Which one wins is the machine's; that the faster one is taken, and the
// same one every time, is the code's.
TEST(FloatGemmChoice, WithoutTheVariableTheFasterMeasuredOneIsKept) {
  if (std::getenv(kFloatGemmVariable) != nullptr) GTEST_SKIP() << kFloatGemmVariable << " is set";
  const FloatGemmChoice first = float_gemm_choice();
  EXPECT_EQ(first.source, "measured");
  EXPECT_GT(first.f32_ms, 0);
  EXPECT_GT(first.bf16_ms, 0);
  EXPECT_EQ(first.precision, first.bf16_ms < first.f32_ms ? GemmPrecision::BF16 : GemmPrecision::F32);
  const FloatGemmChoice again = float_gemm_choice();
  EXPECT_EQ(again.precision, first.precision);
  EXPECT_EQ(again.f32_ms, first.f32_ms) << "measured once";
}

}  // namespace
}  // namespace pdbench
