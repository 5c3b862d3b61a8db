// Pairing cases across settings (--match / --ignore) on the results
// fixtures (tests/data/results-fixture): fixture a's 1-thread cases made
// 2-thread, its f32 KV made q8_0, and what is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "bench/compare/case_pairing.h"
#include "bench/compare/compare_table.h"
#include "bench/runner/csv_table.h"
#include "tests/support/error_of.h"
#include "tests/support/test_paths.h"

namespace pdbench::compare {
namespace {

namespace fs = std::filesystem;

using Edit = std::function<void(runner::Table&, std::vector<std::string>&)>;

// Fixture `name` with `edit` applied to every samples row.
RunData fixture(const std::string& name, const Edit& edit = nullptr) {
  RunData run = load_run_dir(test::data_path("results-fixture/" + name));
  if (edit)
    for (auto& row : run.samples.rows) edit(run.samples, row);
  return run;
}

void set(runner::Table& t, std::vector<std::string>& row, const std::string& column, const std::string& from,
         const std::string& to, const std::string& id_from, const std::string& id_to) {
  std::string& cell = row[t.column(column)];
  if (cell != from) return;
  cell = to;
  std::string& id = row[t.column("case_id")];
  id.replace(id.find(id_from), id_from.size(), id_to);
}

// Fixture a's 1-thread cases run on 2 threads.
RunData two_threads(const std::string& name) {
  return fixture(name, [](runner::Table& t, std::vector<std::string>& row) {
    set(t, row, "threads", "1", "2", "_t1", "_t2");
  });
}

using test::error_of;

std::vector<std::string> labels(const Comparison& c) {
  std::vector<std::string> out;
  for (const Row& r : c.rows)
    if (out.empty() || out.back() != r.label()) out.push_back(r.label());
  return out;
}

TEST(CasePairing, IgnoringThreadsPairsOneThreadWithTwo) {
  const RunData base = fixture("a"), next = two_threads("a");
  const Comparison by_id = compare_runs(base, next, {});
  EXPECT_EQ(labels(by_id), std::vector<std::string>{"p64_n32_d128_t2_greedy"});
  EXPECT_EQ(by_id.only_base.size(), 2u);

  const Comparison c = compare_runs(base, next, {}, {}, MatchRule::parse("", "threads"));
  EXPECT_EQ(labels(c), (std::vector<std::string>{"p16_n32_d0_t1_greedy -> p16_n32_d0_t2_greedy",
                                                 "p64_n32_d0_t1_greedy -> p64_n32_d0_t2_greedy",
                                                 "p64_n32_d128_t2_greedy"}));
  EXPECT_TRUE(c.only_base.empty());
  EXPECT_TRUE(c.only_new.empty());
  EXPECT_EQ(std::count(c.key_axes.begin(), c.key_axes.end(), "threads"), 0);
  EXPECT_NE(text_report(c).find("cases paired by prompt_tokens, output_tokens, context_depth, batch"),
            std::string::npos);
  // --match the axes that stay: the same pairs.
  const Comparison m = compare_runs(base, next, {}, {}, MatchRule::parse("prompt_tokens,context_depth", ""));
  EXPECT_EQ(labels(m), labels(c));
  EXPECT_EQ(m.key_axes, (std::vector<std::string>{"prompt_tokens", "context_depth"}));
}

// threads_used (what threads 0 resolved to, or threads itself) goes with
// threads: ignoring threads ignores it too, matching threads keys on it.
TEST(CasePairing, ThreadsUsedGoesWithThreads) {
  const auto with_threads_used = [](RunData run) {
    runner::Table& t = run.samples;
    t.columns.push_back("threads_used");
    for (auto& row : t.rows) row.push_back(row[t.column("threads")]);
    return run;
  };
  const RunData base = with_threads_used(fixture("b")), next = with_threads_used(two_threads("b"));
  EXPECT_EQ(labels(compare_runs(base, next, {}, {}, MatchRule::parse("", "threads"))).size(), 2u);
  const Comparison c = compare_runs(base, base, {}, {}, MatchRule::parse("prompt_tokens,threads", ""));
  EXPECT_EQ(c.key_axes, (std::vector<std::string>{"prompt_tokens", "threads", "threads_used"}));
}

TEST(CasePairing, KvTypesPairAcrossWhenIgnored) {
  const RunData q8 = fixture("b", [](runner::Table& t, std::vector<std::string>& row) {
    set(t, row, "kv_type_k", "f32", "q8_0", "_greedy", "_kq8_0_greedy");
    set(t, row, "kv_type_v", "f32", "q8_0", "_greedy", "_vq8_0_greedy");
  });
  EXPECT_NE(error_of([&] { compare_runs(fixture("b"), q8, {}); }).find("no case in common"), std::string::npos);
  const Comparison c = compare_runs(fixture("b"), q8, {}, {}, MatchRule::parse("", "kv_type_k,kv_type_v"));
  EXPECT_EQ(labels(c), (std::vector<std::string>{"p16_n32_d0_t1_greedy -> p16_n32_d0_t1_kq8_0_vq8_0_greedy",
                                                 "p64_n32_d0_t1_greedy -> p64_n32_d0_t1_kq8_0_vq8_0_greedy"}));
}

// Nothing in common: both sides' cases are listed, with the axes that
// would pair them.
TEST(CasePairing, NoPairListsEachSidesCases) {
  const std::string e = error_of([&] { compare_runs(fixture("b"), two_threads("b"), {}); });
  EXPECT_NE(e.find("no case in common (paired by case_id)"), std::string::npos) << e;
  for (const char* listed : {"(2 cases):\n    p16_n32_d0_t1_greedy\n    p64_n32_d0_t1_greedy",
                             "(2 cases):\n    p16_n32_d0_t2_greedy\n    p64_n32_d0_t2_greedy",
                             "the sides differ in threads: --ignore threads pairs cases across them"})
    EXPECT_NE(e.find(listed), std::string::npos) << listed << "\n" << e;
  const std::string keyed =
      error_of([&] { compare_runs(fixture("b"), two_threads("b"), {}, {}, MatchRule::parse("prompt_tokens,threads", "")); });
  EXPECT_NE(keyed.find("p16_n32_d0_t1_greedy  [prompt_tokens=16 threads=1]"), std::string::npos) << keyed;
  EXPECT_NE(keyed.find("p64_n32_d0_t2_greedy  [prompt_tokens=64 threads=2]"), std::string::npos) << keyed;
}

// Sides that differ in columns describing an axis (a model's
// model_sha256, the weights of its weight_type) are told the axes --ignore
// takes, and those pair them.
TEST(CasePairing, NoPairSuggestsOnlyAxesIgnoreTakes) {
  const auto of_model = [](RunData run, const std::string& model, const std::string& sha256, const std::string& weights) {
    runner::Table& t = run.samples;
    t.columns.insert(t.columns.end(), {"model", "model_sha256", "weights"});
    for (auto& row : t.rows) row.insert(row.end(), {model, sha256, weights});
    return run;
  };
  const RunData base = of_model(fixture("b"), "m.gguf", "aaaa", "q8_0");
  const RunData next = of_model(two_threads("b"), "other.gguf", "ffff", "q4_0");
  const std::string e = error_of([&] { compare_runs(base, next, {}); });
  EXPECT_NE(e.find("the sides differ in model, threads, weight_type: --ignore model,threads,weight_type pairs"),
            std::string::npos)
      << e;
  EXPECT_EQ(labels(compare_runs(base, next, {}, {}, MatchRule::parse("", "model,threads,weight_type"))).size(), 2u);
}

// A key two cases of one side share pairs neither: the error says which
// axes tell them apart.
TEST(CasePairing, AmbiguousKeyNamesTheAxesThatDiffer) {
  const std::string e = error_of([&] { compare_runs(fixture("a"), fixture("a"), {}, {}, MatchRule::parse("prompt_tokens", "")); });
  EXPECT_NE(e.find("cases p64_n32_d0_t1_greedy and p64_n32_d128_t2_greedy both have prompt_tokens=64"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("they differ in context_depth, threads"), std::string::npos) << e;
}

TEST(CasePairing, BadRulesAreErrorsNamingTheOption) {
  EXPECT_NE(error_of([] { MatchRule::parse("threads", "batch"); }).find("give one of them"), std::string::npos);
  const std::string unknown = error_of([] { MatchRule::parse("", "thread"); });
  EXPECT_NE(unknown.find("--ignore: 'thread' is not a case axis (known: model, prompt_tokens,"), std::string::npos) << unknown;
  // The columns describing an axis as it ran are keyed with it, not named.
  EXPECT_NE(error_of([] { MatchRule::parse("", "threads_used"); }).find("is not a case axis"), std::string::npos);
  EXPECT_NE(error_of([] { MatchRule::parse("threads,,batch", ""); }).find("--match: expected comma-separated"),
            std::string::npos);
  // An axis the older fixture has no column for cannot be matched on.
  const std::string absent =
      error_of([] { compare_runs(fixture("a"), fixture("a"), {}, {}, MatchRule::parse("shared_prefix_tokens", "")); });
  EXPECT_NE(absent.find("has no column 'shared_prefix_tokens'"), std::string::npos) << absent;
}

}  // namespace
}  // namespace pdbench::compare
