#include "bench/report/history_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "engine/util/error.h"

namespace pdbench::report {

namespace {

using json = nlohmann::json;

// summary.csv's measured columns carry their unit in the name
// (docs/RESULTS.md); the case and bookkeeping columns do not, whatever
// sweep axes a pdbench version adds.
bool is_metric(const std::string& column) {
  for (const char* unit : {"_ms", "_pct", "_tok_s", "_kib"})
    if (column.ends_with(unit)) return true;
  return column.find("bytes") != std::string::npos;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string short_commit(const std::string& commit) { return commit.substr(0, 7); }
std::string date_of(const std::string& iso) { return iso.substr(0, 10); }

std::set<std::string> machines_of(const std::vector<resultsdb::RunInfo>& runs) {
  std::set<std::string> ids;
  for (const auto& r : runs) ids.insert(r.machine.id);
  return ids;
}

std::vector<std::string> scenarios_of(const std::vector<resultsdb::RunInfo>& runs) {
  std::vector<std::string> names;
  for (const auto& r : runs)
    if (std::find(names.begin(), names.end(), r.scenario_name) == names.end()) names.push_back(r.scenario_name);
  return names;
}

// The x axis label of each run: short commit and date, with the run id
// added where two runs would read the same.
std::map<int64_t, std::string> run_labels(const std::vector<resultsdb::RunInfo>& runs) {
  std::map<std::string, int> uses;
  for (const auto& r : runs) ++uses[short_commit(r.git_commit) + " " + date_of(r.started_at)];
  std::map<int64_t, std::string> labels;
  for (const auto& r : runs) {
    const std::string label = short_commit(r.git_commit) + " " + date_of(r.started_at);
    labels[r.run_id] = uses[label] > 1 ? label + " (run " + std::to_string(r.run_id) + ")" : label;
  }
  return labels;
}

std::string metric_title(const std::string& column) {
  static const std::map<std::string, std::string> kTitles{
      {"ttft_median_ms", "TTFT, median (ms)"},
      {"prefill_median_tok_s", "prefill throughput (tokens/s)"},
      {"decode_median_tok_s", "decode throughput per sequence (tokens/s)"},
      {"decode_aggregate_median_tok_s", "decode throughput, all sequences (tokens/s)"}};
  const auto it = kTitles.find(column);
  return it != kTitles.end() ? it->second : column;
}

// Times are better low, rates high; other columns carry no direction.
std::string direction(const std::string& column) {
  if (column.ends_with("_tok_s")) return " Higher is better.";
  if (column.ends_with("_ms")) return " Lower is better.";
  return "";
}

std::string chart_id(const std::string& column) {
  std::string id = "history-" + column;
  std::replace(id.begin(), id.end(), '_', '-');
  return id;
}

}  // namespace

const std::vector<std::string>& default_history_metrics() {
  static const std::vector<std::string> kDefaults{"ttft_median_ms", "prefill_median_tok_s", "decode_median_tok_s"};
  return kDefaults;
}

HistoryData read_history(const std::string& db, const std::vector<std::string>& metrics, const std::string& scenario) {
  // Opening would create an empty database: say that the file is missing instead.
  if (!resultsdb::is_postgres_url(db) && !std::filesystem::is_regular_file(db))
    throw Error(db + ": no such file (pdbench run --db FILE and pdbench merge --db FILE write it)");
  resultsdb::History history(db);
  HistoryData out{history.name(), scenario, history.runs(scenario), {}};
  if (out.runs.empty()) {
    const std::vector<std::string> stored = scenarios_of(history.runs(""));
    if (scenario.empty() || stored.empty()) throw Error(db + ": no runs stored yet");
    throw Error(db + ": no runs of scenario '" + scenario + "' (stored: " + join(stored) + ")");
  }

  std::vector<std::string> available;
  for (const auto& c : history.summary_columns(scenario))
    if (is_metric(c)) available.push_back(c);
  std::vector<std::string> chosen = metrics;
  if (chosen.empty())
    for (const auto& m : default_history_metrics())
      if (std::find(available.begin(), available.end(), m) != available.end()) chosen.push_back(m);
  if (chosen.empty()) throw Error(db + ": none of the default metrics is stored; choose with --metric from: " + join(available));
  for (const auto& m : chosen)
    if (std::find(available.begin(), available.end(), m) == available.end())
      throw Error("--metric " + m + ": not a summary.csv metric of the stored runs; available: " + join(available));

  const bool several_scenarios = scenarios_of(out.runs).size() > 1;
  std::map<int64_t, std::string> scenario_of;
  for (const auto& r : out.runs) scenario_of[r.run_id] = r.scenario_name;
  for (const auto& m : chosen) {
    HistoryMetric metric{m, {}};
    for (const auto& c : history.summary_cells(m, scenario)) {
      double value = 0;
      const auto [end, ec] = std::from_chars(c.value.data(), c.value.data() + c.value.size(), value);
      if (ec != std::errc() || end != c.value.data() + c.value.size() || !std::isfinite(value)) continue;  // empty: not measured
      metric.points.push_back({c.run_id, several_scenarios ? scenario_of[c.run_id] + ": " + c.case_id : c.case_id, value});
    }
    out.metrics.push_back(std::move(metric));
  }
  return out;
}

std::vector<Chart> history_charts(const HistoryData& history) {
  const std::map<int64_t, std::string> labels = run_labels(history.runs);
  std::map<int64_t, const resultsdb::RunInfo*> by_id;
  for (const auto& r : history.runs) by_id[r.run_id] = &r;
  json order = json::array();  // the x axis in run order, whatever the data's order
  for (const auto& r : history.runs) order.push_back(labels.at(r.run_id));
  const bool several_machines = machines_of(history.runs).size() > 1;

  std::vector<Chart> charts;
  for (const auto& m : history.metrics) {
    const std::string title = metric_title(m.column) + " over the stored runs";
    Chart chart{chart_id(m.column), "History", title,
                "summary.csv column " + m.column + " of every stored run, in the order the runs were stored; one line "
                "per case." + direction(m.column),
                nullptr, ""};
    if (m.points.empty()) {
      chart.note = "Skipped: no stored run has a value in this column.";
      charts.push_back(std::move(chart));
      continue;
    }
    json values = json::array();
    for (const auto& p : m.points) {
      const resultsdb::RunInfo& run = *by_id.at(p.run_id);
      values.push_back({{"run", labels.at(p.run_id)},
                        {"run_id", p.run_id},
                        {"commit", run.git_commit},
                        {"started_at", run.started_at},
                        {"case", p.series},
                        {"machine", run.machine.name + " (" + run.machine.id + ")"},
                        {"value", p.value}});
    }
    json spec = base_spec(title);
    // Many runs: a fixed step per run, the page scrolls sideways.
    if (history.runs.size() > 12) spec["width"] = {{"step", 36}};
    spec["data"] = {{"values", values}};
    spec["mark"] = {{"type", "line"}, {"strokeWidth", 2}, {"point", {{"size", 50}, {"filled", true}}}};
    spec["encoding"] = {
        {"x", {{"field", "run"}, {"type", "ordinal"}, {"sort", order}, {"title", "run: commit and date, in stored order"},
               {"axis", {{"labelAngle", -40}}}}},
        {"y", {{"field", "value"}, {"type", "quantitative"}, {"title", metric_title(m.column)}, {"scale", {{"zero", false}}}}},
        {"color", {{"field", "case"}, {"type", "nominal"}, {"title", "case"},
                   {"legend", {{"orient", "bottom"}, {"direction", "vertical"}, {"columns", 2}}}}},
        {"tooltip", json::array({{{"field", "commit"}, {"title", "commit"}},
                                 {{"field", "run_id"}, {"title", "run id"}},
                                 {{"field", "started_at"}, {"title", "date (started, UTC)"}},
                                 {{"field", "machine"}, {"title", "machine"}},
                                 {{"field", "case"}, {"title", "case"}},
                                 value_field("value", m.column)})}};
    // One line per case and machine: the dash tells the machines apart.
    if (several_machines)
      spec["encoding"]["strokeDash"] = {{"field", "machine"}, {"type", "nominal"}, {"title", "machine"},
                                        {"legend", {{"orient", "bottom"}, {"direction", "vertical"}}}};
    chart.spec = spec;
    charts.push_back(std::move(chart));
  }
  return charts;
}

std::string history_title(const HistoryData& history) {
  const auto& first = history.runs.front();
  const auto& last = history.runs.back();
  const std::string scenarios = history.scenario.empty() ? join(scenarios_of(history.runs)) : history.scenario;
  return scenarios + ", " + std::to_string(history.runs.size()) + " run" + (history.runs.size() == 1 ? "" : "s") +
         " from " + short_commit(first.git_commit) + " (" + date_of(first.started_at) + ") to " +
         short_commit(last.git_commit) + " (" + date_of(last.started_at) + ")";
}

std::vector<std::string> history_lines(const HistoryData& history) {
  std::set<std::string> cases;
  for (const auto& m : history.metrics)
    for (const auto& p : m.points) cases.insert(p.series);
  const size_t machines = machines_of(history.runs).size();
  return {"database " + history.db, "scenarios: " + join(scenarios_of(history.runs)),
          std::to_string(cases.size()) + " cases on " + std::to_string(machines) + " machine" +
              (machines == 1 ? "" : "s (a line per case and machine)") +
              "; x axis: runs in the order they were stored (run id)"};
}

TextTable runs_table(const HistoryData& history) {
  TextTable t{{"run id", "commit", "started (UTC)", "scenario", "shard", "machine"}, {}};
  for (const auto& r : history.runs)
    t.rows.push_back({std::to_string(r.run_id), r.git_commit, r.started_at, r.scenario_name, r.shard,
                      r.machine.name + " (" + r.machine.id + ")"});
  return t;
}

}  // namespace pdbench::report
