// pdbench report --history: a results history made here from the fixture
// results (tests/data/results-fixture) through History::append, drawn as one
// chart per metric over the stored runs; metric selection and clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "bench/report/history_report.h"
#include "bench/report/report.h"
#include "bench/resultsdb/history.h"
#include "engine/util/error.h"
#include "tests/report/report_test_util.h"
#include "tests/support/postgres_test_db.h"
#include "tests/support/test_paths.h"

namespace pdbench::report {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using test_util::embedded_specs;
using test_util::fixture;
using test_util::read_text;

// The summary.csv value of one case's column in a fixture folder.
double summary_value(const std::string& dir, const std::string& case_id, const std::string& column) {
  const runner::Table t = runner::read_csv(dir + "/summary.csv");
  for (const auto& row : t.rows)
    if (row[t.column("case_id")] == case_id) return std::stod(row[t.column(column)]);
  return -1;
}

std::string error_of(const HistoryOptions& options) {
  try {
    write_history_report(options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Runs 1 and 3: fixture a (commit 6dd1955, same day, so their labels name
// the run); run 2: fixture b as a later commit.
class HistoryReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_dir("history-report");
    db_ = dir_ + "/h.sqlite";
    fs::copy(fixture("b"), dir_ + "/b");
    json meta = json::parse(read_text(dir_ + "/b/meta.json"));
    meta["fingerprint"]["git_commit"] = "abcdef0123456789";
    meta["started_at"] = "2026-12-01T08:00:00Z";
    std::ofstream(dir_ + "/b/meta.json") << meta.dump();
    resultsdb::History h(db_);
    h.append(fixture("a"));
    h.append(dir_ + "/b");
    h.append(fixture("a"));
  }
  std::string dir_, db_;
};

TEST_F(HistoryReport, DefaultMetricsOverRunsInStoredOrder) {
  const ReportFiles files = write_history_report({db_, {}, "", dir_ + "/out/h.html", ""});
  EXPECT_EQ(files.charts, 3u);
  EXPECT_EQ(files.skipped, 0u);
  const std::string html = read_text(dir_ + "/out/h.html");
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);  // self-contained

  const auto specs = embedded_specs(html);
  ASSERT_EQ(specs.size(), 3u);
  const std::vector<std::string> order{"6dd1955 2026-11-29 (run 1)", "abcdef0 2026-12-01", "6dd1955 2026-11-29 (run 3)"};
  for (const char* id : {"history-ttft-median-ms", "history-prefill-median-tok-s", "history-decode-median-tok-s"}) {
    ASSERT_TRUE(specs.contains(id)) << id;
    const json& spec = specs.at(id);
    EXPECT_EQ(spec["encoding"]["x"]["sort"], json(order)) << id;
    EXPECT_EQ(spec["encoding"]["color"]["field"], "case") << id;
    EXPECT_EQ(spec["data"]["values"].size(), 3u + 2u + 3u) << id;  // cases of a, b, a
    EXPECT_NE(html.find("id=\"chart-" + std::string(id) + "\""), std::string::npos) << id;
  }
  // A point: its run's commit, id and date, and the value straight from summary.csv.
  bool found = false;
  for (const auto& d : specs.at("history-ttft-median-ms")["data"]["values"])
    if (d["run_id"] == 2 && d["case"] == "p64_n32_d0_t1_greedy") {
      found = true;
      EXPECT_EQ(d["commit"], "abcdef0123456789");
      EXPECT_EQ(d["started_at"], "2026-12-01T08:00:00Z");
      EXPECT_DOUBLE_EQ(d["value"].get<double>(), summary_value(fixture("b"), "p64_n32_d0_t1_greedy", "ttft_median_ms"));
    }
  EXPECT_TRUE(found);
  std::set<std::string> tooltip;
  for (const auto& t : specs.at("history-ttft-median-ms")["encoding"]["tooltip"]) tooltip.insert(t["field"].get<std::string>());
  EXPECT_EQ(tooltip, (std::set<std::string>{"commit", "run_id", "started_at", "machine", "case", "value"}));
  EXPECT_FALSE(specs.at("history-ttft-median-ms")["encoding"].contains("strokeDash"));  // one machine
}

// Runs from a second machine: a line per case and machine, told apart by
// the dash, and the runs table names each run's machine.
TEST_F(HistoryReport, ALinePerMachine) {
  fs::copy(fixture("a"), dir_ + "/other");
  json meta = json::parse(read_text(dir_ + "/other/meta.json"));
  meta["fingerprint"]["cpu"]["model"] = "Another CPU";
  std::ofstream(dir_ + "/other/meta.json") << meta.dump();
  resultsdb::History(db_).append(dir_ + "/other");
  const HistoryData history = read_history(db_, {"ttft_median_ms"}, "");
  const std::vector<Chart> charts = history_charts(history);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts[0].spec["encoding"]["strokeDash"]["field"], "machine");
  std::set<std::string> machines;
  for (const auto& d : charts[0].spec["data"]["values"]) machines.insert(d["machine"].get<std::string>());
  EXPECT_EQ(machines.size(), 2u);
  const TextTable runs = runs_table(history);
  EXPECT_EQ(runs.header.back(), "machine");
  EXPECT_EQ(runs.rows.back().back().rfind("Another CPU, ", 0), 0u) << runs.rows.back().back();
  EXPECT_NE(history_lines(history)[2].find("on 2 machines"), std::string::npos) << history_lines(history)[2];
}

// The same runs stored in PostgreSQL draw the same charts and tables.
TEST_F(HistoryReport, PostgresqlDrawsTheSameHistory) {
  test::PostgresTestDb postgres;
  if (!postgres.available()) GTEST_SKIP() << test::PostgresTestDb::skip_reason();
  resultsdb::History h(postgres.url());
  h.append(fixture("a"));
  h.append(dir_ + "/b");
  h.append(fixture("a"));
  const HistoryData from_sqlite = read_history(db_, {}, ""), from_postgres = read_history(postgres.url(), {}, "");
  const std::vector<Chart> a = history_charts(from_sqlite), b = history_charts(from_postgres);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].spec, b[i].spec) << a[i].id;
  EXPECT_EQ(runs_table(from_sqlite).rows, runs_table(from_postgres).rows);
  EXPECT_EQ(history_title(from_sqlite), history_title(from_postgres));
  EXPECT_EQ(from_postgres.db, resultsdb::redact_password(postgres.url()));
}

