// `pdbench compare` as a CI job runs it: exit codes (0 no regression,
// 1 regression, 2 unusable input), the fingerprint refusal, --md, and the
// hidden --test-decode-delay-us option of `pdbench run`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/runner/csv_table.h"
#include "tests/compare/compare_test_util.h"
#include "tests/support/test_paths.h"

namespace pdbench::compare {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out;  // stdout and stderr
};

Outcome pdbench(const std::string& args) {
  Outcome o;
  FILE* pipe = popen((std::string(PDBENCH_BIN) + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return o;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) o.out.append(buf, n);
  const int status = pclose(pipe);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

void write_run(const std::string& dir, const RunData& run) {
  fs::create_directories(dir);
  runner::write_csv(dir + "/samples.csv", run.samples);
  std::ofstream(dir + "/meta.json") << run.meta.dump(2);
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_dir("compare_cli");
    write_run(dir_ + "/base", fixture::make_run("base", {{"decode_ms", fixture::kQuiet}, {"prefill_ms", fixture::kQuiet}}));
    write_run(dir_ + "/same", fixture::make_run("same", {{"decode_ms", fixture::kQuiet}, {"prefill_ms", fixture::kQuiet}}));
    write_run(dir_ + "/slow", fixture::make_run("slow", {{"decode_ms", fixture::scaled(fixture::kQuiet, 2)},
                                                        {"prefill_ms", fixture::kQuiet}}));
  }
  std::string dir_;
};

TEST_F(CompareCli, ExitCodes) {
  const Outcome same = pdbench("compare " + dir_ + "/base " + dir_ + "/same");
  EXPECT_EQ(same.code, 0) << same.out;
  EXPECT_NE(same.out.find("no regression"), std::string::npos);
  const Outcome slow = pdbench("compare " + dir_ + "/base " + dir_ + "/slow --md " + dir_ + "/summary.md");
  EXPECT_EQ(slow.code, 1) << slow.out;
  EXPECT_NE(slow.out.find("regressed"), std::string::npos);
  EXPECT_NE(read(dir_ + "/summary.md").find("| c0 | decode | decode |"), std::string::npos);
  // The other way round it is an improvement: exit 0.
  EXPECT_EQ(pdbench("compare " + dir_ + "/slow " + dir_ + "/base").code, 0);
}

TEST_F(CompareCli, UnusableInputIsTwo) {
  EXPECT_EQ(pdbench("compare " + dir_ + "/base " + dir_ + "/missing").code, 2);
  fs::create_directories(dir_ + "/empty");
  EXPECT_EQ(pdbench("compare " + dir_ + "/base " + dir_ + "/empty").code, 2);
  write_run(dir_ + "/other", fixture::make_run("other", {{"decode_ms", fixture::kQuiet}}, {"another_case"}));
  const Outcome other = pdbench("compare " + dir_ + "/base " + dir_ + "/other");
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.out.find("no case in common"), std::string::npos) << other.out;
  // Each side's cases are listed.
  EXPECT_NE(other.out.find("(1 cases):\n    c0\n"), std::string::npos) << other.out;
  EXPECT_NE(other.out.find("(1 cases):\n    another_case"), std::string::npos) << other.out;
  EXPECT_EQ(pdbench("compare " + dir_ + "/base " + dir_ + "/other --ignore no_such_axis").code, 2);
  std::ofstream(dir_ + "/same/samples.csv", std::ios::app) << "c0,\"unterminated\n";
  EXPECT_EQ(pdbench("compare " + dir_ + "/base " + dir_ + "/same").code, 2);
  EXPECT_EQ(pdbench("compare " + dir_ + "/base " + dir_ + "/slow --threshold abc").code, 2);
}

