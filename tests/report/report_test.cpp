// pdbench report on the fixture results (tests/data/results-fixture): every
// chart present with data in the HTML, sentences computed from the numbers,
// overlays of two runs, Markdown with its SVG images, and clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "bench/report/accuracy_table.h"
#include "bench/report/cases.h"
#include "bench/report/chart_specs.h"
#include "bench/report/insights.h"
#include "bench/report/load_charts.h"
#include "bench/report/markdown_writer.h"
#include "bench/report/report.h"
#include "bench/report/results_reader.h"
#include "bench/report/tables.h"
#include "engine/util/error.h"
#include "tests/report/report_test_util.h"
#include "tests/support/test_paths.h"

namespace pdbench::report {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using test_util::embedded_specs;
using test_util::fixture;
using test_util::read_text;

// Every data.values array in a spec, layers included.
void collect_values(const json& spec, std::vector<const json*>& out) {
  if (spec.contains("data") && spec["data"].contains("values")) out.push_back(&spec["data"]["values"]);
  if (spec.contains("layer"))
    for (const auto& layer : spec["layer"]) collect_values(layer, out);
}

std::set<std::string> runs_in(const json& spec) {
  std::vector<const json*> values;
  collect_values(spec, values);
  std::set<std::string> runs;
  for (const json* v : values)
    for (const auto& datum : *v)
      if (datum.contains("run")) runs.insert(datum["run"].get<std::string>());
  return runs;
}

const std::set<std::string> kChartIds{"request", "ttft", "prefill-rate", "decode-steps", "latency-throughput",
                                      "kv-bytes", "ops", "roofline"};

// Load cases add their section: latency percentiles and goodput against
// the request rate, a point per case and percentile (or measure).
TEST(Report, LoadCasesDrawLatencyAndGoodputAgainstRate) {
  const std::string dir = test::temp_dir("report-load");
  const std::string html_path = dir + "/out/load.html";
  write_report({{fixture("load")}, html_path, ""});
  const auto specs = embedded_specs(read_text(html_path));
  ASSERT_TRUE(specs.contains("load-latency"));
  ASSERT_TRUE(specs.contains("load-goodput"));
  EXPECT_EQ(specs.at("load-latency")["data"]["values"].size(), 4u * 6);  // 4 cases x TTFT/TPOT p50/p90/p99
  EXPECT_EQ(specs.at("load-goodput")["data"]["values"].size(), 4u * 2);  // goodput and throughput
  for (const auto& d : specs.at("load-latency")["data"]["values"]) EXPECT_GT(d["ms"].get<double>(), 0);
}

// A run's [rate_search] answers (meta.json) are stated under the goodput chart.
TEST(Report, TheGoodputChartStatesWhatARateSearchFound) {
  RunData run = read_run(fixture("load"));
  run.meta["rate_search"] = json::parse(R"([
    {"setting": "p8_n3_q6_rsearch_c2_greedy", "highest_rate_met": 2.83,
     "probes": [{"request_rate": 16, "sla_met": false}, {"request_rate": 1, "sla_met": true}, {"request_rate": 2.83, "sla_met": true}]},
    {"setting": "p8_n3_q6_rsearch_c4_greedy", "highest_rate_met": null, "probes": [{"request_rate": 16, "sla_met": false}]}])");
  const std::vector<Chart> charts = load_charts({run});
  const auto goodput = std::find_if(charts.begin(), charts.end(), [](const Chart& c) { return c.id == "load-goodput"; });
  ASSERT_NE(goodput, charts.end());
  EXPECT_EQ(goodput->note,
            "Rate search, p8_n3_q6_rsearch_c2_greedy: the highest rate meeting the SLA is 2.83 req/s (3 rates measured). "
            "Rate search, p8_n3_q6_rsearch_c4_greedy: no rate searched meets the SLA (1 rate measured).");
}

const Chart& chart_named(const std::vector<Chart>& charts, const std::string& id) {
  const auto it = std::find_if(charts.begin(), charts.end(), [&](const Chart& c) { return c.id == id; });
  if (it == charts.end()) throw Error("no chart " + id);
  return *it;
}

