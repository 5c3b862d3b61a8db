-- A results history as pdbench wrote it at schema version 1 (before runs
-- recorded their machine): the schema text of bench/resultsdb/history.cpp at
-- commit 1a9316f, and one run with two summary cells. history_test.cpp
-- opens it with the current pdbench, which must migrate it.

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

PRAGMA user_version = 1;
INSERT INTO runs (git_commit, scenario_name, scenario_sha256, model_sha256, shard, started_at, finished_at, stored_at, results_dir, fingerprint, meta)
VALUES ('aaaa11112222', 'fixture', 'def', 'abc', '1/1', '2024-01-01T00:00:00Z', '2024-01-01T00:01:00Z', '2024-01-01T00:02:00Z', '/results/fixture',
 '{"cpu":{"model":"Test CPU","logical_cpus":8},"memory_bytes":17179869184,"git_commit":"aaaa11112222"}',
 '{"fingerprint":{"cpu":{"model":"Test CPU","logical_cpus":8},"memory_bytes":17179869184,"git_commit":"aaaa11112222"},"scenario":{"name":"fixture"}}');
INSERT INTO cells VALUES (1, 'summary', 0, 0, 'a', 'case_id', 'a'), (1, 'summary', 0, 1, 'a', 'decode_median_ms', '1.5');
