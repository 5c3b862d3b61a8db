// The A/A and slowed-build checks on a reduced smoke scenario (16-token
// prompts, 16 tokens out, depths 0 and 128, one thread, 9 repetitions).
// One thread: two OpenMP threads on a two-core machine shared with other
// jobs turn a descheduled thread into seconds of spinning at a barrier, so
// those cases come out unstable (rightly), which would hide the slowed
// build. The two runs of a pair are interleaved, one repetition of every
// case at a time in ABBA order, so load from anything else on the
// machine falls on both alike; the assertions are on verdicts, which the
// rule (docs/COMPARE.md) makes robust to noise, never on times.
#include <gtest/gtest.h>

#include <cmath>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "bench/compare/compare_table.h"
#include "bench/runner/runner.h"
#include "bench/runner/scenario.h"
#include "tests/support/test_paths.h"

namespace pdbench::compare {
namespace {

namespace fs = std::filesystem;

runner::Scenario reduced_smoke() {
  runner::Scenario s = runner::load_scenario(test::source_path("scenarios/smoke.toml"));
  s.prompt_tokens.values = {16};
  s.output_tokens.values = {16};
  s.threads.values = {1};
  s.repetitions = 9;
  return s;
}

// Runs base and new alternately, one round (a repetition of each case) at a time.
void run_interleaved(const runner::Scenario& s, const std::string& base, const std::string& next, size_t delay_us) {
  runner::RunOptions a, b;
  a.out_dir = base;
  b.out_dir = next;
  b.decode_delay_us = delay_us;
  a.max_runs = b.max_runs = runner::expand(s).size();
  for (size_t round = 0; round < s.repetitions; ++round) {
    runner::RunOptions& first = round % 2 == 0 ? a : b;
    runner::RunOptions& second = round % 2 == 0 ? b : a;
    runner::run_scenario(s, first, nullptr);
    runner::run_scenario(s, second, nullptr);
    a.resume = b.resume = true;
  }
}

int compare_exit_code(const std::string& base, const std::string& next) {
  const std::string cmd = std::string(PDBENCH_BIN) + " compare " + base + " " + next + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


TEST(AaCheck, SameBuildTwiceIsNotARegression) {
  const std::string dir = test::temp_dir("aa");
  const runner::Scenario s = reduced_smoke();
  run_interleaved(s, dir + "/a", dir + "/b", 0);
  const Comparison c = compare_runs(load_run_dir(dir + "/a"), load_run_dir(dir + "/b"), {});
  std::fputs(text_report(c).c_str(), stdout);  // for the test log
  EXPECT_EQ(c.rows.size(), 2u * compared_metrics().size());
  for (const Row& r : c.rows)
    EXPECT_NE(r.judgement.verdict, Verdict::Regressed) << r.case_id << " " << r.metric.name << ": " << r.judgement.reason;
  EXPECT_EQ(compare_exit_code(dir + "/a", dir + "/b"), 0);
}

TEST(AaCheck, SlowedDecodeIsARegression) {
  const std::string dir = test::temp_dir("slowed");
  runner::Scenario s = reduced_smoke();
  // 2 ms of busy-waiting per step, 10-30x a decode step of this model: far
  // above any noise. A context filler (untimed) warms the caches before each
  // prompt.
  s.context_depth.values = {64, 128};
  run_interleaved(s, dir + "/base", dir + "/slow", 2000);
  const Comparison c = compare_runs(load_run_dir(dir + "/base"), load_run_dir(dir + "/slow"), {});
  std::fputs(text_report(c).c_str(), stdout);  // for the test log
  // Only decode is asserted. Prefill here is measured on a shared machine
  // right after a request 20x longer than the base's, and CI has seen it
  // move by +64% (significant) when other jobs ran in between: a real
  // effect of the machine, not of the rule. That the rule keeps an
  // unchanged phase unchanged is asserted on fixed samples in
  // verdict_test.cpp (SlowerDecodeIsRegressedAndPrefillIsNot).
  for (const Row& r : c.rows) {
    if (r.metric.phase != std::string("decode")) continue;
    EXPECT_EQ(r.judgement.verdict, Verdict::Regressed) << r.case_id << " " << r.metric.name << ": " << r.judgement.reason;
  }
  EXPECT_EQ(compare_exit_code(dir + "/base", dir + "/slow"), 1);
}

}  // namespace
}  // namespace pdbench::compare
