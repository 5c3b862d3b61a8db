#include "bench/resultsdb/history.h"

#include <ctime>
#include <filesystem>
#include <fstream>

#include "bench/runner/meta_json.h"
#include "engine/util/error.h"
#include "engine/util/utc_time.h"

namespace pdbench::resultsdb {

namespace {

namespace fs = std::filesystem;

constexpr int64_t kSchemaVersion = 1;

constexpr const char* kSchema = R"sql(
CREATE TABLE runs (
  run_id          INTEGER PRIMARY KEY AUTOINCREMENT,
  git_commit      TEXT NOT NULL,
  scenario_name   TEXT NOT NULL,
  scenario_sha256 TEXT NOT NULL,
  model_sha256    TEXT NOT NULL,
  shard           TEXT NOT NULL,
  started_at      TEXT NOT NULL,
  finished_at     TEXT,
  stored_at       TEXT NOT NULL,
  results_dir     TEXT NOT NULL,
  fingerprint     TEXT NOT NULL,
  meta            TEXT NOT NULL
);
CREATE INDEX runs_by_commit ON runs (git_commit, run_id);
CREATE TABLE cells (
  run_id  INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  file    TEXT NOT NULL CHECK (file IN ('samples', 'summary')),
  row     INTEGER NOT NULL,
  col     INTEGER NOT NULL,
  case_id TEXT NOT NULL,
  name    TEXT NOT NULL,
  value   TEXT NOT NULL,
  PRIMARY KEY (run_id, file, row, col)
) WITHOUT ROWID;
CREATE INDEX cells_by_metric ON cells (file, name, case_id);
)sql";

std::string string_at(const nlohmann::json& meta, const char* pointer, const std::string& fallback) {
  const nlohmann::json::json_pointer p(pointer);
  return meta.contains(p) && meta.at(p).is_string() ? meta.at(p).get<std::string>() : fallback;
}

void insert_cells(Statement& insert, int64_t run_id, const char* file, const runner::Table& table) {
  const size_t case_col = table.column("case_id");
  for (size_t r = 0; r < table.rows.size(); ++r)
    for (size_t c = 0; c < table.columns.size(); ++c) {
      insert.bind(1, run_id)
          .bind(2, std::string(file))
          .bind(3, static_cast<int64_t>(r))
          .bind(4, static_cast<int64_t>(c))
          .bind(5, table.rows[r][case_col])
          .bind(6, table.columns[c])
          .bind(7, table.rows[r][c]);
      insert.step();
      insert.reset();
    }
}

runner::Table load_cells(Database& db, int64_t run_id, const char* file) {
  Statement q(db, "SELECT row, col, name, value FROM cells WHERE run_id = ?1 AND file = ?2 ORDER BY row, col");
  q.bind(1, run_id).bind(2, std::string(file));
  runner::Table t;
  while (q.step()) {
    const auto row = static_cast<size_t>(q.integer(0));
    const auto col = static_cast<size_t>(q.integer(1));
    if (row == 0) t.columns.push_back(q.text(2));
    if (t.rows.size() <= row) t.rows.emplace_back();
    if (t.rows[row].size() != col) throw Error(db.path() + ": run " + std::to_string(run_id) + ": cells missing");
    t.rows[row].push_back(q.text(3));
  }
  return t;
}

}  // namespace

History::History(const std::string& path) : db_(path) {
  const auto version = [this] {
    Statement q(db_, "PRAGMA user_version");
    q.step();
    return q.integer(0);
  };
  if (version() == kSchemaVersion) return;
  Transaction t(db_);  // another pdbench may be creating the schema right now: look again under the lock
  const int64_t v = version();
  if (v == kSchemaVersion) return;
  if (v != 0)
    throw Error(path + ": results database schema version " + std::to_string(v) + ", this pdbench reads version " +
                std::to_string(kSchemaVersion));
  Statement tables(db_, "SELECT count(*) FROM sqlite_schema");
  tables.step();
  if (tables.integer(0) != 0) throw Error(path + ": not a pdbench results database (it has other tables)");
  db_.exec(kSchema);
  db_.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  t.commit();
}

