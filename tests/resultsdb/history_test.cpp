// The results history on both back ends, SQLite and PostgreSQL, held to
// the same behaviour: a results folder in and out unchanged, runs found by
// commit, machine or run id, a failed append leaving nothing, writers at
// once losing nothing, and the `pdbench run --db` / `compare --db` /
// `merge --db` round trips. PostgreSQL-only cases (connection errors, a
// server going away) are in postgres_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "bench/resultsdb/history.h"
#include "bench/runner/csv_table.h"
#include "engine/util/error.h"
#include "tests/compare/compare_test_util.h"
#include "tests/resultsdb/history_test_util.h"
#include "tests/support/postgres_test_db.h"
#include "tests/support/test_paths.h"

namespace pdbench::resultsdb {
namespace {

namespace fs = std::filesystem;
using test::exit_code;
using test::write_folder;

size_t run_count(const std::string& db) {
  return static_cast<size_t>(connect(db)->query("SELECT count(*) FROM runs", {}).integer(0, 0));
}

// Each test gets an empty history of the back end its parameter names.
class History_ : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = test::temp_dir("history");
    if (GetParam() == "sqlite") {
      db_ = dir_ + "/h.sqlite";
      return;
    }
    postgres_ = std::make_unique<test::PostgresTestDb>();
    if (!postgres_->available()) GTEST_SKIP() << test::PostgresTestDb::skip_reason();
    db_ = postgres_->url();
  }
  std::string dir_, db_;
  std::unique_ptr<test::PostgresTestDb> postgres_;
};

INSTANTIATE_TEST_SUITE_P(Backends, History_, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& param_info) { return param_info.param; });

TEST_P(History_, RoundTrip) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  History h(db_);
  const int64_t id = h.append(dir_ + "/r1");
  EXPECT_EQ(id, 1);
  const StoredRun back = History(db_).load(id);  // a fresh connection
  const runner::Table samples = runner::read_csv(dir_ + "/r1/samples.csv");
  const runner::Table summary = runner::read_csv(dir_ + "/r1/summary.csv");
  EXPECT_EQ(back.samples.columns, samples.columns);
  EXPECT_EQ(back.samples.rows, samples.rows);
  EXPECT_EQ(back.summary.columns, summary.columns);
  EXPECT_EQ(back.summary.rows, summary.rows);
  std::ifstream in(dir_ + "/r1/meta.json");
  EXPECT_EQ(back.meta, nlohmann::json::parse(in));
  EXPECT_EQ(back.git_commit, "aaaa11112222");
  EXPECT_EQ(back.machine.name, "Test CPU, 8 CPUs, 16 GiB");
  EXPECT_EQ(back.machine.id.size(), 12u);
  // The documented query shape: one metric of one case over runs.
  const Rows q = connect(db_)->query(
      "SELECT r.git_commit, c.value FROM runs r JOIN cells c USING (run_id) "
      "WHERE c.file = 'summary' AND c.name = 'decode_median_ms' AND c.case_id = 'a'",
      {});
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q.text(0, 0), "aaaa11112222");
  EXPECT_EQ(q.text(0, 1), "1");
}

// Tabs, newlines, backslashes and quotes survive both back ends' bulk paths
// (PostgreSQL's COPY escapes them).
TEST_P(History_, CellsKeepEveryCharacter) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  runner::Table summary = runner::read_csv(dir_ + "/r1/summary.csv");
  summary.rows[0][1] = "tab\there\nnew line \\N back\\slash \"quoted\" \r end, é";
  runner::write_csv(dir_ + "/r1/summary.csv", summary);
  History h(db_);
  EXPECT_EQ(h.load(h.append(dir_ + "/r1")).summary.rows, summary.rows);
}

