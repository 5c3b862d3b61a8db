// [rate_search]: the order of its probes from their verdicts, its scenario
// errors (FILE:LINE), and whole searches whose verdicts cannot depend on the
// machine's speed (limits no run misses, or none meets).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/runner/meta_json.h"
#include "bench/runner/rate_search.h"
#include "bench/runner/runner.h"
#include "bench/runner/scenario.h"
#include "tests/support/error_of.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

// The rates a search measures when the SLA holds up to `capacity` req/s.
std::vector<double> probes_until(const RateSearch& s, double capacity) {
  std::vector<RateProbe> done;
  while (const std::optional<double> rate = next_probe_rate(s, done)) done.push_back({*rate, *rate <= capacity});
  std::vector<double> rates;
  for (const RateProbe& p : done) rates.push_back(p.rate);
  return rates;
}

TEST(RateSearch, HighFirstThenLowThenGeometricMidpoints) {
  const RateSearch s{1, 16, 6, 0};
  EXPECT_EQ(probes_until(s, 100), (std::vector<double>{16}));    // the high rate met: at least 16
  EXPECT_EQ(probes_until(s, 0.5), (std::vector<double>{16, 1}));  // the low rate missed: none
  // 3 req/s: 16 missed, 1 met, then sqrt(1 x 16) = 4 missed, sqrt(1 x 4) = 2 met, sqrt(2 x 4) = 2.83 met.
  EXPECT_EQ(probes_until(s, 3), (std::vector<double>{16, 1, 4, 2, 2.83, 3.36}));
}

TEST(RateSearch, TheAnswerIsBelowEveryRateMissed) {
  EXPECT_EQ(highest_rate_met({{16, false}, {1, true}, {4, true}}), 4.0);
  // A rate met above a missed one (noise) does not count.
  EXPECT_EQ(highest_rate_met({{16, false}, {1, true}, {4, false}, {8, true}}), 1.0);
  EXPECT_EQ(highest_rate_met({{16, false}, {1, false}}), std::nullopt);
}

TEST(RateSearch, StopsWhereThreeDigitsNoLongerSplitTheInterval) {
  const RateSearch s{1, 1.01, 10, 0};
  EXPECT_EQ(probes_until(s, 1.005).size(), 2u);  // 1.01 missed, 1 met; their midpoint rounds to 1.00
}

const std::string kHead = "[model]\npath = \"m.gguf\"\n";

std::string error_of(const std::string& text) {
  return test::error_of([&] { require_supported(parse_scenario(text, "scenarios/x.toml")); });
}

TEST(RateSearch, ScenarioErrorsNameFileLineAndKey) {
  const std::string sla = "[sla]\nttft_p99_ms = 500\n";              // lines 3-4
  const std::string search = "[rate_search]\nlow = 0.5\nhigh = 8\n";  // lines 5-7
  const std::string load = "[sweep]\nrequests = 16\n";                // lines 8-9
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kHead + search + load, "scenarios/x.toml:3: key 'rate_search' needs an [sla] to search against (ttft_p99_ms, tpot_p99_ms)"},
      {kHead + sla + search, "scenarios/x.toml:5: key 'rate_search' needs load cases: set 'requests' or 'duration_s' in [sweep]"},
      {kHead + sla + search + load + "request_rate = 2\n",
       "scenarios/x.toml:10: key 'request_rate' cannot be set with [rate_search]: the search picks the rates"},
      {kHead + sla + "[rate_search]\nlow = 2\nhigh = 1\n" + load, "scenarios/x.toml:7: key 'high' must be above 'low' (2)"},
      {kHead + sla + "[rate_search]\nhigh = 1\n" + load,
       "scenarios/x.toml:5: key 'low' is missing: [rate_search] searches between 'low' and 'high' requests/s"},
      {kHead + sla + search + "probes = 1\n" + load, "scenarios/x.toml:8: key 'probes' must be >= 2, got 1"},
      {kHead + sla + "[rate_search]\nlow = -1\nhigh = 1\n" + load, "scenarios/x.toml:6: key 'low' must be > 0 (requests/s)"},
  };
  for (const auto& [text, error] : cases) EXPECT_EQ(error_of(text), error) << text;
}

// A search on stories260K under `sla`, into dir/out; its meta.json.
nlohmann::json run_search(const std::string& dir, const std::string& sla, int probes = 4) {
  std::ofstream(dir + "/s.toml") << "[model]\npath = \"" + test::model_path("stories260K.gguf") +
                                        "\"\n[measure]\nrepetitions = 1\nwarmup_max = 0\n[sla]\n" + sla +
                                        "\n[rate_search]\nlow = 50\nhigh = 400\nprobes = " + std::to_string(probes) + "\n"
                                        "[sweep]\nprompt_tokens = 8\noutput_tokens = 3\nthreads = 1\nrequests = 6\n"
                                        "max_concurrency = 2\n";
  RunOptions options;
  options.out_dir = dir + "/out";
  const RunReport report = run_scenario(load_scenario(dir + "/s.toml"), options, nullptr);
  EXPECT_TRUE(report.complete);
  const nlohmann::json meta = read_meta_json(options.out_dir);
  EXPECT_FALSE(meta["finished_at"].is_null());
  return meta;
}

TEST(RateSearch, ALimitNoRunMissesEndsAtTheHighRate) {
  const std::string dir = test::temp_dir("rate-search-met");
  const nlohmann::json meta = run_search(dir, "ttft_p99_ms = 600000");
  ASSERT_EQ(meta["rate_search"].size(), 1u);
  const nlohmann::json& setting = meta["rate_search"][0];
  EXPECT_EQ(setting["setting"], "p8_n3_d0_t1_q6_rsearch_c2_greedy");
  ASSERT_EQ(setting["probes"].size(), 1u);
  EXPECT_EQ(setting["probes"][0]["case_id"], "p8_n3_d0_t1_q6_r400_c2_greedy");
  EXPECT_EQ(setting["highest_rate_met"], 400.0);
  EXPECT_EQ(meta["cases"], 1);
}

TEST(RateSearch, ALimitEveryRunMissesEndsAtTheLowRateWithNone) {
  const std::string dir = test::temp_dir("rate-search-missed");
  const nlohmann::json meta = run_search(dir, "tpot_p99_ms = 0.000001");
  const nlohmann::json& setting = meta["rate_search"][0];
  ASSERT_EQ(setting["probes"].size(), 2u);
  EXPECT_EQ(setting["probes"][1]["request_rate"], 50.0);
  EXPECT_FALSE(setting["probes"][1]["sla_met"].get<bool>());
  EXPECT_TRUE(setting["highest_rate_met"].is_null());
  // Both probes are ordinary load cases in the results.
  const Table samples = read_csv(dir + "/out/samples.csv");
  EXPECT_EQ(samples.rows.size(), 2u);
}

// A search that measures all its probes is over: its last round spends the
// whole run budget, and the run is complete (run_search checks), not left
// for --resume.
TEST(RateSearch, ASearchThatUsesEveryProbeIsComplete) {
  const std::string dir = test::temp_dir("rate-search-every-probe");
  const nlohmann::json meta = run_search(dir, "tpot_p99_ms = 0.000001", 2);
  EXPECT_EQ(meta["rate_search"][0]["probes"].size(), 2u);
}

}  // namespace
}  // namespace pdbench::runner