int64_t History::append(const std::string& results_dir) {
  // Everything is read before the transaction starts: a bad folder writes nothing.
  const fs::path dir = fs::absolute(results_dir);
  const nlohmann::json meta = runner::read_meta_json(dir.string());
  const runner::Table samples = runner::read_csv((dir / "samples.csv").string());
  const runner::Table summary = runner::read_csv((dir / "summary.csv").string());
  const nlohmann::json fingerprint = meta.value("fingerprint", nlohmann::json::object());

  Transaction t(db_);
  Statement run(db_,
                "INSERT INTO runs (git_commit, scenario_name, scenario_sha256, model_sha256, shard, started_at, "
                "finished_at, stored_at, results_dir, fingerprint, meta) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  run.bind(1, fingerprint.value("git_commit", std::string("unknown")))
      .bind(2, string_at(meta, "/scenario/name", ""))
      .bind(3, string_at(meta, "/scenario/sha256", ""))
      .bind(4, string_at(meta, "/model/sha256", ""))
      .bind(5, meta.value("shard", std::string("1/1")))
      .bind(6, meta.value("started_at", std::string()));
  if (meta.contains("finished_at") && meta["finished_at"].is_string())
    run.bind(7, meta["finished_at"].get<std::string>());
  else
    run.bind_null(7);
  run.bind(8, utc_now()).bind(9, dir.string()).bind(10, fingerprint.dump()).bind(11, meta.dump());
  run.step();
  const int64_t run_id = db_.last_insert_rowid();
  Statement insert(db_,
                   "INSERT INTO cells (run_id, file, row, col, case_id, name, value) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  insert_cells(insert, run_id, "samples", samples);
  insert_cells(insert, run_id, "summary", summary);
  t.commit();
  return run_id;
}

int64_t History::resolve(const std::string& rev) {
  if (rev.starts_with("run:")) {
    const std::string digits = rev.substr(4);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
      throw Error("'" + rev + "': run:N takes a run number");
    Statement q(db_, "SELECT run_id FROM runs WHERE run_id = ?1");
    q.bind(1, static_cast<int64_t>(std::stoll(digits)));
    if (!q.step()) throw Error(db_.path() + ": no run " + digits);
    return q.integer(0);
  }
  if (rev.size() < 4) throw Error("'" + rev + "': give at least 4 characters of the commit");
  // Prefix match by range, so '%' or '_' in the argument mean nothing special.
  Statement q(db_,
              "SELECT git_commit, max(run_id) FROM runs WHERE substr(git_commit, 1, length(?1)) = ?1 "
              "GROUP BY git_commit");
  q.bind(1, rev);
  if (!q.step()) throw Error(db_.path() + ": no run of commit " + rev);
  const std::string commit = q.text(0);
  const int64_t id = q.integer(1);
  if (q.step()) throw Error("'" + rev + "' names several commits (" + commit + ", " + q.text(0) + ", ...)");
  return id;
}

StoredRun History::load(int64_t run_id) {
  Statement q(db_, "SELECT git_commit, meta FROM runs WHERE run_id = ?1");
  q.bind(1, run_id);
  if (!q.step()) throw Error(db_.path() + ": no run " + std::to_string(run_id));
  StoredRun r;
  r.run_id = run_id;
  r.git_commit = q.text(0);
  r.meta = nlohmann::json::parse(q.text(1), nullptr, false);
  if (r.meta.is_discarded()) throw Error(db_.path() + ": run " + std::to_string(run_id) + ": stored meta is not JSON");
  r.samples = load_cells(db_, run_id, "samples");
  r.summary = load_cells(db_, run_id, "summary");
  return r;
}

std::vector<RunInfo> History::runs(const std::string& scenario) {
  Statement q(db_,
              "SELECT run_id, git_commit, scenario_name, shard, started_at FROM runs "
              "WHERE ?1 = '' OR scenario_name = ?1 ORDER BY run_id");
  q.bind(1, scenario);
  std::vector<RunInfo> out;
  while (q.step()) out.push_back({q.integer(0), q.text(1), q.text(2), q.text(3), q.text(4)});
  return out;
}

std::vector<std::string> History::summary_columns(const std::string& scenario) {
  Statement q(db_,
              "SELECT c.name FROM cells c JOIN runs r USING (run_id) "
              "WHERE c.file = 'summary' AND c.row = 0 AND (?1 = '' OR r.scenario_name = ?1) "
              "GROUP BY c.name ORDER BY min(c.col), c.name");
  q.bind(1, scenario);
  std::vector<std::string> out;
  while (q.step()) out.push_back(q.text(0));
  return out;
}

std::vector<SummaryCell> History::summary_cells(const std::string& column, const std::string& scenario) {
  Statement q(db_,
              "SELECT c.run_id, c.case_id, c.value FROM cells c JOIN runs r USING (run_id) "
              "WHERE c.file = 'summary' AND c.name = ?1 AND (?2 = '' OR r.scenario_name = ?2) "
              "ORDER BY c.run_id, c.row");
  q.bind(1, column).bind(2, scenario);
  std::vector<SummaryCell> out;
  while (q.step()) out.push_back({q.integer(0), q.text(1), q.text(2)});
  return out;
}

}  // namespace pdbench::resultsdb