TEST_P(History_, ResolvesCommitsAndRunIds) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  write_folder(dir_ + "/r2", "bbbb33334444");
  write_folder(dir_ + "/r3", "aaaa55556666");
  History h(db_);
  EXPECT_EQ(h.append(dir_ + "/r1"), 1);
  EXPECT_EQ(h.append(dir_ + "/r2"), 2);
  EXPECT_EQ(h.append(dir_ + "/r1"), 3);  // the same commit again: the latest wins
  EXPECT_EQ(h.append(dir_ + "/r3"), 4);
  EXPECT_EQ(h.resolve("aaaa1111"), 3);
  EXPECT_EQ(h.resolve("bbbb33334444"), 2);
  EXPECT_EQ(h.resolve("run:1"), 1);
  EXPECT_THROW(h.resolve("aaaa"), Error);  // two commits
  EXPECT_THROW(h.resolve("cccc"), Error);
  EXPECT_THROW(h.resolve("run:9"), Error);
  EXPECT_THROW(h.resolve("run:x"), Error);
  EXPECT_THROW(h.resolve("run:99999999999999999999"), Error);
  EXPECT_THROW(h.resolve("aa"), Error);
  EXPECT_THROW(h.resolve("aa%%"), Error);  // no LIKE wildcards
}

TEST_P(History_, RunsAreFoundPerMachine) {
  write_folder(dir_ + "/x1", "aaaa11112222", "CPU X");
  write_folder(dir_ + "/y1", "aaaa11112222", "CPU Y");
  write_folder(dir_ + "/x2", "bbbb33334444", "CPU X");
  History h(db_);
  h.append(dir_ + "/x1");  // run 1
  h.append(dir_ + "/y1");  // 2
  h.append(dir_ + "/x2");  // 3
  const std::vector<Machine> a = h.machines("aaaa1111");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].name, "CPU Y, 8 CPUs, 16 GiB");  // its latest run first
  EXPECT_EQ(a[1].name, "CPU X, 8 CPUs, 16 GiB");
  EXPECT_NE(a[0].id, a[1].id);
  EXPECT_EQ(h.resolve("aaaa1111"), 2);
  EXPECT_EQ(h.resolve("aaaa1111", a[1].id), 1);
  EXPECT_EQ(h.resolve("bbbb3333", a[1].id), 3);
  try {
    h.resolve("bbbb3333", a[0].id);
    ADD_FAILURE() << "commit bbbb never ran on CPU Y";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("it ran on: CPU X, 8 CPUs, 16 GiB"), std::string::npos) << e.what();
  }
  ASSERT_EQ(h.machines("run:2").size(), 1u);
  EXPECT_EQ(h.machines("run:2")[0].id, a[0].id);
  EXPECT_EQ(h.runs("")[1].machine.id, a[0].id);
}

TEST_P(History_, FailedAppendStoresNothing) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  fs::remove(dir_ + "/r1/summary.csv");
  History h(db_);
  EXPECT_THROW(h.append(dir_ + "/r1"), Error);
  EXPECT_THROW(h.append(dir_ + "/nowhere"), Error);
  EXPECT_EQ(run_count(db_), 0u);
}

TEST_P(History_, RefusesOtherDatabases) {
  connect(db_)->exec("CREATE TABLE t (x INTEGER)");
  EXPECT_THROW(History{db_}, Error);
}

// Writers at once, each on its own connection, from the first use of an
// empty database: the schema is created once, and every run arrives whole
// under its own id.
TEST_P(History_, ConcurrentWritersLoseNothing) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  constexpr int kWriters = 4, kRunsEach = 3;
  std::vector<std::thread> writers;
  std::vector<std::string> errors(kWriters);
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      try {
        History h(db_);
        for (int i = 0; i < kRunsEach; ++i) h.append(dir_ + "/r1");
      } catch (const std::exception& e) {
        errors[w] = e.what();
      }
    });
  for (auto& t : writers) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  History h(db_);
  const std::vector<RunInfo> runs = h.runs("");
  ASSERT_EQ(runs.size(), static_cast<size_t>(kWriters * kRunsEach));
  const runner::Table samples = runner::read_csv(dir_ + "/r1/samples.csv");
  for (const auto& r : runs) EXPECT_EQ(h.load(r.run_id).samples.rows, samples.rows) << "run " << r.run_id;
}