// Every load case is a point of throughput against TPOT; the front joins
// those no other beats in both. In the fixture the 200 req/s cases beat the
// 50 req/s ones (more tokens/s at less TPOT for 1 slot, more tokens/s for 2),
// and neither 200 req/s case beats the other.
TEST(Report, TheParetoFrontJoinsTheUndominatedSettings) {
  const std::vector<Chart> charts = load_charts({read_run(fixture("load"))});
  const Chart& pareto = chart_named(charts, "load-pareto");
  const json& front = pareto.spec["layer"][0]["data"]["values"];
  EXPECT_EQ(pareto.spec["layer"][1]["data"]["values"].size(), 4u);
  ASSERT_EQ(front.size(), 2u);
  EXPECT_EQ(front[0]["case_id"], "p8_n4_d0_t1_q6_r200_c1_greedy");  // in TPOT order
  EXPECT_EQ(front[1]["case_id"], "p8_n4_d0_t1_q6_r200_c2_greedy");
  EXPECT_EQ(pareto.note, "2 of 4 settings are on the front.");
}

// The steps of the case with the most goodput (the fixture's 200 req/s,
// 2 slots), first repetition only: tokens stacked per step, the cache and
// queue beside them, mixed and decode-only steps counted, and each
// operator's time per step of either kind.
TEST(Report, TheBestSettingsStepsAreDrawn) {
  RunData run = read_run(fixture("load"));
  const auto step = [](const std::string& id, const char* rep, const char* ms, const char* prefill, const char* decode) {
    return std::vector<std::string>{"3", id, rep, "0", "0", ms, "2", prefill, decode, "4", "1"};
  };
  const std::string best = "p8_n4_d0_t1_q6_r200_c2_greedy";
  run.batch_steps.rows = {step(best, "0", "3", "8", "1"), step(best, "0", "1", "0", "2"), step(best, "0", "2", "0", "2"),
                          step(best, "1", "9", "8", "1"), step("p8_n4_d0_t1_q6_r50_c1_greedy", "0", "9", "8", "0")};
  const std::vector<Chart> charts = load_charts({run});
  const Chart& tokens = chart_named(charts, "load-step-tokens");
  EXPECT_EQ(tokens.spec["data"]["values"].size(), 3u * 2);  // prompt and decode tokens per step
  EXPECT_EQ(tokens.note,
            "1 mixed steps (prompt and decode tokens) and 2 decode-only steps; median step 3 ms mixed against 1.5 ms "
            "decode-only.");
  EXPECT_EQ(chart_named(charts, "load-step-queue").spec["data"]["values"].size(), 3u * 2);
  // ops.csv's first run of that case: 12 operators in 4 steps with prompt
  // tokens and 12 decode-only steps (the embedding's calls).
  const json& ops = chart_named(charts, "load-step-ops").spec["data"]["values"];
  ASSERT_EQ(ops.size(), 12u * 2);
  EXPECT_EQ(ops[1]["op"], "attn_norm");
  EXPECT_EQ(ops[1]["steps"], "steps with prompt tokens");
  EXPECT_DOUBLE_EQ(ops[1]["ms"].get<double>(), 0.088629 / 4);
  EXPECT_EQ(ops[13]["steps"], "decode-only steps");
  EXPECT_DOUBLE_EQ(ops[13]["ms"].get<double>(), 0.062337 / 12);
}

TEST(Report, HtmlEmbedsEveryChartWithData) {
  const std::string dir = test::temp_dir("report-html");
  const std::string html_path = dir + "/out/a.html";
  const ReportFiles files = write_report({{fixture("a")}, html_path, ""});
  EXPECT_EQ(files.charts, kChartIds.size());
  EXPECT_EQ(files.skipped, 0u);
  const std::string html = read_text(html_path);

  const auto specs = embedded_specs(html);
  std::set<std::string> ids;
  for (const auto& [id, spec] : specs) {
    ids.insert(id);
    std::vector<const json*> values;
    collect_values(spec, values);
    ASSERT_FALSE(values.empty()) << id;
    for (const json* v : values) EXPECT_FALSE(v->empty()) << id << ": a data set is empty";
    EXPECT_NE(html.find("id=\"chart-" + id + "\""), std::string::npos) << id << ": no container";
  }
  EXPECT_EQ(ids, kChartIds);

  // Self-contained: libraries inlined, nothing fetched.
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // The header names the machine.
  EXPECT_NE(html.find("Intel(R) Xeon(R) Processor"), std::string::npos);
  EXPECT_NE(html.find("What bounds each phase"), std::string::npos);
}

