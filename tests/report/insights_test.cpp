// The report's sentences on a summary made in memory: the batch and KV cache
// type sentences, and what a phase above the measured bandwidth is called.
#include "bench/report/insights.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

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

std::vector<std::string> sentences(const std::vector<Settings>& cases) {
  RunData run;
  run.label = "run";
  run.summary = summary_of(cases);
  run.ops.columns = {"case_id", "phase", "op", "ms", "gflop", "gbyte"};  // no rows: no op profile
  run.steps.columns = {"case_id", "step", "kv_length", "step_ms", "forward_ms"};
  run.meta = nlohmann::json::object();
  std::vector<std::string> out;
  for (const auto& in : insights({run})) out.push_back(in.text);
  return out;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  for (const auto& t : texts)
    if (t.find(part) != std::string::npos) return true;
  return false;
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
                              {{"context_depth", "4096"}, {"tpot_median_ms", "12"}},
                              {{"context_depth", "4096"}, {"kv_type_k", "q8_0"}, {"kv_type_v", "q8_0"},
                               {"tpot_median_ms", "9"}}});
  EXPECT_TRUE(any_contains(out, "At depth 4096 a decode step takes 12.0 ms with an f32/f32 KV cache (K/V), "
                                "9.00 ms with q8_0/q8_0"));
}

}  // namespace
}  // namespace pdbench::report