TEST_F(HistoryReport, MetricSelectionAndScenarioFilter) {
  const HistoryData h = read_history(db_, {"itl_p99_ms", "peak_rss_kib"}, "smoke");
  ASSERT_EQ(h.metrics.size(), 2u);
  EXPECT_EQ(h.metrics[0].column, "itl_p99_ms");
  EXPECT_EQ(h.runs.size(), 3u);
  const auto charts = history_charts(h);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].id, "history-itl-p99-ms");
  EXPECT_EQ(charts[1].id, "history-peak-rss-kib");
  EXPECT_EQ(charts[1].spec["data"]["values"].size(), 8u);
}

TEST_F(HistoryReport, ClearErrors) {
  const std::string missing = dir_ + "/none.sqlite";
  EXPECT_NE(error_of({missing, {}, "", dir_ + "/x.html", ""}).find(missing + ": no such file"), std::string::npos);
  EXPECT_FALSE(fs::exists(missing));  // not created by looking

  const std::string unknown = error_of({db_, {"ttft_median_ms", "bogus"}, "", dir_ + "/x.html", ""});
  EXPECT_NE(unknown.find("--metric bogus"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("available: tokenize_median_ms"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("decode_median_tok_s"), std::string::npos) << unknown;
  // Case columns are settings, not metrics.
  EXPECT_NE(error_of({db_, {"prompt_tokens"}, "", dir_ + "/x.html", ""}).find("--metric prompt_tokens"),
            std::string::npos);

  const std::string scenario = error_of({db_, {}, "nightly", dir_ + "/x.html", ""});
  EXPECT_NE(scenario.find("no runs of scenario 'nightly' (stored: smoke)"), std::string::npos) << scenario;

  resultsdb::History empty(dir_ + "/empty.sqlite");
  EXPECT_NE(error_of({dir_ + "/empty.sqlite", {}, "", dir_ + "/x.html", ""}).find("no runs stored yet"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ + "/x.html"));
}

TEST_F(HistoryReport, MarkdownWithSvgCharts) {
  try {
    write_history_report({db_, {"ttft_median_ms"}, "", dir_ + "/h.html", dir_ + "/md/h.md"});
  } catch (const Error& e) {
    if (std::string(e.what()).find("'node' is not on PATH") != std::string::npos) GTEST_SKIP() << e.what();
    throw;
  }
  const std::string md = read_text(dir_ + "/md/h.md");
  EXPECT_NE(md.find("# pdbench history: smoke, 3 runs from 6dd1955 (2026-11-29) to 6dd1955 (2026-11-29)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("![TTFT, median (ms) over the stored runs](h-history-ttft-median-ms.svg)"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2 | abcdef0123456789 | 2026-12-01T08:00:00Z | smoke | 1/1 |"), std::string::npos) << md;
  const std::string svg = read_text(dir_ + "/md/h-history-ttft-median-ms.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("<path"), std::string::npos);
}

}  // namespace
}  // namespace pdbench::report
