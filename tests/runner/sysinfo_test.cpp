// The cached machine limits: when they count as stale, what is kept about
// their measurement, and that it survives the cache's JSON.
#include <gtest/gtest.h>

#include "bench/runner/sysinfo.h"

namespace pdbench::runner {
namespace {

Limits measured_at(int64_t unix_s) {
  Limits l;
  l.read_gb_s_all = 50;
  l.bf16_gflop_s_all = 900;
  l.int8_gop_s_all = 1800;
  l.measured_unix_s = unix_s;
  return l;
}

TEST(Sysinfo, LimitsAreStaleAfterAWeekOrWithoutAFieldThisVersionMeasures) {
  const int64_t now = 1'800'000'000;
  EXPECT_FALSE(limits_stale(measured_at(now - 3600), now));
  EXPECT_FALSE(limits_stale(measured_at(now - kLimitsMaxAgeSeconds), now));
  EXPECT_TRUE(limits_stale(measured_at(now - kLimitsMaxAgeSeconds - 1), now));
  EXPECT_TRUE(limits_stale(measured_at(0), now)) << "a cache from before the time was kept";
  Limits no_peaks = measured_at(now);
  no_peaks.int8_gop_s_all = 0;
  EXPECT_TRUE(limits_stale(no_peaks, now)) << "a cache from before the GEMM peaks";
}

TEST(Sysinfo, ProvenanceSurvivesTheCacheAndSaysWhenTheMachineWasBusy) {
  Limits l = measured_at(1'764'682'800);  // 2025-12-02 13:40 UTC
  l.loadavg_1m = 0.4;
  l.other_cpus = 0.1;
  const Limits back = limits_from_json(to_json(l));
  EXPECT_EQ(back.measured_unix_s, l.measured_unix_s);
  EXPECT_EQ(limits_provenance(back), "2025-12-02 13:40 UTC, load 0.40, other processes 0.10 CPUs");
  l.other_cpus = 1.2;
  EXPECT_NE(limits_provenance(l).find("busy"), std::string::npos);
  EXPECT_EQ(limits_provenance(measured_at(0)), "at an unrecorded time and load");
}

}  // namespace
}  // namespace pdbench::runner
