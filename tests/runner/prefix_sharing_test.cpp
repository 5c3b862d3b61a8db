// The prefix-sharing axes: scenario checks, prompts whose first tokens are
// common to every run, and an end-to-end run on stories260K in which sharing
// prefills fewer tokens. Asserts token and FLOP counts, never timings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "bench/runner/csv_table.h"
#include "bench/runner/prompts.h"
#include "bench/runner/runner.h"
#include "engine/runtime/engine.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

std::string unsupported(const std::string& sweep) {
  try {
    require_supported(parse_scenario("[model]\npath = \"m.gguf\"\n[sweep]\n" + sweep, "scenarios/x.toml"));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PrefixSharing, ScenarioChecksNameFileLineAndKey) {
  EXPECT_EQ(unsupported("prompt_tokens = 64\nshared_prefix_tokens = 48\nprefix_sharing = [\"off\", \"on\"]\n"), "");
  EXPECT_EQ(unsupported("prefix_sharing = \"maybe\"\n"),
            "scenarios/x.toml:4: key 'prefix_sharing' = \"maybe\" is not one of: off, on");
  EXPECT_EQ(unsupported("prompt_tokens = [16, 64]\nshared_prefix_tokens = 32\n"),
            "scenarios/x.toml:5: key 'shared_prefix_tokens' = 32 exceeds the shortest prompt (16 tokens)");
  EXPECT_EQ(unsupported("context_depth = [0, 64]\nprefix_sharing = \"on\"\n"),
            "scenarios/x.toml:5: key 'prefix_sharing' = \"on\" is not supported yet (a shared prefix starts at "
            "position 0; context_depth 64)");
  EXPECT_NE(unsupported("batch = 2\nprefix_sharing = \"on\"\n").find("batch 2"), std::string::npos);
  EXPECT_NE(unsupported("kv_cache = \"off\"\nprefix_sharing = \"on\"\n").find("keeps no K/V"), std::string::npos);
}

TEST(PrefixSharing, VariantsShareTheirPrefixAndDifferAfterIt) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  const PromptMaker maker(default_scenario(), engine.tokenizer(), bundled_corpus());
  const PromptInput a = maker.prompt_variant(40, 32, "case", 0);
  const PromptInput b = maker.prompt_variant(40, 32, "case", 1);
  ASSERT_EQ(a.ids.size(), 40u);
  ASSERT_EQ(b.ids.size(), 40u);
  EXPECT_EQ(a.ids.front(), engine.tokenizer().bos());
  EXPECT_TRUE(std::equal(a.ids.begin(), a.ids.begin() + 32, b.ids.begin()));
  EXPECT_NE(a.ids[32], b.ids[32]);
  EXPECT_EQ(maker.prompt_variant(40, 32, "case", 0).ids, a.ids);  // the same run number, the same prompt (--resume)
}

// Without a shared prefix each run number of each case has a prompt of its
// own, from its own window of the corpus: text that encodes to exactly the
// length asked.
TEST(PrefixSharing, EachRunNumberHasItsOwnWholePrompt) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  const PromptMaker maker(default_scenario(), engine.tokenizer(), bundled_corpus());
  std::vector<std::vector<int32_t>> seen;
  for (size_t run = 0; run < 4; ++run) {
    const PromptInput p = maker.prompt(40, run < 2 ? "case-a" : "case-b", run % 2);
    ASSERT_TRUE(p.is_text()) << run;
    const std::vector<int32_t> ids = engine.tokenizer().encode(p.text, true);
    EXPECT_EQ(ids.size(), 40u) << run;
    for (const auto& other : seen) EXPECT_NE(ids, other) << run;
    seen.push_back(ids);
  }
  EXPECT_EQ(maker.prompt(40, "case-a", 1).text, maker.prompt(40, "case-a", 1).text);  // the same run, the same prompt
}

// Per case_id: (every prefix_hit_tokens of its samples, its prefill GFLOP summed over runs).
struct CaseCounts {
  std::vector<std::string> hits;
  double prefill_gflop = 0;
};

std::map<std::string, CaseCounts> counts(const std::string& dir) {
  std::map<std::string, CaseCounts> out;
  const Table samples = read_csv(dir + "/samples.csv");
  for (const auto& row : samples.rows)
    out[row[samples.column("case_id")]].hits.push_back(row[samples.column("prefix_hit_tokens")]);
  const Table ops = read_csv(dir + "/ops.csv");
  for (const auto& row : ops.rows)
    if (row[ops.column("phase")] == "prefill")
      out[row[ops.column("case_id")]].prefill_gflop += std::stod(row[ops.column("gflop")]);
  return out;
}

TEST(PrefixSharing, SharingPrefillsOnlyWhatThePreviousRunDidNotCache) {
  const std::string dir = test::temp_dir("prefix");
  std::ofstream(dir + "/share.toml") << "[model]\npath = \"" << test::model_path("stories260K.gguf")
                                     << "\"\n[measure]\nrepetitions = 3\nwarmup_max = 1\n"
                                        "[sweep]\nprompt_tokens = 40\noutput_tokens = 3\nthreads = 1\n"
                                        "shared_prefix_tokens = 36\nprefix_sharing = [\"off\", \"on\"]\n";
  RunOptions options;
  options.out_dir = dir + "/out";
  ASSERT_TRUE(run_scenario(load_scenario(dir + "/share.toml"), options, nullptr).complete);

  auto by_case = counts(options.out_dir);
  const CaseCounts& off = by_case["p40_n3_d0_t1_pre36_greedy"];
  const CaseCounts& on = by_case["p40_n3_d0_t1_pre36_share_greedy"];
  // Off: every token computed. On: the previous run (warm-up, memory probe
  // or repetition) left the prefix's two full 16-token blocks in the cache;
  // the block holding tokens 32..35 is only partly common, so it is computed.
  EXPECT_EQ(off.hits, (std::vector<std::string>{"0", "0", "0"}));
  EXPECT_EQ(on.hits, (std::vector<std::string>{"32", "32", "32"}));
  EXPECT_GT(off.prefill_gflop, 0);
  EXPECT_LT(on.prefill_gflop, off.prefill_gflop);

  const Table summary = read_csv(options.out_dir + "/summary.csv");
  for (const auto& row : summary.rows)
    EXPECT_EQ(row[summary.column("prefix_hit_tokens")], row[summary.column("prefix_sharing")] == "on" ? "32" : "0");
}

}  // namespace
}  // namespace pdbench::runner