// Prefill or decode at a glance: a bar per case, its phases' medians
// stacked; the KV chart stays over the measured positions.
TEST(Report, RequestTimeIsSplitIntoPhasesAndKvStaysMeasured) {
  const auto charts = build_charts(read_runs({fixture("a")}));
  const Chart& request = charts.front();
  ASSERT_EQ(request.id, "request");
  std::set<std::string> parts;
  for (const auto& d : request.spec["data"]["values"]) parts.insert(d["part"].get<std::string>());
  for (const char* part : {"tokenize", "prefill", "decode"}) EXPECT_TRUE(parts.contains(part)) << part;
  for (const auto& chart : charts)
    if (chart.id == "kv-bytes") {
      double most_line = 0, most_point = 0;
      for (const auto& layer : chart.spec["layer"])
        for (const auto& d : layer["data"]["values"])
          if (d.contains("tokens"))
            (d.contains("case_id") ? most_point : most_line) =
                std::max(d.contains("case_id") ? most_point : most_line, d["tokens"].get<double>());
      EXPECT_EQ(most_line, most_point);  // no extrapolation to the model's context
    }
}

TEST(Report, ChartsShowCaseSettingsInTooltips) {
  const auto charts = build_charts(read_runs({fixture("a")}));
  const Chart& ttft = charts.at(1);
  ASSERT_EQ(ttft.id, "ttft");
  const std::string dumped = ttft.spec.dump();
  for (const char* field : {"\"case_id\"", "\"context_depth\"", "\"threads_label\"", "\"ttft_median_ms\""})
    EXPECT_NE(dumped.find(field), std::string::npos) << field;
  // A point carries its exact median, straight from summary.csv.
  bool found = false;
  for (const auto& d : ttft.spec["data"]["values"])
    if (d["case_id"] == "p64_n32_d0_t1_greedy") found = std::abs(d["ttft_median_ms"].get<double>() - 4.22) < 1e-9;
  EXPECT_TRUE(found);
}

TEST(Report, SeveralRunsAreOverlaidByColor) {
  const auto charts = build_charts(read_runs({fixture("a"), fixture("b")}));
  for (const auto& chart : charts) {
    ASSERT_FALSE(chart.spec.is_null()) << chart.id;
    EXPECT_EQ(runs_in(chart.spec), (std::set<std::string>{"a", "b"})) << chart.id;
  }
  // Color is the run wherever a legend tells series apart.
  EXPECT_EQ(charts.at(1).spec["encoding"]["color"]["field"], "run");
}

// The percentage the fixture's ops.csv gives for one operator's share.
long share_pct(const std::string& dir, const std::string& case_id, const std::string& phase, const std::string& op) {
  const runner::Table ops = runner::read_csv(dir + "/ops.csv");
  double part = 0, all = 0;
  for (const auto& row : ops.rows) {
    if (row[ops.column("case_id")] != case_id || row[ops.column("phase")] != phase) continue;
    const double ms = std::stod(row[ops.column("ms")]);
    all += ms;
    if (row[ops.column("op")] == op) part += ms;
  }
  return std::lround(100 * part / all);
}

TEST(Report, SentencesAreComputedFromTheData) {
  const auto sentences = insights(read_runs({fixture("a"), fixture("b")}));
  std::string prefill, decode, overall;
  for (const auto& s : sentences) (s.phase == "Prefill" ? prefill : s.phase == "Decode" ? decode : overall) += s.text + "\n";

  const long attention = share_pct(fixture("a"), "p64_n32_d0_t1_greedy", "prefill", "attention");
  EXPECT_NE(prefill.find("attention is " + std::to_string(attention) + "% of prefill at 64 tokens"), std::string::npos)
      << prefill;
  EXPECT_NE(prefill.find("of the measured 7.22 GB/s memory read bandwidth"), std::string::npos) << prefill;
  EXPECT_NE(decode.find("ms per token"), std::string::npos) << decode;
  // No case of the fixtures is measured at two depths with the same other
  // settings: a growth with context fitted to one depth's few dozen steps
  // would read noise.
  EXPECT_EQ(decode.find("ms per 1,000 tokens of context"), std::string::npos) << decode;
  EXPECT_NE(overall.find("b against a on their 2 common cases"), std::string::npos) << overall;
  EXPECT_NE(overall.find("The noisiest case is p64_n32_d128_t2_greedy"), std::string::npos) << overall;
}

