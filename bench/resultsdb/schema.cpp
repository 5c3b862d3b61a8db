#include "bench/resultsdb/schema.h"

#include <iterator>
#include <string_view>

#include "bench/resultsdb/machine.h"
#include "engine/util/error.h"

namespace pdbench::resultsdb {

namespace {

bool is_postgres(const Connection& db) { return std::string_view(db.dialect()) == "postgresql"; }

// Version 1: the runs and every cell of their CSV files.
void create_runs_and_cells(Connection& db) {
  const bool pg = is_postgres(db);
  const std::string id = pg ? "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT";
  db.exec(R"sql(
CREATE TABLE runs (
  run_id          )sql" + id + R"sql(,
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
  run_id  )sql" + std::string(pg ? "BIGINT" : "INTEGER") + R"sql( NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  file    TEXT NOT NULL CHECK (file IN ('samples', 'summary')),
  row     INTEGER NOT NULL,
  col     INTEGER NOT NULL,
  case_id TEXT NOT NULL,
  name    TEXT NOT NULL,
  value   TEXT NOT NULL,
  PRIMARY KEY (run_id, file, row, col)
))sql" + (pg ? "" : " WITHOUT ROWID") + R"sql(;
CREATE INDEX cells_by_metric ON cells (file, name, case_id);
)sql");
}

// Version 2: the machine of each run (machine.h), so comparisons pair
// commits measured on one machine and histories draw a line per machine.
void add_machines(Connection& db) {
  db.exec(R"sql(
ALTER TABLE runs ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN machine_name TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_machine ON runs (machine, git_commit, run_id);
)sql");
  const Rows runs = db.query("SELECT run_id, fingerprint FROM runs", {});
  for (size_t r = 0; r < runs.size(); ++r) {
    const nlohmann::json fingerprint = nlohmann::json::parse(runs.text(r, 1), nullptr, false);
    const Machine m = machine_of(fingerprint.is_object() ? fingerprint : nlohmann::json::object());
    db.query("UPDATE runs SET machine = $1, machine_name = $2 WHERE run_id = $3", {m.id, m.name, runs.integer(r, 0)});
  }
}

using Migration = void (*)(Connection&);
constexpr Migration kMigrations[] = {create_runs_and_cells, add_machines};
static_assert(std::size(kMigrations) == kSchemaVersion);

}  // namespace

void migrate(Connection& db) {
  const auto check_known = [&db](int64_t version) {
    if (version > kSchemaVersion)
      throw Error(db.name() + ": results database schema version " + std::to_string(version) +
                  ", this pdbench reads up to version " + std::to_string(kSchemaVersion));
  };
  int64_t version = db.schema_version();
  check_known(version);
  if (version == kSchemaVersion) return;
  const SchemaLock lock(db);
  Transaction t(db);
  version = db.schema_version();  // another pdbench may have migrated it meanwhile
  check_known(version);
  if (version == kSchemaVersion) return;
  if (version == 0 && db.has_tables()) throw Error(db.name() + ": not a pdbench results database (it has other tables)");
  for (; version < kSchemaVersion; ++version) kMigrations[version](db);
  db.set_schema_version(kSchemaVersion);
  t.commit();
}

}  // namespace pdbench::resultsdb
