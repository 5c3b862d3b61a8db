// A scenario's [accuracy] table: its keys and errors, and a run that
// scores each configuration its cases run into accuracy.csv.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/runner/accuracy_run.h"
#include "bench/runner/runner.h"
#include "bench/runner/scenario.h"
#include "engine/util/error.h"
#include "tests/support/error_of.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

const std::string kStories = "[model]\npath = \"" + test::model_path("stories260K.gguf") + "\"\n";

std::string parse_error(const std::string& text) {
  return test::error_of([&] { parse_scenario(text, "s.toml"); });
}

TEST(AccuracyScenario, KeysAndTheirErrors) {
  const Scenario s =
      parse_scenario(kStories + "[accuracy]\ntext = \"t.txt\"\nchunk = 64\nchunks = 2\nbase = \"f32.gguf\"\n",
                     "dir/s.toml");
  ASSERT_TRUE(s.accuracy);
  EXPECT_EQ(s.accuracy->text, "dir/t.txt");
  EXPECT_EQ(s.accuracy->chunk, 64u);
  EXPECT_EQ(s.accuracy->max_chunks, 2u);
  EXPECT_EQ(s.accuracy->base, "dir/f32.gguf");
  EXPECT_EQ(parse_scenario(kStories + "[accuracy]\n", "s.toml").accuracy->base, "reference");
  EXPECT_FALSE(parse_scenario(kStories, "s.toml").accuracy);
  EXPECT_EQ(parse_error(kStories + "[accuracy]\nchunk = 63\n"),
            "s.toml:4: key 'chunk' = 63 must be even (half of it is scored)");
  EXPECT_NE(parse_error(kStories + "[accuracy]\nchunk = 2\n").find("s.toml:4: key 'chunk'"), std::string::npos);
  EXPECT_NE(parse_error(kStories + "[accuracy]\nctx = 2\n").find("s.toml:4: unknown key 'ctx' in [accuracy]"),
            std::string::npos);
}

class AccuracyRunTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("accuracy-run"); }

  Scenario scenario(const std::string& accuracy) {
    std::ofstream(dir_ + "/s.toml") << kStories << "[measure]\nrepetitions = 1\nwarmup_max = 0\n"
                                    << "[sweep]\nprompt_tokens = 8\noutput_tokens = 2\nthreads = 1\n"
                                    << "kv_type_k = [\"f32\", \"q8_0\"]\n" << accuracy;
    return load_scenario(dir_ + "/s.toml");
  }
  std::string dir_;
};

// One row per configuration and path, after the timings: the fast pass
// on f32 weights and an f32 cache stays within rounding of the reference;
// a q8_0 K cache moves it further.
TEST_F(AccuracyRunTest, ScoresEveryConfigurationIntoAccuracyCsv) {
  const Scenario s = scenario("[accuracy]\nchunk = 128\nchunks = 3\n");
  RunOptions o;
  o.out_dir = dir_ + "/out";
  ASSERT_TRUE(run_scenario(s, o, nullptr).complete);
  const std::optional<Table> t = read_accuracy(o.out_dir);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->columns, accuracy_columns());
  ASSERT_EQ(t->rows.size(), 4u);
  const auto at = [&](size_t row, const char* column) { return t->rows[row][t->column(column)]; };
  EXPECT_EQ(at(0, "kv_type_k"), "f32");
  EXPECT_EQ(at(0, "path"), "prefill");
  EXPECT_EQ(at(1, "path"), "decode");
  EXPECT_EQ(at(2, "kv_type_k"), "q8_0");
  EXPECT_EQ(at(0, "base"), "reference");
  EXPECT_EQ(at(0, "chunks"), "3");
  EXPECT_EQ(at(0, "tokens_scored"), "189");  // 3 chunks of 63
  EXPECT_LT(std::stod(at(0, "kld_mean")), 1e-5);
  EXPECT_GT(std::stod(at(2, "kld_mean")), std::stod(at(0, "kld_mean")));
}

// The text is cut before any timing: too short a text stops the run with
// the scenario's line, before the results folder exists.
TEST_F(AccuracyRunTest, TextTooShortStopsTheRunBeforeItStarts) {
  std::ofstream(dir_ + "/short.txt") << "Once upon a time";
  const Scenario s = scenario("[accuracy]\ntext = \"short.txt\"\n");
  RunOptions o;
  o.out_dir = dir_ + "/out";
  const std::string e = test::error_of([&] { run_scenario(s, o, nullptr); });
  EXPECT_NE(e.find(dir_ + "/s.toml:11: [accuracy] " + dir_ + "/short.txt: the text is 5 tokens"), std::string::npos)
      << e;
  EXPECT_NE(e.find("needs at least 256"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(o.out_dir));
}

}  // namespace
}  // namespace pdbench::runner
