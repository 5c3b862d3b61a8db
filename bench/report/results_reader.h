#pragma once
// One results folder (docs/RESULTS.md) loaded for a report: the CSV tables
// as written by the runner, and meta.json.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/runner/csv_table.h"

namespace pdbench::report {

struct RunData {
  std::string label;  // how charts and tables name this run
  std::string dir;
  runner::Table samples;
  runner::Table summary;
  runner::Table steps;
  runner::Table ops;
  runner::Table batch_steps;  // no rows in folders from before load cases
  std::optional<runner::Table> accuracy;  // accuracy.csv, when the run scored one
  nlohmann::json meta;  // empty object when meta.json is absent
};

// Throws pdbench::Error naming the folder when a CSV file is missing or bad.
RunData read_run(const std::string& dir);

// Reads every folder; labels are the folder names, made unique with the
// parent folder when two share a name.
std::vector<RunData> read_runs(const std::vector<std::string>& dirs);

// A cell as a number; empty or unparsable cells are NaN.
double number(const runner::Table& table, const std::vector<std::string>& row, const std::string& column);
const std::string& cell(const runner::Table& table, const std::vector<std::string>& row, const std::string& column);
bool has_column(const runner::Table& table, const std::string& column);

}  // namespace pdbench::report