TEST_F(CompareCli, FingerprintMismatchRefusesUnlessAllowed) {
  RunData moved = fixture::make_run("moved", {{"decode_ms", fixture::scaled(fixture::kQuiet, 2)}, {"prefill_ms", fixture::kQuiet}});
  moved.meta["fingerprint"]["cpu"]["model"] = "Another CPU";
  write_run(dir_ + "/moved", moved);
  const Outcome refused = pdbench("compare " + dir_ + "/base " + dir_ + "/moved");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.out.find("FINGERPRINT MISMATCH"), std::string::npos);
  EXPECT_NE(refused.out.find("Another CPU"), std::string::npos);
  const Outcome allowed = pdbench("compare --allow-fingerprint-mismatch " + dir_ + "/base " + dir_ + "/moved");
  EXPECT_EQ(allowed.code, 1) << allowed.out;
  EXPECT_NE(allowed.out.find("FINGERPRINT MISMATCH"), std::string::npos);
}

// accuracy.csv (the fixture's, tests/data/results-fixture/a) on both
// sides: the same figures are no regression; the decode path's mean KLD
// up 100x (beyond x1.1 and +0.001) is one, exit 1, even with speed the
// same; a threshold the change stays within (--kld-increase) is none.
TEST_F(CompareCli, AccuracyHasAVerdictOfItsOwn) {
  const runner::Table fixture_acc = runner::read_csv(test::data_path("results-fixture/a/accuracy.csv"));
  runner::write_csv(dir_ + "/base/accuracy.csv", fixture_acc);
  runner::write_csv(dir_ + "/same/accuracy.csv", fixture_acc);
  runner::Table worse = fixture_acc;
  worse.rows[1][worse.column("kld_mean")] = "0.005";
  worse.rows[1][worse.column("same_top_pct")] = "93.5";
  write_run(dir_ + "/lossy",
            fixture::make_run("lossy", {{"decode_ms", fixture::kQuiet}, {"prefill_ms", fixture::kQuiet}}));
  runner::write_csv(dir_ + "/lossy/accuracy.csv", worse);

  const Outcome same = pdbench("compare " + dir_ + "/base " + dir_ + "/same --md " + dir_ + "/same.md");
  EXPECT_EQ(same.code, 0) << same.out;
  EXPECT_NE(same.out.find("file KV f32/f32              decode  KLD 0.000000 -> 0.000000"), std::string::npos)
      << same.out;
  EXPECT_NE(read(dir_ + "/same.md").find("| file KV f32/f32 | prefill |"), std::string::npos);
  const Outcome lossy = pdbench("compare " + dir_ + "/base " + dir_ + "/lossy --md " + dir_ + "/lossy.md");
  EXPECT_EQ(lossy.code, 1) << lossy.out;
  EXPECT_NE(lossy.out.find("decode  KLD 0.000000 -> 0.005000, same top 100.00% -> 93.50%  regressed"),
            std::string::npos)
      << lossy.out;
  EXPECT_NE(read(dir_ + "/lossy.md").find("REGRESSION"), std::string::npos);
  EXPECT_EQ(pdbench("compare " + dir_ + "/base " + dir_ + "/lossy --kld-increase 0.01").code, 0);
  EXPECT_EQ(pdbench("compare " + dir_ + "/base " + dir_ + "/lossy --kld-ratio 0.5").code, 2);
}

TEST(RunCli, DecodeDelayIsHiddenAndSlowsOnlyDecode) {
  const Outcome help = pdbench("run --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_EQ(help.out.find("test-decode-delay"), std::string::npos) << help.out;
  const std::string dir = test::temp_dir("run_delay");
  const std::string common = " -m " + test::model_path("stories260K.gguf") + " -p 4 -n 4 -r 1 --warmup-max 1 -o ";
  ASSERT_EQ(pdbench("run" + common + dir + "/slow --test-decode-delay-us 20000").code, 0);
  const runner::Table steps = runner::read_csv(dir + "/slow/steps.csv");
  ASSERT_EQ(steps.rows.size(), 3u);
  // The wait lasts at least as long as asked: a floor, not a timing.
  for (const auto& row : steps.rows) EXPECT_GE(std::stod(row[steps.column("step_ms")]), 20.0);
  const runner::Table samples = runner::read_csv(dir + "/slow/samples.csv");
  EXPECT_GE(std::stod(samples.rows[0][samples.column("decode_ms")]), 60.0);
}

}  // namespace
}  // namespace pdbench::compare
