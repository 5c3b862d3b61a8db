// End to end on stories260K: a tiny scenario into a temp folder, its columns
// against docs/RESULTS.md, interruption + --resume, and shards + merge.
// Never asserts timings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "bench/runner/accuracy_run.h"
#include "bench/runner/merge.h"
#include "bench/runner/results.h"
#include "bench/runner/runner.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

Scenario tiny_scenario(const std::string& dir) {
  const std::string text = "[model]\npath = \"" + test::model_path("stories260K.gguf") +
                           "\"\n[measure]\nrepetitions = 2\nwarmup_max = 1\n"
                           "[sweep]\nprompt_tokens = [4, 9]\noutput_tokens = 5\ncontext_depth = [0, 7]\nthreads = 1\n";
  std::ofstream(dir + "/tiny.toml") << text;
  return load_scenario(dir + "/tiny.toml");
}

std::set<std::pair<std::string, std::string>> sample_keys(const std::string& dir) {
  const Table t = read_csv(dir + "/samples.csv");
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& row : t.rows) keys.insert({row[t.column("case_id")], row[t.column("rep")]});
  return keys;
}

// Backticked names in the first cell of table rows, per "## FILE" section.
std::map<std::string, std::vector<std::string>> documented_columns() {
  std::ifstream in(test::source_path("docs/RESULTS.md"));
  std::map<std::string, std::vector<std::string>> sections;
  std::string section;
  const std::regex heading("^## (.+)$");
  const std::regex row("^\\| `([a-z0-9_]+)` \\|");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, heading)) section = m[1];
    else if (std::regex_search(line, m, row)) sections[section].push_back(m[1]);
  }
  return sections;
}

