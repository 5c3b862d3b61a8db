// The one ISA switch (engine/util/isa.h) every kernel family follows.
#include <gtest/gtest.h>

#include "engine/util/error.h"
#include "engine/util/isa.h"

namespace pdbench {
namespace {

TEST(Isa, SelectedIsaIsSupportedAndNamed) {
  EXPECT_TRUE(isa_supported(selected_isa()));
  EXPECT_EQ(isa_name(Isa::Avx512), "avx512");
  EXPECT_EQ(isa_name(Isa::Avx2Vnni), "avx2vnni");
  EXPECT_EQ(isa_name(Isa::Avx2), "avx2");
  EXPECT_EQ(isa_name(Isa::Scalar), "scalar");
  EXPECT_EQ(supported_isas().front(), Isa::Scalar);
  EXPECT_EQ(supported_isas().back(), isa_for(nullptr));
}

TEST(Isa, PdbenchIsaLowersTheIsaAndNeverRaisesItPastTheCpu) {
  const Isa best = isa_for(nullptr);
  EXPECT_EQ(isa_for(""), best);
  EXPECT_EQ(isa_for("scalar"), Isa::Scalar);
  // The named ISA where the CPU runs it, else the best it runs below it.
  for (Isa isa : kAllIsas) {
    const Isa got = isa_for(isa_name(isa).data());
    EXPECT_TRUE(isa_supported(got)) << isa_name(isa);
    EXPECT_LE(got, isa) << isa_name(isa);
    for (Isa between : kAllIsas) {
      if (between > got && between <= isa) {
        EXPECT_FALSE(isa_supported(between)) << isa_name(isa);
      }
    }
  }
  EXPECT_THROW(isa_for("sse2"), Error);
  EXPECT_THROW(isa_for("AVX512"), Error);
}

TEST(Isa, KernelsOfAnIsaTheCpuLacksAreAnError) {
  for (Isa isa : kAllIsas)
    if (isa_supported(isa))
      EXPECT_NO_THROW(require_isa(isa, "test"));
    else
      EXPECT_THROW(require_isa(isa, "test"), Error);
}

}  // namespace
}  // namespace pdbench
