#pragma once
// The results history: an SQLite file that `pdbench run --db FILE` appends
// every run to (meta.json, samples.csv and summary.csv, with the fingerprint,
// git commit and scenario hash pulled out for queries), and that
// `pdbench compare --db FILE A B` reads back. Schema: docs/RESULTS.md.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/resultsdb/sqlite.h"
#include "bench/runner/csv_table.h"

namespace pdbench::resultsdb {

struct StoredRun {
  int64_t run_id = 0;
  std::string git_commit;
  nlohmann::json meta;
  runner::Table samples;
  runner::Table summary;
};

// A stored run without its cells: what a history report lists.
struct RunInfo {
  int64_t run_id = 0;
  std::string git_commit;
  std::string scenario_name;
  std::string shard;
  std::string started_at;
};

// One summary.csv cell of a stored run.
struct SummaryCell {
  int64_t run_id = 0;
  std::string case_id;
  std::string value;  // as in the CSV; "" for none
};

class History {
 public:
  // Opens the file, creating it and its tables when new; throws
  // pdbench::Error when it holds another schema version.
  explicit History(const std::string& path);

  // Stores the results folder in one transaction: the run appears whole or
  // not at all. Returns its run id.
  int64_t append(const std::string& results_dir);

  // "run:N" names run N; anything else is a git commit (or a prefix of at
  // least 4 characters naming one commit): its latest run. Throws when
  // nothing (or more than one commit) matches.
  int64_t resolve(const std::string& rev);

  StoredRun load(int64_t run_id);

  // The readers below take a scenario name, or "" for every scenario.
  // Runs in run id order, i.e. the order they were appended.
  std::vector<RunInfo> runs(const std::string& scenario);
  // summary.csv column names over those runs, in column order.
  std::vector<std::string> summary_columns(const std::string& scenario);
  // One summary column of those runs, by run id then row.
  std::vector<SummaryCell> summary_cells(const std::string& column, const std::string& scenario);

 private:
  Database db_;
};

}  // namespace pdbench::resultsdb