TEST(Run, SmokeWritesEveryDocumentedColumn) {
  const std::string dir = test::temp_dir("run");
  const Scenario s = tiny_scenario(dir);
  RunOptions options;
  options.out_dir = dir + "/out";
  const RunReport report = run_scenario(s, options, nullptr);
  EXPECT_TRUE(report.complete);
  EXPECT_EQ(report.cases, 4u);
  EXPECT_EQ(report.runs, 8u);

  auto docs = documented_columns();
  EXPECT_EQ(read_csv(options.out_dir + "/samples.csv").columns, docs["samples.csv"]);
  EXPECT_EQ(read_csv(options.out_dir + "/steps.csv").columns, docs["steps.csv"]);
  EXPECT_EQ(read_csv(options.out_dir + "/ops.csv").columns, docs["ops.csv"]);
  EXPECT_EQ(read_csv(options.out_dir + "/requests.csv").columns, docs["requests.csv"]);
  EXPECT_EQ(read_csv(options.out_dir + "/batch_steps.csv").columns, docs["batch_steps.csv"]);
  EXPECT_EQ(accuracy_columns(), docs["accuracy.csv"]);  // written by a scenario with [accuracy]
  // summary.csv: the case columns, then METRIC_STAT for every pair, then the rest.
  std::vector<std::string> summary = docs["summary.csv"];
  const auto& metrics = docs["summary metrics"];
  const auto& stats = docs["summary statistics"];
  ASSERT_FALSE(metrics.empty());
  ASSERT_FALSE(stats.empty());
  std::vector<std::string> expected;
  const auto first_rate = std::find(summary.begin(), summary.end(), "prefill_median_tok_s");
  expected.insert(expected.end(), summary.begin(), first_rate);
  for (const auto& metric : metrics)
    for (const auto& stat : stats) expected.push_back(metric + "_" + stat);
  expected.insert(expected.end(), first_rate, summary.end());
  const Table sum = read_csv(options.out_dir + "/summary.csv");
  EXPECT_EQ(sum.columns, expected);
  ASSERT_EQ(sum.rows.size(), 4u);
  for (const auto& row : sum.rows) EXPECT_EQ(row[sum.column("samples")], "2");

  // Steps: output - 1 per run, KV length = depth + prompt + step.
  const Table steps = read_csv(options.out_dir + "/steps.csv");
  EXPECT_EQ(steps.rows.size(), 4u * 2 * 4);
  const auto& last = steps.rows.back();
  EXPECT_EQ(last[steps.column("case_id")], "p9_n5_d7_t1_greedy");
  EXPECT_EQ(last[steps.column("kv_length")], std::to_string(7 + 9 + 4));

  // Memory: a peak per phase from each case's probe run, never below zero.
  const Table samples = read_csv(options.out_dir + "/samples.csv");
  for (const auto& row : samples.rows)
    for (const char* column : {"peak_rss_kib", "rss_prefill_peak_kib", "rss_decode_peak_kib"})
      EXPECT_GT(std::stol(row[samples.column(column)]), 0) << column;

  std::ifstream meta_in(options.out_dir + "/meta.json");
  const auto meta = nlohmann::json::parse(meta_in);
  EXPECT_TRUE(meta["rss_high_water_reset"].is_boolean());
  EXPECT_EQ(meta["model"]["gemm_precision"], "f32");
  EXPECT_EQ(meta["scenario"]["text"], s.text);
  EXPECT_EQ(meta["model"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_FALSE(meta["finished_at"].is_null());
  EXPECT_TRUE(meta["fingerprint"].contains("cpu"));
  // A second run into the same folder needs --resume.
  EXPECT_THROW(run_scenario(s, options, nullptr), Error);
}

// A load case: five requests of mixed prompt lengths, two slots, arriving
// at 200/s; every request of both runs in requests.csv, its token gaps in
// steps.csv, and the summary pooling them.
// Runs five requests of 12-token prompts and 4 new tokens on stories260K, at
// 200/s with two slots, into dir/out; `measure` ends [measure] (and may add
// tables), `sweep` ends [sweep].
RunOptions run_load_case(const std::string& dir, const std::string& measure, const std::string& sweep) {
  const std::string text = "[model]\npath = \"" + test::model_path("stories260K.gguf") +
                           "\"\n[measure]\nwarmup_max = 0\n" + measure +
                           "[sweep]\nprompt_tokens = 12\noutput_tokens = 4\nthreads = 1\nrequests = 5\n"
                           "request_rate = 200\nmax_concurrency = 2\n" + sweep;
  std::ofstream(dir + "/load.toml") << text;
  RunOptions options;
  options.out_dir = dir + "/out";
  EXPECT_TRUE(run_scenario(load_scenario(dir + "/load.toml"), options, nullptr).complete);
  return options;
}

TEST(Run, LoadCaseMeasuresEveryRequest) {
  const std::string dir = test::temp_dir("load-run");
  const RunOptions options = run_load_case(dir, "repetitions = 2\n[sla]\nttft_p99_ms = 60000\n",
                                           "prompt_dist = \"uniform\"\nprompt_spread = 0.5\n");
  const Table requests = read_csv(options.out_dir + "/requests.csv");
  ASSERT_EQ(requests.rows.size(), 10u);
  size_t gaps = 0;
  std::set<std::string> prompts;
  for (const auto& row : requests.rows) {
    EXPECT_EQ(row[requests.column("generated_tokens")], "4");
    EXPECT_GE(std::stod(row[requests.column("queue_ms")]), 0.0);
    EXPECT_GE(std::stod(row[requests.column("ttft_ms")]), std::stod(row[requests.column("queue_ms")]));
    prompts.insert(row[requests.column("prompt_tokens")]);
    gaps += 3;
  }
  EXPECT_GT(prompts.size(), 1u);  // lengths drawn per request
  EXPECT_EQ(read_csv(options.out_dir + "/steps.csv").rows.size(), gaps);
  const Table samples = read_csv(options.out_dir + "/samples.csv");
  ASSERT_EQ(samples.rows.size(), 2u);
  EXPECT_EQ(samples.rows[0][samples.column("requests_sent")], "5");
  EXPECT_EQ(samples.rows[0][samples.column("case_id")], "p12_n4_d0_t1_q5_r200_c2_puniform0.5_greedy");
  const Table sum = read_csv(options.out_dir + "/summary.csv");
  ASSERT_EQ(sum.rows.size(), 1u);
  EXPECT_FALSE(sum.rows[0][sum.column("queue_p99_ms")].empty());
  EXPECT_FALSE(sum.rows[0][sum.column("goodput_median_req_s")].empty());
  EXPECT_EQ(sum.rows[0][sum.column("sla_ttft_p99_ms")], "60000");
  EXPECT_NE(sum.rows[0][sum.column("sla_met")], "");
}

// The same load with a prefill chunk of 4 tokens: every step in
// batch_steps.csv within it, every prompt token and every decode token in
// some step, and the cache empty after the last.
TEST(Run, ChunkedPrefillStepsStayWithinTheChunk) {
  const std::string dir = test::temp_dir("load-chunk");
  const RunOptions options = run_load_case(dir, "repetitions = 1\n", "prefill_chunk = 4\n");
  const Table steps = read_csv(options.out_dir + "/batch_steps.csv");
  ASSERT_FALSE(steps.rows.empty());
  double prefilled = 0, decoded = 0;
  for (const auto& row : steps.rows) {
    EXPECT_LE(std::stod(row[steps.column("prefill_tokens")]), 4.0);
    prefilled += std::stod(row[steps.column("prefill_tokens")]);
    decoded += std::stod(row[steps.column("decode_tokens")]);
  }
  EXPECT_EQ(prefilled, 5.0 * 12);
  EXPECT_EQ(decoded, 5.0 * 3);  // the first token of each comes from its prompt's last step
  EXPECT_EQ(steps.rows.back()[steps.column("kv_blocks")], "0");
  const Table samples = read_csv(options.out_dir + "/samples.csv");
  EXPECT_EQ(samples.rows[0][samples.column("case_id")], "p12_n4_d0_t1_q5_r200_c2_pc4_greedy");
}

TEST(Run, InterruptedRunResumesWithoutRerunning) {
  const std::string dir = test::temp_dir("resume");
  const Scenario s = tiny_scenario(dir);
  RunOptions options;
  options.out_dir = dir + "/out";
  options.max_runs = 3;  // as if stopped after three runs
  const RunReport first = run_scenario(s, options, nullptr);
  EXPECT_FALSE(first.complete);
  const auto before = sample_keys(options.out_dir);
  EXPECT_EQ(before.size(), 3u);
  const Table first_samples = read_csv(options.out_dir + "/samples.csv");

  options.max_runs = 0;
  options.resume = true;
  const RunReport second = run_scenario(s, options, nullptr);
  EXPECT_TRUE(second.complete);
  EXPECT_EQ(second.runs_reused, 3u);
  EXPECT_EQ(second.runs, 5u);
  const Table all = read_csv(options.out_dir + "/samples.csv");
  ASSERT_EQ(all.rows.size(), 8u);
  for (size_t i = 0; i < first_samples.rows.size(); ++i) EXPECT_EQ(all.rows[i], first_samples.rows[i]);

  RunOptions fresh;
  fresh.out_dir = dir + "/whole";
  run_scenario(s, fresh, nullptr);
  EXPECT_EQ(sample_keys(options.out_dir), sample_keys(fresh.out_dir));
}

// A process killed while writing can leave a temporary file, and steps and
// ops of a run that samples.csv (written last) does not list: --resume
// deletes the one and measures the other run again, once.
TEST(Run, ResumeCleansUpAfterAKilledWriter) {
  const std::string dir = test::temp_dir("killed");
  const Scenario s = tiny_scenario(dir);
  RunOptions options;
  options.out_dir = dir + "/out";
  options.max_runs = 3;
  run_scenario(s, options, nullptr);
  Table samples = read_csv(options.out_dir + "/samples.csv");
  samples.rows.pop_back();  // its steps and ops are written, its sample is not
  write_csv(options.out_dir + "/samples.csv", samples);
  std::ofstream(options.out_dir + "/samples.csv.tmp.Ab12Cd") << "case_index,case_id\n0,p4";

  options.max_runs = 0;
  options.resume = true;
  const RunReport report = run_scenario(s, options, nullptr);
  EXPECT_TRUE(report.complete);
  EXPECT_EQ(report.runs_reused, 2u);
  std::map<std::string, size_t> steps_per_run;
  const Table steps = read_csv(options.out_dir + "/steps.csv");
  for (const auto& row : steps.rows) ++steps_per_run[row[steps.column("case_id")] + "/" + row[steps.column("rep")]];
  EXPECT_EQ(steps_per_run.size(), 8u);
  for (const auto& [run, n] : steps_per_run) EXPECT_EQ(n, 4u) << run;
  for (const auto& entry : fs::directory_iterator(options.out_dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
}

TEST(Run, ShardsMergeIntoTheWholeCaseSet) {
  const std::string dir = test::temp_dir("shard");
  const Scenario s = tiny_scenario(dir);
  for (size_t k : {1, 2}) {
    RunOptions o;
    o.out_dir = dir + "/shard" + std::to_string(k);
    o.shard = {k, 2};
    EXPECT_EQ(run_scenario(s, o, nullptr).cases, 2u);
  }
  merge_results(dir + "/merged", {dir + "/shard1", dir + "/shard2"});
  RunOptions whole;
  whole.out_dir = dir + "/whole";
  run_scenario(s, whole, nullptr);
  EXPECT_EQ(sample_keys(dir + "/merged"), sample_keys(dir + "/whole"));
  const Table merged = read_csv(dir + "/merged/summary.csv");
  const Table reference = read_csv(dir + "/whole/summary.csv");
  ASSERT_EQ(merged.rows.size(), reference.rows.size());
  for (size_t i = 0; i < merged.rows.size(); ++i)
    EXPECT_EQ(merged.rows[i][merged.column("case_id")], reference.rows[i][reference.column("case_id")]);
  EXPECT_THROW(merge_results(dir + "/twice", {dir + "/shard1", dir + "/shard1"}), Error);
  try {
    merge_results(dir + "/half", {dir + "/shard1"});
    ADD_FAILURE() << "merged one shard of two";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "merge: shard 2/2 missing; the merged results would look complete");
  }
  EXPECT_FALSE(fs::exists(dir + "/half"));
}

// Each shard scores the accuracy of its own cases' configurations; the
// merged folder keeps one row per configuration and path, the first
// shard's where both scored it.
TEST(Run, ShardsMergeTheirAccuracyRows) {
  const std::string dir = test::temp_dir("shard-accuracy");
  const Scenario s = tiny_scenario(dir);
  const auto row = [](const std::string& kv, const std::string& ppl) {
    std::vector<std::string> r(accuracy_columns().size(), "0");
    const auto set = [&](const std::string& column, const std::string& value) {
      r[static_cast<size_t>(std::find(accuracy_columns().begin(), accuracy_columns().end(), column) -
                            accuracy_columns().begin())] = value;
    };
    set("weight_type", "q8_0");
    set("kv_type_k", kv);
    set("kv_type_v", kv);
    set("path", "prefill");
    set("ppl", ppl);
    return r;
  };
  for (size_t k : {1, 2}) {
    RunOptions o;
    o.out_dir = dir + "/shard" + std::to_string(k);
    o.shard = {k, 2};
    run_scenario(s, o, nullptr);
    write_accuracy(o.out_dir, Table{accuracy_columns(), {row("f16", std::to_string(k)), row(k == 1 ? "f32" : "q8_0", "7")}});
  }
  merge_results(dir + "/merged", {dir + "/shard1", dir + "/shard2"});
  const std::optional<Table> merged = read_accuracy(dir + "/merged");
  ASSERT_TRUE(merged);
  ASSERT_EQ(merged->rows.size(), 3u);
  EXPECT_EQ(merged->rows[0][merged->column("ppl")], "1");  // f16: the first shard's
  EXPECT_EQ(merged->rows[1][merged->column("kv_type_k")], "f32");
  EXPECT_EQ(merged->rows[2][merged->column("kv_type_k")], "q8_0");
}

TEST(Run, CaseBeyondTheContextIsAnError) {
  const std::string dir = test::temp_dir("ctx");
  Scenario s = tiny_scenario(dir);
  s.context_depth.values = {4000};
  RunOptions o;
  o.out_dir = dir + "/out";
  try {
    run_scenario(s, o, nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("= 4009 exceeds the model's context length of 2048 tokens"), std::string::npos)
        << e.what();
    EXPECT_FALSE(fs::exists(o.out_dir)) << "refused before the results folder is made";
  }
}

}  // namespace
}  // namespace pdbench::runner
