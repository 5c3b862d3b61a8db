#include "bench/runner/merge.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "bench/runner/accuracy_run.h"
#include "bench/runner/meta_json.h"
#include "bench/runner/results.h"
#include "bench/runner/sweep.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

namespace fs = std::filesystem;

// A sort key cell: a count, as pdbench writes them. Anything else is a
// damaged file and an Error (std::stod threw std::invalid_argument here;
// found by fuzzing).
size_t count_cell(const Table& t, const std::vector<std::string>& row, size_t column) {
  const std::string& cell = row[column];
  size_t v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc{} || end != cell.data() + cell.size())
    throw Error("merge: column '" + t.columns[column] + "' holds '" + cell + "', not a count");
  return v;
}

// Rows in case order, then repetition (then step), whatever shard they came from.
void sort_rows(Table& t, const std::vector<std::string>& keys) {
  std::vector<size_t> cols;
  for (const auto& k : keys) cols.push_back(t.column(k));
  for (const auto& row : t.rows)
    for (size_t c : cols) count_cell(t, row, c);  // checked before sorting, so the comparator never throws
  std::stable_sort(t.rows.begin(), t.rows.end(), [&](const auto& a, const auto& b) {
    for (size_t c : cols) {
      const size_t x = count_cell(t, a, c), y = count_cell(t, b, c);
      if (x != y) return x < y;
    }
    return false;
  });
}

// The inputs are all the shards of one split, each once: 1/n .. n/n (a
// whole run is 1/1). A merge of 1/2 alone would otherwise be written out
// as a complete run.
void require_every_shard(const std::vector<std::string>& dirs, const std::vector<nlohmann::json>& metas) {
  std::set<size_t> given;
  size_t n = 0;
  for (size_t i = 0; i < dirs.size(); ++i) {
    const nlohmann::json& shard = metas[i].contains("shard") ? metas[i]["shard"] : nlohmann::json("1/1");
    Shard s;
    try {
      s = parse_shard(shard.is_string() ? shard.get<std::string>() : shard.dump());
    } catch (const Error&) {
      fail_file((fs::path(dirs[i]) / "meta.json").string(),
                "shard is " + shard.dump() + ", not k/n: merge the shards' own folders");
    }
    if (n != 0 && s.n != n)
      throw Error("merge: " + dirs[i] + " is shard " + std::to_string(s.k) + "/" + std::to_string(s.n) + ", " +
                  dirs.front() + " one of " + std::to_string(n));
    n = s.n;
    given.insert(s.k);
  }
  std::string missing;
  for (size_t k = 1; k <= n; ++k)
    if (!given.contains(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(n);
  if (!missing.empty()) throw Error("merge: shard " + missing + " missing; the merged results would look complete");
}

// The shards' accuracy.csv rows, one per configuration and path: a shard
// scores the configurations of its own cases, and one that two shards
// share is scored alike by both, so the first shard's row stands.
class MergedAccuracy {
 public:
  void add(const std::string& dir) {
    const std::optional<Table> shard = read_accuracy(dir);
    if (!shard) return;
    if (!table_) table_ = Table{accuracy_columns(), {}};
    for (const auto& row : shard->rows) {
      std::vector<std::string> key;
      for (const std::string& column : accuracy_key_columns()) key.push_back(row[shard->column(column)]);
      if (scored_.insert(key).second) table_->rows.push_back(row);
    }
  }
  void write(const std::string& out) const {
    if (table_) write_accuracy(out, *table_);
  }

 private:
  std::optional<Table> table_;
  std::set<std::vector<std::string>> scored_;
};

// Other processes' CPUs during the measurements (before them when not measured).
bool busier(const nlohmann::json& a, const nlohmann::json& b) {
  const auto other = [](const nlohmann::json& load) {
    const nlohmann::json& during = load.value("during", nlohmann::json());
    const nlohmann::json& before = load.value("before", nlohmann::json::object());
    return during.is_object() ? during.value("other_cpus", 0.0) : before.value("other_cpus", 0.0);
  };
  return other(a) > other(b);
}

}  // namespace

void merge_results(const std::string& out, const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw Error("merge: name at least one results folder to merge");
  if (fs::exists(fs::path(out) / "meta.json")) throw Error(out + ": already holds results; merge into a new folder");
  std::vector<nlohmann::json> metas;
  for (const auto& dir : inputs) metas.push_back(read_meta_json(dir));
  require_every_shard(inputs, metas);
  nlohmann::json meta = metas.front();
  const std::string hash = meta.value("/scenario/sha256"_json_pointer, std::string());
  Results merged = empty_results();
  std::set<std::pair<std::string, std::string>> seen;  // (case_id, rep)
  size_t cases = 0;
  bool finished = true;
  std::string last_finish;  // ISO 8601 UTC strings order as times
  nlohmann::json shards = nlohmann::json::array();
  MergedAccuracy accuracy;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& dir = inputs[i];
    const nlohmann::json& m = metas[i];
    if (m.value("/scenario/sha256"_json_pointer, std::string()) != hash)
      throw Error("merge: " + dir + " ran a different scenario than " + inputs.front());
    const Results r = load_results(dir);
    for (const auto& row : r.samples.rows)
      if (!seen.insert({row[r.samples.column("case_id")], row[r.samples.column("rep")]}).second)
        throw Error("merge: " + dir + " repeats case " + row[r.samples.column("case_id")] + " repetition " +
                    row[r.samples.column("rep")] + " (the same shard twice?)");
    merged.samples.rows.insert(merged.samples.rows.end(), r.samples.rows.begin(), r.samples.rows.end());
    for (const IndexedTable& t : kIndexedTables) {
      auto& rows = (merged.*t.table).rows;
      rows.insert(rows.end(), (r.*t.table).rows.begin(), (r.*t.table).rows.end());
    }
    accuracy.add(dir);
    cases += m.value("cases", size_t{0});
    finished = finished && m.contains("finished_at") && !m["finished_at"].is_null();
    if (m.value("started_at", std::string()) < meta.value("started_at", std::string())) meta["started_at"] = m["started_at"];
    // The shards' busiest machine qualifies the merged figures.
    if (m.contains("machine_load") &&
        (!meta.contains("machine_load") || busier(m["machine_load"], meta["machine_load"])))
      meta["machine_load"] = m["machine_load"];
    if (finished) last_finish = std::max(last_finish, m["finished_at"].get<std::string>());
    shards.push_back({{"folder", dir}, {"shard", m.value("shard", std::string())}});
  }
  meta["finished_at"] = finished ? nlohmann::json(last_finish) : nlohmann::json(nullptr);
  sort_rows(merged.samples, {"case_index", "rep"});
  sort_rows(merged.steps, {"case_index", "rep", "step"});
  sort_rows(merged.ops, {"case_index", "rep"});
  sort_rows(merged.requests, {"case_index", "rep", "request"});
  sort_rows(merged.batch_steps, {"case_index", "rep", "step"});
  meta["cases"] = cases;
  meta["shard"] = "merged";
  meta["merged_from"] = shards;
  fs::create_directories(out);
  write_results(out, merged);
  accuracy.write(out);
  write_file_atomic((fs::path(out) / "meta.json").string(), meta.dump(2) + "\n");
}

}  // namespace pdbench::runner
