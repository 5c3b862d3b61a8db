#pragma once
// The history report's data: key summary.csv metrics of every run stored in
// a results database (bench/resultsdb), in the order the runs were stored,
// and its charts (x = run, one line per case and machine).
#include <cstdint>
#include <string>
#include <vector>

#include "bench/report/chart_specs.h"
#include "bench/report/tables.h"
#include "bench/resultsdb/history.h"

namespace pdbench::report {

struct HistoryPoint {
  int64_t run_id = 0;
  std::string series;  // the case; "SCENARIO: case" when several scenarios are shown
  double value = 0;
};

struct HistoryMetric {
  std::string column;  // summary.csv column, e.g. ttft_median_ms
  std::vector<HistoryPoint> points;
};

struct HistoryData {
  std::string db;
  std::string scenario;  // the filter, or "" for every scenario
  std::vector<resultsdb::RunInfo> runs;
  std::vector<HistoryMetric> metrics;
};

// Metrics used when none are named: those of these the database holds.
const std::vector<std::string>& default_history_metrics();

// Throws pdbench::Error when the file does not exist (or the server cannot
// be reached), holds no (matching)
// runs, or a metric is not a summary column (the message lists them).
HistoryData read_history(const std::string& db, const std::vector<std::string>& metrics, const std::string& scenario);

// One chart per metric, in the order asked.
std::vector<Chart> history_charts(const HistoryData& history);

// "smoke, 12 runs from 1a2b3c4 (2025-01-02) to 5e6f7a8 (2025-02-03)"
std::string history_title(const HistoryData& history);
// The database, scenarios and cases, for the page header.
std::vector<std::string> history_lines(const HistoryData& history);
// One row per run: id, commit, started, scenario, shard, machine.
TextTable runs_table(const HistoryData& history);

}  // namespace pdbench::report