TEST_P(History_, RunAndCompareThroughTheCli) {
  const std::string common =
      " -m " + test::model_path("stories260K.gguf") + " -p 4 -n 4 -r 9 --warmup-max 1 --db " + db_ + " -o ";
  ASSERT_EQ(exit_code("run" + common + dir_ + "/a"), 0);
  ASSERT_EQ(exit_code("run" + common + dir_ + "/b --test-decode-delay-us 20000"), 0);
  EXPECT_EQ(run_count(db_), 2u);
  EXPECT_EQ(History(db_).load(2).samples.rows, runner::read_csv(dir_ + "/b/samples.csv").rows);
  // 20 ms per step against well under 1 ms: regressed.
  std::string log;
  EXPECT_EQ(exit_code("compare --db " + db_ + " run:1 run:2", &log), 1) << log;
  EXPECT_EQ(exit_code("compare --db " + db_ + " run:1 run:1"), 0);
  EXPECT_EQ(exit_code("compare --db " + db_ + " run:1 run:7"), 2);
}

// Two commits on two machines: by default the new commit's machine, both
// sides from it; --machine picks one; --across-machines compares each
// machine that ran both and says which ran one.
TEST_P(History_, CompareStaysOnOneMachine) {
  write_folder(dir_ + "/x1", "aaaa11112222", "CPU X");
  write_folder(dir_ + "/y1", "aaaa11112222", "CPU Y");
  write_folder(dir_ + "/x2", "bbbb33334444", "CPU X");
  write_folder(dir_ + "/y2", "bbbb33334444", "CPU Y");
  write_folder(dir_ + "/z2", "bbbb33334444", "CPU Z");
  History h(db_);
  for (const char* r : {"x1", "y1", "x2", "y2", "z2"}) h.append(dir_ + "/" + r);
  const std::string x = h.machines("run:1")[0].id;
  std::string log;
  // The new commit last ran on CPU Z, which never ran the base.
  EXPECT_EQ(exit_code("compare --db " + db_ + " aaaa1111 bbbb3333", &log), 2);
  EXPECT_NE(log.find("no run of commit aaaa11112222 on machine"), std::string::npos) << log;
  log.clear();
  EXPECT_EQ(exit_code("compare --db " + db_ + " aaaa1111 bbbb3333 --machine " + x, &log), 0) << log;
  EXPECT_NE(log.find("run 1 (aaaa11112222)"), std::string::npos) << log;
  EXPECT_NE(log.find("run 3 (bbbb33334444)"), std::string::npos) << log;
  log.clear();
  EXPECT_EQ(exit_code("compare --db " + db_ + " aaaa1111 bbbb3333 --across-machines --md " + dir_ + "/fleet.md", &log),
            0)
      << log;
  EXPECT_NE(log.find("== machine CPU X, 8 CPUs, 16 GiB"), std::string::npos) << log;
  EXPECT_NE(log.find("== machine CPU Y, 8 CPUs, 16 GiB"), std::string::npos) << log;
  EXPECT_NE(log.find("CPU Z, 8 CPUs, 16 GiB (" ), std::string::npos) << log;
  EXPECT_NE(log.find("ran only the new commit"), std::string::npos) << log;
  EXPECT_NE(test::read_file(dir_ + "/fleet.md").find("## Machine CPU Y"), std::string::npos);
  EXPECT_EQ(exit_code("compare --db " + db_ + " run:1 bbbb3333 --across-machines"), 2);
  EXPECT_EQ(exit_code("compare " + dir_ + "/x1 " + dir_ + "/x2 --machine " + x), 2);  // folders have no machine flag
}