TEST(Report, WithoutMeasuredLimitsTheRooflineSaysWhy) {
  const std::string dir = test::temp_dir("report-limits");
  fs::copy(fixture("a"), dir + "/a");
  json meta = json::parse(read_text(dir + "/a/meta.json"));
  meta["fingerprint"]["limits"] = nullptr;
  std::ofstream(dir + "/a/meta.json") << meta.dump();

  const auto runs = read_runs({dir + "/a"});
  for (const auto& chart : build_charts(runs))
    if (chart.id == "roofline") {
      EXPECT_NE(chart.note.find("No measured limits"), std::string::npos) << chart.note;
      EXPECT_FALSE(chart.spec.is_null());  // the points are still drawn
    }
  bool said = false;
  for (const auto& s : insights(runs)) said = said || s.text.find("no measured limits") != std::string::npos;
  EXPECT_TRUE(said);
}

// Ops under the share sum into one "other" per (case, phase), after that
// group's kept ops; a phase whose ops are all large keeps them all.
TEST(Report, SmallOpsAreGroupedAsOtherPerPhase) {
  const std::vector<OpMedian> ops = {
      {"c", "prefill", "qkv_proj", 90, 9, 1, 1}, {"c", "prefill", "rope", 4, 0, 0, 1},
      {"c", "prefill", "ffn_norm", 1, 0, 0, 2},  {"c", "prefill", "lm_head", 5, 1, 1, 1},
      {"c", "decode", "rope", 50, 0, 0, 1},      {"c", "decode", "attention", 50, 1, 1, 1}};
  const std::vector<OpMedian> grouped = group_small_ops(ops, 4.5);
  std::vector<std::string> names;
  for (const auto& o : grouped) names.push_back(o.phase + ":" + o.op);
  EXPECT_EQ(names, (std::vector<std::string>{"prefill:qkv_proj", "prefill:lm_head", "prefill:other", "decode:rope",
                                             "decode:attention"}));
  EXPECT_DOUBLE_EQ(grouped[2].ms, 5);
  EXPECT_DOUBLE_EQ(grouped[2].calls, 3);
}

// A case whose thread count is above the run's CPUs is marked in the key
// table; the others are not.
TEST(Report, OversubscribedCasesAreMarkedInTheKeyTable) {
  std::vector<RunData> runs = read_runs({fixture("a")});
  RunData& run = runs.front();
  run.meta["oversubscribed_threads"] = {2};
  const TextTable t = key_table(run);
  size_t marked = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const bool two = run.summary.rows[i][run.summary.column("threads")] == "2";
    EXPECT_EQ(t.rows[i][0].ends_with(" (oversubscribed)"), two) << t.rows[i][0];
    marked += two ? 1 : 0;
  }
  EXPECT_GE(marked, 1u);
}

// A run sent to a server says so where the report lists its runs; one in
// process says nothing of a target.
TEST(Report, ARunLineNamesTheServerOfARemoteTarget) {
  RunData run;
  run.label = "served";
  run.meta["scenario"]["name"] = "smoke";
  EXPECT_EQ(run_line(run).find("served by"), std::string::npos);
  run.meta["target"] = {{"kind", "openai"}, {"url", "http://127.0.0.1:8080"}, {"model", "stories260K"}};
  EXPECT_NE(run_line(run).find("served by http://127.0.0.1:8080 (model stories260K)"), std::string::npos) << run_line(run);
}

// The GEMM precision recorded per model picks the compute roof; a name the
// engine does not know is an error naming the file and field, and results
// from before it was recorded meet the F32 roof.
TEST(Report, WeightsPrecisionIsReadByTheEnginesNames) {
  RunData run;
  run.dir = "results/x";
  EXPECT_EQ(weights_precision(run, "file"), GemmPrecision::F32);
  run.meta["models"]["q8_0"]["gemm_precision"] = "int8";
  run.meta["model"]["gemm_precision"] = "bf16";
  EXPECT_EQ(weights_precision(run, "q8_0"), GemmPrecision::Int8);
  EXPECT_EQ(weights_precision(run, "file"), GemmPrecision::BF16);
  run.meta["model"]["gemm_precision"] = "fp8";
  try {
    weights_precision(run, "file");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results/x/meta.json: /model/gemm_precision: unknown GEMM precision 'fp8'"),
              std::string::npos)
        << e.what();
  }
}

