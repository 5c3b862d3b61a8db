#include "bench/resultsdb/history.h"

#include <cstdlib>
#include <filesystem>

#include "bench/resultsdb/schema.h"
#include "bench/runner/meta_json.h"
#include "engine/util/error.h"
#include "engine/util/utc_time.h"

namespace pdbench::resultsdb {

namespace {

namespace fs = std::filesystem;

std::string string_at(const nlohmann::json& meta, const char* pointer, const std::string& fallback) {
  const nlohmann::json::json_pointer p(pointer);
  return meta.contains(p) && meta.at(p).is_string() ? meta.at(p).get<std::string>() : fallback;
}

void add_cells(std::vector<std::vector<Param>>& out, int64_t run_id, const char* file, const runner::Table& table) {
  const size_t case_col = table.column("case_id");
  for (size_t r = 0; r < table.rows.size(); ++r)
    for (size_t c = 0; c < table.columns.size(); ++c)
      out.push_back({run_id, std::string(file), static_cast<int64_t>(r), static_cast<int64_t>(c),
                     table.rows[r][case_col], table.columns[c], table.rows[r][c]});
}

runner::Table load_cells(Connection& db, int64_t run_id, const char* file) {
  const Rows q = db.query("SELECT row, col, name, value FROM cells WHERE run_id = $1 AND file = $2 ORDER BY row, col",
                          {run_id, std::string(file)});
  runner::Table t;
  for (size_t i = 0; i < q.size(); ++i) {
    const auto row = static_cast<size_t>(q.integer(i, 0));
    const auto col = static_cast<size_t>(q.integer(i, 1));
    if (row == 0) t.columns.push_back(q.text(i, 2));
    if (t.rows.size() <= row) t.rows.emplace_back();
    if (t.rows[row].size() != col) throw Error(db.name() + ": run " + std::to_string(run_id) + ": cells missing");
    t.rows[row].push_back(q.text(i, 3));
  }
  return t;
}

// The columns of runs that RunInfo reads, in its order.
constexpr const char* kRunInfoColumns = "run_id, git_commit, scenario_name, shard, started_at, machine, machine_name";

RunInfo run_info(const Rows& q, size_t r) {
  return {q.integer(r, 0), q.text(r, 1), q.text(r, 2), q.text(r, 3), q.text(r, 4), {q.text(r, 5), q.text(r, 6)}};
}

}  // namespace

History::History(const std::string& target) : db_(connect(target)) { migrate(*db_); }

int64_t History::append(const std::string& results_dir) {
  // Everything is read before the transaction starts: a bad folder writes nothing.
  const fs::path dir = fs::absolute(results_dir);
  const nlohmann::json meta = runner::read_meta_json(dir.string());
  const runner::Table samples = runner::read_csv((dir / "samples.csv").string());
  const runner::Table summary = runner::read_csv((dir / "summary.csv").string());
  const nlohmann::json fingerprint = meta.value("fingerprint", nlohmann::json::object());
  const Machine machine = machine_of(fingerprint);
  const Param finished_at = meta.contains("finished_at") && meta["finished_at"].is_string()
                                ? Param(meta["finished_at"].get<std::string>())
                                : Param(nullptr);

  Transaction t(*db_);
  const int64_t run_id =
      db_->query("INSERT INTO runs (git_commit, scenario_name, scenario_sha256, model_sha256, shard, started_at, "
                 "finished_at, stored_at, results_dir, fingerprint, meta, machine, machine_name) "
                 "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING run_id",
                 {fingerprint.value("git_commit", std::string("unknown")), string_at(meta, "/scenario/name", ""),
                  string_at(meta, "/scenario/sha256", ""), string_at(meta, "/model/sha256", ""),
                  meta.value("shard", std::string("1/1")), meta.value("started_at", std::string()), finished_at,
                  utc_now(), dir.string(), fingerprint.dump(), meta.dump(), machine.id, machine.name})
          .integer(0, 0);
  std::vector<std::vector<Param>> cells;
  add_cells(cells, run_id, "samples", samples);
  add_cells(cells, run_id, "summary", summary);
  db_->insert("cells", {"run_id", "file", "row", "col", "case_id", "name", "value"}, cells);
  t.commit();
  return run_id;
}

std::string History::commit_of(const std::string& rev) {
  if (rev.size() < 4) throw Error("'" + rev + "': give at least 4 characters of the commit");
  // Prefix match by substr, so '%' or '_' in the argument mean nothing special.
  const Rows q = db_->query(
      "SELECT DISTINCT git_commit FROM runs WHERE substr(git_commit, 1, length($1)) = $1 ORDER BY git_commit", {rev});
  if (q.empty()) throw Error(db_->name() + ": no run of commit " + rev);
  if (q.size() > 1) throw Error("'" + rev + "' names several commits (" + q.text(0, 0) + ", " + q.text(1, 0) + ", ...)");
  return q.text(0, 0);
}

int64_t History::resolve(const std::string& rev, const std::string& machine) {
  if (rev.starts_with("run:")) {
    const std::string digits = rev.substr(4);
    if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw Error("'" + rev + "': run:N takes a run number");
    const Rows q = db_->query("SELECT run_id FROM runs WHERE run_id = $1", {static_cast<int64_t>(std::stoll(digits))});
    if (q.empty()) throw Error(db_->name() + ": no run " + digits);
    return q.integer(0, 0);
  }
  const std::string commit = commit_of(rev);
  const Rows q = db_->query("SELECT max(run_id) FROM runs WHERE git_commit = $1 AND ($2 = '' OR machine = $2)",
                            {commit, machine});
  if (q.rows[0][0]) return q.integer(0, 0);
  std::string elsewhere;
  for (const auto& m : machines(commit)) elsewhere += (elsewhere.empty() ? "" : "; ") + m.name + " (" + m.id + ")";
  throw Error(db_->name() + ": no run of commit " + commit.substr(0, 12) + " on machine " + machine +
              "; it ran on: " + elsewhere);
}

History::Shards History::resolve_shards(const std::string& rev, const std::string& machine) {
  const int64_t latest = resolve(rev, machine);
  if (rev.starts_with("run:")) return {{latest}, {}};
  const Rows r = db_->query("SELECT git_commit, machine, scenario_sha256, shard FROM runs WHERE run_id = $1", {latest});
  const std::string shard = r.text(0, 3);
  const size_t slash = shard.find('/');
  const int64_t n = slash == std::string::npos ? 1 : std::atoll(shard.c_str() + slash + 1);
  if (n <= 1) return {{latest}, {}};
  Shards out;
  for (int64_t k = 1; k <= n; ++k) {
    const std::string name = std::to_string(k) + "/" + std::to_string(n);
    const Rows q = db_->query(
        "SELECT max(run_id) FROM runs WHERE git_commit = $1 AND machine = $2 AND scenario_sha256 = $3 AND shard = $4",
        {r.text(0, 0), r.text(0, 1), r.text(0, 2), name});
    if (q.rows[0][0])
      out.runs.push_back(q.integer(0, 0));
    else
      out.missing.push_back(name);
  }
  return out;
}

std::vector<Machine> History::machines(const std::string& rev) {
  const Rows q =
      rev.starts_with("run:")
          ? db_->query("SELECT machine, machine_name FROM runs WHERE run_id = $1", {resolve(rev)})
          : db_->query("SELECT machine, min(machine_name) FROM runs WHERE git_commit = $1 GROUP BY machine "
                       "ORDER BY max(run_id) DESC",
                       {commit_of(rev)});
  std::vector<Machine> out;
  for (size_t r = 0; r < q.size(); ++r) out.push_back({q.text(r, 0), q.text(r, 1)});
  return out;
}

StoredRun History::load(int64_t run_id) {
  const Rows q = db_->query("SELECT git_commit, meta, machine, machine_name FROM runs WHERE run_id = $1", {run_id});
  if (q.empty()) throw Error(db_->name() + ": no run " + std::to_string(run_id));
  StoredRun r;
  r.run_id = run_id;
  r.git_commit = q.text(0, 0);
  r.machine = {q.text(0, 2), q.text(0, 3)};
  r.meta = nlohmann::json::parse(q.text(0, 1), nullptr, false);
  if (r.meta.is_discarded()) throw Error(db_->name() + ": run " + std::to_string(run_id) + ": stored meta is not JSON");
  r.samples = load_cells(*db_, run_id, "samples");
  r.summary = load_cells(*db_, run_id, "summary");
  return r;
}

std::vector<RunInfo> History::runs(const std::string& scenario) {
  const Rows q = db_->query(std::string("SELECT ") + kRunInfoColumns +
                                " FROM runs WHERE $1 = '' OR scenario_name = $1 ORDER BY run_id",
                            {scenario});
  std::vector<RunInfo> out;
  for (size_t r = 0; r < q.size(); ++r) out.push_back(run_info(q, r));
  return out;
}

std::vector<std::string> History::summary_columns(const std::string& scenario) {
  const Rows q = db_->query(
      "SELECT c.name FROM cells c JOIN runs r USING (run_id) "
      "WHERE c.file = 'summary' AND c.row = 0 AND ($1 = '' OR r.scenario_name = $1) "
      "GROUP BY c.name ORDER BY min(c.col), c.name",
      {scenario});
  std::vector<std::string> out;
  for (size_t r = 0; r < q.size(); ++r) out.push_back(q.text(r, 0));
  return out;
}

std::vector<SummaryCell> History::summary_cells(const std::string& column, const std::string& scenario) {
  const Rows q = db_->query(
      "SELECT c.run_id, c.case_id, c.value FROM cells c JOIN runs r USING (run_id) "
      "WHERE c.file = 'summary' AND c.name = $1 AND ($2 = '' OR r.scenario_name = $2) "
      "ORDER BY c.run_id, c.row",
      {column, scenario});
  std::vector<SummaryCell> out;
  for (size_t r = 0; r < q.size(); ++r) out.push_back({q.integer(r, 0), q.text(r, 1), q.text(r, 2)});
  return out;
}

}  // namespace pdbench::resultsdb
