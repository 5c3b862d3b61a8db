// The report's sentences on a summary made in memory: the batch and KV cache
// type sentences, and what a phase above the measured bandwidth is called.
#include "bench/report/insights.h"

#include <cmath>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "bench/report/confidence.h"
#include "tests/report/report_test_util.h"

namespace pdbench::report {
namespace {

using Settings = std::map<std::string, std::string>;

// A summary.csv with the fixture's columns and one row per case: every axis
// at its default unless the case sets it, metrics empty unless it sets them.
runner::Table summary_of(const std::vector<Settings>& cases) {
  const Settings defaults = {{"prompt_tokens", "16"}, {"output_tokens", "32"}, {"context_depth", "0"},
                             {"threads", "2"},        {"batch", "1"},          {"kv_type_k", "f32"},
                             {"kv_type_v", "f32"},    {"kv_block", "16"},      {"kv_capacity", "0"},
                             {"kv_cache", "on"},      {"weight_type", "file"}, {"sampling", "greedy"},
                             {"shared_prefix_tokens", "0"}, {"prefix_sharing", "off"}};
  runner::Table t;
  t.columns = runner::read_csv(test_util::fixture("a") + "/summary.csv").columns;
  for (size_t i = 0; i < cases.size(); ++i) {
    Settings c = defaults;
    c["case_id"] = "case" + std::to_string(i);
    for (const auto& [name, value] : cases[i]) c[name] = value;
    std::vector<std::string> row;
    for (const auto& column : t.columns) row.push_back(c.contains(column) ? c[column] : "");
    t.rows.push_back(row);
  }
  return t;
}

RunData run_of(const std::string& label, const std::vector<Settings>& cases) {
  RunData run;
  run.label = label;
  run.summary = summary_of(cases);
  run.ops.columns = {"case_id", "phase", "op", "ms", "gflop", "gbyte"};  // no rows: no op profile
  run.steps.columns = {"case_id", "step", "kv_length", "step_ms", "forward_ms"};
  run.meta = nlohmann::json::object();
  return run;
}

std::vector<std::string> sentences_of(const std::vector<RunData>& runs) {
  std::vector<std::string> out;
  for (const auto& in : insights(runs)) out.push_back(in.text);
  return out;
}

std::vector<std::string> sentences(const std::vector<Settings>& cases) { return sentences_of({run_of("run", cases)}); }

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  for (const auto& t : texts)
    if (t.find(part) != std::string::npos) return true;
  return false;
}

// A case's median time, its 95% interval and CV for one metric's columns.
Settings timed(Settings c, const std::string& metric, const std::string& median, const std::string& lo,
               const std::string& hi, const std::string& cv = "3") {
  c[metric + "_median_ms"] = median;
  c[metric + "_ci95_lo_ms"] = lo;
  c[metric + "_ci95_hi_ms"] = hi;
  c[metric + "_cv_pct"] = cv;
  return c;
}

TEST(Insights, BatchingComparesTheWidestBatchWithOneSequence) {
  const auto out = sentences({{{"batch", "1"}, {"decode_aggregate_median_tok_s", "200"}},
                              {{"batch", "8"}, {"decode_aggregate_median_tok_s", "1000"}}});
  EXPECT_TRUE(any_contains(out, "Batching 8 sequences decodes 1000 tokens/s in all against 200 for one (5.00x)"));
}

TEST(Insights, NoBatchSentenceWithoutABatchOfOneToCompare) {
  const auto out = sentences({{{"batch", "8"}, {"output_tokens", "64"}, {"decode_aggregate_median_tok_s", "900"}},
                              {{"batch", "1"}, {"decode_aggregate_median_tok_s", "200"}}});
  EXPECT_FALSE(any_contains(out, "Batching"));
}

TEST(Insights, KvTypesAreComparedAtTheDeepestContext) {
  const auto out = sentences({{{"context_depth", "0"}, {"tpot_median_ms", "4"}},
                              timed({{"context_depth", "4096"}}, "tpot", "12", "11.5", "12.5"),
                              timed({{"context_depth", "4096"}, {"kv_type_k", "q8_0"}, {"kv_type_v", "q8_0"}}, "tpot",
                                    "9", "8.5", "9.5")});
  EXPECT_TRUE(any_contains(out, "At depth 4096 a decode step takes 12.0 ms with an f32/f32 KV cache (K/V; 95% CI "
                                "11.5-12.5 ms, CV 3.00%), 9.00 ms with q8_0/q8_0 (0.750x; 95% intervals apart)"));
}

TEST(Insights, ThreadsAreComparedOnlyWhereTheIntervalsAreApart) {
  // Prefill: 2 threads take 2.0 ms (1.9-2.1) against 1.0 ms (0.95-1.05): apart.
  // Decode: 0.50 ms (0.45-0.60) against 0.55 ms (0.50-0.62): they overlap.
  const auto two = timed(timed({{"threads", "2"}}, "prefill", "2.0", "1.9", "2.1"), "itl", "0.50", "0.45", "0.60");
  const auto one = timed(timed({{"threads", "1"}}, "prefill", "1.0", "0.95", "1.05"), "itl", "0.55", "0.50", "0.62");
  const auto out = sentences({two, one});
  EXPECT_TRUE(any_contains(out, "prefill 0.500x (slower; 95% intervals apart in 1 of 1 matched cases), decode no "
                                "clear difference (intervals overlap)."));
  EXPECT_FALSE(any_contains(out, "too small to split"));
}

// A run sent to a server records threads 0 (the server's are its own): its
// cases are compared with an in-process run's whatever their threads, and
// two in-process runs of other threads still share no case.
TEST(Insights, AServedRunIsComparedWhateverTheThreads) {
  const auto in_process = run_of("in-process", {timed(timed({{"threads", "1"}}, "prefill", "250", "248", "251"), "itl",
                                                      "7.7", "7.6", "7.8")});
  RunData served = run_of("serve", {timed(timed({{"threads", "0"}}, "prefill", "255", "249", "257"), "itl", "7.9",
                                          "7.8", "8.0")});
  EXPECT_TRUE(any_contains(sentences_of({in_process, served}), "serve and in-process share no case settings"));
  served.meta["target"] = {{"kind", "openai"}, {"url", "http://127.0.0.1:8080"}};
  EXPECT_TRUE(any_contains(sentences_of({in_process, served}), "serve against in-process on their 1 common cases"));
}

// A load case (16 requests at 4/s) pairs with the other run's load case of
// the same settings, not with its case of one request.
TEST(Insights, LoadCasesPairOnlyWithTheSameLoad) {
  const Settings one = timed(timed({}, "prefill", "250", "248", "251"), "itl", "7.7", "7.6", "7.8");
  const auto with_load = [&](const std::string& label) {
    RunData run = run_of(label, {one, one});  // the second case: 16 requests at 4/s
    run.summary.columns.insert(run.summary.columns.end(), {"requests", "request_rate"});
    run.summary.rows[0].insert(run.summary.rows[0].end(), {"", ""});
    run.summary.rows[1].insert(run.summary.rows[1].end(), {"16", "4"});
    return run;
  };
  const auto out = sentences_of({with_load("a"), with_load("b")});
  EXPECT_TRUE(any_contains(out, "b against a on their 2 common cases")) << out.back();
}

TEST(Insights, AComparisonAboveTheCvLimitIsWithheld) {
  const auto two = timed(timed({{"threads", "2"}}, "prefill", "2.0", "1.9", "2.1", "35"), "itl", "1.0", "0.9", "1.1");
  const auto one = timed(timed({{"threads", "1"}}, "prefill", "1.0", "0.95", "1.05"), "itl", "0.5", "0.45", "0.55");
  const auto out = sentences({two, one});
  EXPECT_TRUE(any_contains(out, "prefill no clear difference (intervals overlap or CV above 20.0%), decode 0.500x "
                                "(slower; 95% intervals apart in 1 of 1 matched cases)."));
}

TEST(Insights, KvTypesWithOverlappingIntervalsShowNoClearDifference) {
  const auto out = sentences({timed({{"context_depth", "4096"}}, "tpot", "12", "11", "13"),
                              timed({{"context_depth", "4096"}, {"kv_type_k", "q8_0"}}, "tpot", "11.5", "10.8", "12.4"),
                              timed({{"context_depth", "4096"}, {"kv_type_v", "q8_0"}}, "tpot", "9", "8.8", "9.2")});
  EXPECT_TRUE(any_contains(out, "11.5 ms with q8_0/f32 (no clear difference: intervals overlap), 9.00 ms with "
                                "f32/q8_0 (0.750x; 95% intervals apart): attention reads"));
}

TEST(Insights, BatchingWithOverlappingIntervalsIsNotExplained) {
  // 8 sequences at 4 ms a step are 0.5 ms a token (0.45-0.55) against one at 0.52 (0.5-0.6).
  const auto out = sentences(
      {timed({{"batch", "1"}, {"decode_aggregate_median_tok_s", "1923"}}, "itl", "0.52", "0.5", "0.6"),
       timed({{"batch", "8"}, {"decode_aggregate_median_tok_s", "2000"}}, "itl", "4", "3.6", "4.4")});
  EXPECT_TRUE(any_contains(out, "(1.04x): no clear difference (intervals overlap)."));
}

TEST(Insights, AFitStatesItsIntervalAndIsWithheldWhenItHoldsZero) {
  const auto fit = least_squares({1, 2, 3, 4, 5}, {2.0, 4.1, 5.9, 8.0, 10.0});
  ASSERT_TRUE(fit.valid);
  EXPECT_NEAR(fit.slope, 1.99, 1e-9);
  EXPECT_GT(fit.half_width, 0);
  EXPECT_LT(fit.half_width, 0.3);
  const auto noise = least_squares({1, 2, 3, 4, 5, 6}, {1.0, 3.0, 0.5, 2.5, 1.0, 2.0});
  ASSERT_TRUE(noise.valid);
  EXPECT_GT(noise.half_width, std::abs(noise.slope));
  EXPECT_FALSE(least_squares({1, 2}, {1, 2}).valid);
}

}  // namespace
}  // namespace pdbench::report
