// How far ahead streamed rows are prefetched into L1: the variable decides
// when set; else a measurement, made once per process, on AVX-512 only.
// ctest sets the variable for every test (tests/CMakeLists.txt), so the
// ones of the probe empty it, which counts as unset.
#include "engine/kernels/stream_prefetch.h"

#include <gtest/gtest.h>

#include "engine/util/available_memory.h"
#include "tests/support/error_of.h"
#include "tests/support/scoped_env.h"

namespace pdbench {
namespace {

TEST(StreamPrefetch, TheVariableDecides) {
  for (const auto& [value, far] : {std::pair{"near", false}, std::pair{"far", true}})
    for (Isa isa : kAllIsas) {
      const test::ScopedEnv forced(kL1PrefetchVariable, value);
      const StreamPrefetch c = choose_stream_prefetch(isa);
      EXPECT_EQ(c.far_l1, far) << value;
      EXPECT_EQ(c.source, kL1PrefetchVariable);
    }
  const test::ScopedEnv bad(kL1PrefetchVariable, "8k");
  EXPECT_EQ(test::error_of([] { choose_stream_prefetch(Isa::Avx512); }),
            "PDBENCH_L1_PREFETCH=8k: expected near or far");
}

TEST(StreamPrefetch, OnlyAvx512Chooses) {
  const test::ScopedEnv unset(kL1PrefetchVariable, "");
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx2Vnni}) {
    const StreamPrefetch c = choose_stream_prefetch(isa);
    EXPECT_FALSE(c.far_l1);
    EXPECT_EQ(c.source, "avx512 only");
    EXPECT_EQ(c.near_ms, 0);
  }
}

// The probe's 64 MiB are not taken from a machine that cannot spare them.
TEST(StreamPrefetch, ShortOfMemoryTheProbeDoesNotRun) {
  if (!isa_supported(Isa::Avx512)) GTEST_SKIP() << "no AVX-512 here";
  const test::ScopedEnv unset(kL1PrefetchVariable, "");
  const test::ScopedEnv one_mib(kMemAvailableVariable, "1");
  const StreamPrefetch c = choose_stream_prefetch(Isa::Avx512);
  EXPECT_FALSE(c.far_l1);
  EXPECT_EQ(c.source, "not measured: memory short");
  EXPECT_EQ(c.near_ms, 0);
}

// Which one wins is the machine's; that the faster one is taken is the
// code's.
TEST(StreamPrefetch, WithoutTheVariableTheFasterMeasuredOneIsChosen) {
  if (!isa_supported(Isa::Avx512)) GTEST_SKIP() << "no AVX-512 here";
  const test::ScopedEnv unset(kL1PrefetchVariable, "");
  const StreamPrefetch c = choose_stream_prefetch(Isa::Avx512);
  EXPECT_EQ(c.source, "measured");
  EXPECT_GT(c.near_ms, 0);
  EXPECT_GT(c.far_ms, 0);
  EXPECT_EQ(c.far_l1, c.far_ms < c.near_ms);
}

// The kernels ask on every call; the process keeps its first answer.
TEST(StreamPrefetch, TheProcessKeepsItsFirstAnswer) {
  for (Isa isa : kAllIsas) {
    const StreamPrefetch& first = stream_prefetch(isa);
    const test::ScopedEnv other(kL1PrefetchVariable, first.far_l1 ? "near" : "far");
    EXPECT_EQ(&stream_prefetch(isa), &first) << isa_name(isa);
    EXPECT_EQ(stream_prefetch(isa).far_l1, first.far_l1) << isa_name(isa);
  }
}

}  // namespace
}  // namespace pdbench
