#include "bench/report/results_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/runner/accuracy_run.h"
#include "bench/runner/meta_json.h"
#include "engine/util/error.h"

namespace pdbench::report {

namespace fs = std::filesystem;

RunData read_run(const std::string& dir) {
  if (!fs::is_directory(dir)) fail_file(dir, "not a results folder (run 'pdbench run SCENARIO -o " + dir + "' first)");
  RunData run;
  run.dir = dir;
  run.label = fs::path(dir).lexically_normal().filename().string();
  if (run.label.empty()) run.label = fs::path(dir).lexically_normal().parent_path().filename().string();
  const auto table = [&](const char* name) {
    const fs::path path = fs::path(dir) / name;
    if (!fs::exists(path)) fail_file(path.string(), "missing: not a complete results folder");
    return runner::read_csv(path.string());
  };
  run.samples = table("samples.csv");
  run.summary = table("summary.csv");
  run.steps = table("steps.csv");
  run.ops = table("ops.csv");
  const fs::path batch_steps = fs::path(dir) / "batch_steps.csv";
  if (fs::exists(batch_steps)) run.batch_steps = runner::read_csv(batch_steps.string());
  run.accuracy = runner::read_accuracy(dir);
  run.meta = fs::exists(fs::path(dir) / "meta.json") ? runner::read_meta_json(dir) : nlohmann::json::object();
  return run;
}

std::vector<RunData> read_runs(const std::vector<std::string>& dirs) {
  std::vector<RunData> runs;
  for (const auto& dir : dirs) runs.push_back(read_run(dir));
  for (auto& run : runs) {
    const auto same = std::count_if(runs.begin(), runs.end(), [&](const RunData& r) { return r.label == run.label; });
    if (same > 1) run.label = fs::path(run.dir).lexically_normal().string();
  }
  return runs;
}

bool has_column(const runner::Table& table, const std::string& column) {
  return std::find(table.columns.begin(), table.columns.end(), column) != table.columns.end();
}

const std::string& cell(const runner::Table& table, const std::vector<std::string>& row, const std::string& column) {
  return row[table.column(column)];
}

double number(const runner::Table& table, const std::vector<std::string>& row, const std::string& column) {
  const std::string& text = cell(table, row, column);
  if (text.empty()) return std::nan("");
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() ? std::nan("") : value;
}

}  // namespace pdbench::report