// Shards of one suite, run on several runners of one machine type, store
// separately; a commit's measurement is the latest run of each shard.
TEST_P(History_, ACommitsShardsMakeItsMeasurement) {
  for (const char* shard : {"1/2", "2/2"}) {
    const std::string dir = dir_ + "/s" + std::string(1, shard[0]);
    write_folder(dir, "aaaa11112222");
    nlohmann::json meta = nlohmann::json::parse(test::read_file(dir + "/meta.json"));
    meta["shard"] = shard;
    std::ofstream(dir + "/meta.json") << meta.dump();
  }
  History h(db_);
  h.append(dir_ + "/s1");  // 1
  h.append(dir_ + "/s2");  // 2
  h.append(dir_ + "/s1");  // 3: shard 1 again, the later one counts
  const History::Shards both = h.resolve_shards("aaaa1111");
  EXPECT_EQ(both.runs, (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(both.missing.empty());
  EXPECT_EQ(h.resolve_shards("run:2").runs, (std::vector<int64_t>{2}));
  std::string log;
  EXPECT_EQ(exit_code("compare --db " + db_ + " aaaa1111 aaaa1111", &log), 0) << log;
  EXPECT_NE(log.find("runs 3+2 (aaaa11112222)"), std::string::npos) << log;
}

// CI's shards land in the history: merge appends the merged folder, or
// stores one finished folder as it is.
TEST_P(History_, MergeAppendsTheMergedFolder) {
  const std::string common = " -m " + test::model_path("stories260K.gguf") + " -p 4,8 -n 4 -r 3 --warmup-max 1 -o ";
  ASSERT_EQ(exit_code("run" + common + dir_ + "/s1 --shard 1/2"), 0);
  ASSERT_EQ(exit_code("run" + common + dir_ + "/s2 --shard 2/2"), 0);
  std::string log;
  ASSERT_EQ(exit_code("merge " + dir_ + "/all " + dir_ + "/s1 " + dir_ + "/s2 --db " + db_, &log), 0) << log;
  History h(db_);
  std::vector<RunInfo> runs = h.runs("");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].shard, "merged");
  const StoredRun back = h.load(runs[0].run_id);
  EXPECT_EQ(back.summary.rows, runner::read_csv(dir_ + "/all/summary.csv").rows);
  EXPECT_EQ(back.summary.rows.size(), 2u);
  EXPECT_EQ(back.samples.rows, runner::read_csv(dir_ + "/all/samples.csv").rows);
  // A merge that fails stores nothing.
  EXPECT_NE(exit_code("merge " + dir_ + "/again " + dir_ + "/s1 " + dir_ + "/s1 --db " + db_), 0);
  EXPECT_EQ(run_count(db_), 1u);
  // One folder, no shards: stored as it is.
  ASSERT_EQ(exit_code("merge " + dir_ + "/s1 --db " + db_, &log), 0) << log;
  runs = h.runs("");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].shard, "1/2");
  EXPECT_NE(exit_code("merge " + dir_ + "/s1"), 0);  // neither shards nor --db
}

// A history from before runs recorded their machine (schema version 1) is
// migrated when a newer pdbench opens it: every run gets the machine its
// fingerprint names, and the cells stay as they were.
TEST(HistoryMigration, Version1GetsItsMachines) {
  const std::string db = test::temp_dir("migration") + "/v1.sqlite";
  connect(db)->exec(test::read_file(test::data_path("resultsdb/history-v1.sql")));
  History h(db);
  const std::vector<RunInfo> runs = h.runs("");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].machine.name, "Test CPU, 8 CPUs, 16 GiB");
  EXPECT_EQ(h.load(1).summary.rows, (std::vector<std::vector<std::string>>{{"a", "1.5"}}));
  EXPECT_EQ(connect(db)->query("PRAGMA user_version", {}).integer(0, 0), 2);
  // A run stored now from the same machine is on the same machine.
  const std::string folder = test::temp_dir("migration") + "/r";
  test::write_folder(folder, "bbbb33334444");
  EXPECT_EQ(h.load(h.append(folder)).machine.id, runs[0].machine.id);
}

}  // namespace
}  // namespace pdbench::resultsdb
