#pragma once
// The results history: an SQLite file or a PostgreSQL database that
// `pdbench run --db FILE|URL` appends every run to (meta.json, samples.csv
// and summary.csv, with the fingerprint, git commit, machine and scenario
// hash pulled out for queries), and that `pdbench compare --db` and
// `pdbench report --db --history` read back. Schema: docs/RESULTS.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/resultsdb/connection.h"
#include "bench/resultsdb/machine.h"
#include "bench/runner/csv_table.h"

namespace pdbench::resultsdb {

struct StoredRun {
  int64_t run_id = 0;
  std::string git_commit;
  Machine machine;
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
  Machine machine;
};

// One summary.csv cell of a stored run.
struct SummaryCell {
  int64_t run_id = 0;
  std::string case_id;
  std::string value;  // as in the CSV; "" for none
};

class History {
 public:
  // Opens the SQLite file or connects to the postgresql:// URL, creating
  // the tables when new and migrating an older schema; throws
  // pdbench::Error when it cannot, or when the database is not a history.
  explicit History(const std::string& target);

  // Stores the results folder in one transaction: the run appears whole or
  // not at all. Returns its run id.
  int64_t append(const std::string& results_dir);

  // "run:N" names run N; anything else is a git commit (or a prefix of at
  // least 4 characters naming one commit): its latest run, on `machine`
  // (a Machine id) unless that is "". Throws when nothing (or more than one
  // commit) matches.
  int64_t resolve(const std::string& rev, const std::string& machine = "");
  // The runs that make up a commit's latest measurement on `machine`: its
  // latest run, and when that was shard k/n, the latest run of each other
  // shard of the same scenario on the same machine (shards run on several
  // runners of one machine type and store separately). A run:N is itself.
  struct Shards {
    std::vector<int64_t> runs;    // in shard order
    std::vector<std::string> missing;  // "2/3": shards not stored
  };
  Shards resolve_shards(const std::string& rev, const std::string& machine = "");
  // The machines with runs of the commit `rev` names, in the order of
  // their latest run of it (a run:N: its machine).
  std::vector<Machine> machines(const std::string& rev);

  StoredRun load(int64_t run_id);

  // The readers below take a scenario name, or "" for every scenario.
  // Runs in run id order, i.e. the order they were appended.
  std::vector<RunInfo> runs(const std::string& scenario);
  // summary.csv column names over those runs, in column order.
  std::vector<std::string> summary_columns(const std::string& scenario);
  // One summary column of those runs, by run id then row.
  std::vector<SummaryCell> summary_cells(const std::string& column, const std::string& scenario);

  const std::string& name() const { return db_->name(); }  // for messages
  Connection& connection() { return *db_; }              // for ad-hoc queries

 private:
  // The commit that `rev` (4+ characters of it) names; throws unless one.
  std::string commit_of(const std::string& rev);

  std::unique_ptr<Connection> db_;
};

}  // namespace pdbench::resultsdb