// The fixture's accuracy.csv beside its configuration's speed: the
// fastest batch-1 prefill and decode tokens/s of its file, f32/f32 cases;
// a run without accuracy.csv has no such table.
TEST(Report, AccuracySitsBesideTheSameConfigurationsSpeed) {
  const RunData a = read_run(fixture("a"));
  const TextTable t = accuracy_table(a);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"file", "f32/f32", "prefill", "6.3219", "0.000000", "0.000000",
                                                 "100.00%", t.rows[0][7]}));
  EXPECT_EQ(t.rows[1][2], "decode");
  for (size_t i = 0; i < 2; ++i) {
    double fastest = 0;
    for (const auto& row : a.summary.rows)
      fastest = std::max(fastest, number(a.summary, row, i == 0 ? "prefill_median_tok_s" : "decode_median_tok_s"));
    EXPECT_DOUBLE_EQ(std::stod(t.rows[i][7]), std::round(fastest * 10) / 10) << i;
  }
  const std::string md = render_summary_markdown({a}, {});
  EXPECT_NE(md.find("## Accuracy\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| file | f32/f32 | decode | 6.3219 |"), std::string::npos) << md;
  EXPECT_TRUE(accuracy_table(read_run(fixture("b"))).rows.empty());
}

TEST(Report, MarkdownHasTablesSentencesAndSvgCharts) {
  const std::string dir = test::temp_dir("report-md");
  try {
    write_report({{fixture("a"), fixture("b")}, dir + "/ab.html", dir + "/md/ab.md"});
  } catch (const Error& e) {
    if (std::string(e.what()).find("'node' is not on PATH") != std::string::npos) GTEST_SKIP() << e.what();
    throw;
  }
  const std::string md = read_text(dir + "/md/ab.md");
  EXPECT_NE(md.find("| case | TTFT median (ms) | TTFT CV (%) | prefill (tokens/s) | decode (tokens/s) |"),
            std::string::npos);
  EXPECT_NE(md.find("p64_n32_d0_t1_greedy | 4.22 |"), std::string::npos) << md;
  EXPECT_NE(md.find("## What bounds each phase"), std::string::npos);
  const std::regex image(R"re(!\[[^\]]*\]\(([^)]+\.svg)\))re");
  std::set<std::string> images;
  for (auto it = std::sregex_iterator(md.begin(), md.end(), image); it != std::sregex_iterator(); ++it) {
    images.insert((*it)[1]);
    const std::string svg = read_text(dir + "/md/" + (*it)[1].str());
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << (*it)[1];
    EXPECT_NE(svg.find("<path"), std::string::npos) << (*it)[1];
  }
  EXPECT_EQ(images.size(), kChartIds.size());
  EXPECT_TRUE(images.contains("ab-roofline.svg"));
}

TEST(Report, SummaryIsTheMarkdownTopWithoutCharts) {
  const std::string dir = test::temp_dir("report-summary");
  const ReportFiles files = write_report({{fixture("a")}, dir + "/a.html", ""});
  EXPECT_NE(files.summary.find("## What bounds each phase"), std::string::npos);
  EXPECT_NE(files.summary.find("p64_n32_d0_t1_greedy | 4.22 |"), std::string::npos) << files.summary;
  EXPECT_EQ(files.summary.find("## Charts"), std::string::npos);
  EXPECT_EQ(files.summary.find("<svg"), std::string::npos);
}

TEST(Report, MissingFolderOrFileIsNamed) {
  try {
    write_report({{"/nonexistent/results"}, "/tmp/never.html", ""});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/results"), std::string::npos) << e.what();
  }
  const std::string dir = test::temp_dir("report-missing");
  fs::copy(fixture("a"), dir + "/a");
  fs::remove(dir + "/a/steps.csv");
  try {
    write_report({{dir + "/a"}, dir + "/x.html", ""});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("steps.csv"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir + "/x.html"));
}

}  // namespace
}  // namespace pdbench::report
