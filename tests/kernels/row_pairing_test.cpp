// Whether gemm_rows reads rows from cache in pairs: the variable decides
// when set; else a measurement, made once per ISA and format, where the
// ISA's kernel can pair at all.
#include "engine/kernels/row_pairing.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/kernels/gemv.h"
#include "tests/support/error_of.h"
#include "tests/support/scoped_env.h"

namespace pdbench {
namespace {

TEST(RowPairing, TheVariableDecides) {
  for (const auto& [value, pairs] : {std::pair{"on", true}, std::pair{"off", false}})
    for (Isa isa : kAllIsas) {
      const test::ScopedEnv forced(kRowPairsVariable, value);
      const RowPairing c = row_pairing(isa, TensorType::Q4_K);
      EXPECT_EQ(c.pairs, pairs) << value;
      EXPECT_EQ(c.source, kRowPairsVariable);
    }
  const test::ScopedEnv bad(kRowPairsVariable, "2");
  EXPECT_EQ(test::error_of([] { row_pairing(Isa::Avx512, TensorType::Q8_0); }),
            "PDBENCH_ROW_PAIRS=2: expected on or off");
}

// Only AVX-512's grouped kernels pair; the scalar reference, AVX2's file
// rows and the float formats have nothing to choose.
TEST(RowPairing, OnlyAKernelThatPairsIsMeasured) {
  if (std::getenv(kRowPairsVariable) != nullptr) GTEST_SKIP() << kRowPairsVariable << " is set";
  for (const auto& [isa, type] : {std::pair{Isa::Scalar, TensorType::Q8_0}, std::pair{Isa::Avx2, TensorType::Q4_K},
                                  std::pair{Isa::Avx512, TensorType::F32}, std::pair{Isa::Avx512, TensorType::BF16}}) {
    EXPECT_FALSE(can_pair_rows(type, isa)) << isa_name(isa) << " " << traits(type).name;
    const RowPairing c = row_pairing(isa, type);
    EXPECT_FALSE(c.pairs);
    EXPECT_EQ(c.source, "no paired kernel");
    EXPECT_EQ(c.one_ms, 0);
  }
}

// Which one wins is the machine's; that the faster one is taken, and the
// same one every time, is the code's.
TEST(RowPairing, WithoutTheVariableTheFasterMeasuredOneIsKept) {
  if (std::getenv(kRowPairsVariable) != nullptr) GTEST_SKIP() << kRowPairsVariable << " is set";
  if (!isa_supported(Isa::Avx512)) GTEST_SKIP() << "no AVX-512 here";
  ASSERT_TRUE(can_pair_rows(TensorType::Q4_K, Isa::Avx512));
  const RowPairing first = row_pairing(Isa::Avx512, TensorType::Q4_K);
  EXPECT_EQ(first.source, "measured");
  EXPECT_GT(first.one_ms, 0);
  EXPECT_GT(first.pairs_ms, 0);
  EXPECT_EQ(first.pairs, first.pairs_ms < first.one_ms);
  const RowPairing again = row_pairing(Isa::Avx512, TensorType::Q4_K);
  EXPECT_EQ(again.pairs, first.pairs);
  EXPECT_EQ(again.one_ms, first.one_ms) << "measured once";
}

}  // namespace
}  // namespace pdbench
