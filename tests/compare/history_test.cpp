// The SQLite results history: a results folder in and out unchanged, runs
// found by commit or run id, a failed append leaving nothing, and the
// `pdbench run --db` / `pdbench compare --db` and `pdbench merge --db` round trips.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bench/resultsdb/history.h"
#include "bench/runner/csv_table.h"
#include "engine/util/error.h"
#include "tests/compare/compare_test_util.h"
#include "tests/support/test_paths.h"

namespace pdbench::resultsdb {
namespace {

namespace fs = std::filesystem;

// A results folder with samples.csv, summary.csv and meta.json of commit `commit`.
void write_folder(const std::string& dir, const std::string& commit) {
  fs::create_directories(dir);
  compare::RunData run = compare::fixture::make_run("x", {{"decode_ms", compare::fixture::kQuiet}}, {"a", "b,with \"quotes\""});
  run.meta["fingerprint"]["git_commit"] = commit;
  run.meta["started_at"] = "2024-01-01T00:00:00Z";
  run.meta["finished_at"] = nullptr;
  runner::write_csv(dir + "/samples.csv", run.samples);
  runner::Table summary{{"case_id", "samples", "decode_median_ms"}, {{"a", "9", "1"}, {"b,with \"quotes\"", "9", ""}}};
  runner::write_csv(dir + "/summary.csv", summary);
  std::ofstream(dir + "/meta.json") << run.meta.dump(2);
}

size_t run_count(const std::string& db) {
  Database d(db);
  Statement q(d, "SELECT count(*) FROM runs");
  q.step();
  return static_cast<size_t>(q.integer(0));
}

class History_ : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("history"); }
  std::string dir_;
};

TEST_F(History_, RoundTrip) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  History h(dir_ + "/h.sqlite");
  const int64_t id = h.append(dir_ + "/r1");
  EXPECT_EQ(id, 1);
  const StoredRun back = History(dir_ + "/h.sqlite").load(id);  // a fresh connection
  const runner::Table samples = runner::read_csv(dir_ + "/r1/samples.csv");
  const runner::Table summary = runner::read_csv(dir_ + "/r1/summary.csv");
  EXPECT_EQ(back.samples.columns, samples.columns);
  EXPECT_EQ(back.samples.rows, samples.rows);
  EXPECT_EQ(back.summary.columns, summary.columns);
  EXPECT_EQ(back.summary.rows, summary.rows);
  std::ifstream in(dir_ + "/r1/meta.json");
  EXPECT_EQ(back.meta, nlohmann::json::parse(in));
  EXPECT_EQ(back.git_commit, "aaaa11112222");
  // The documented query shape: one metric of one case over runs.
  Database d(dir_ + "/h.sqlite");
  Statement q(d,
              "SELECT r.git_commit, c.value FROM runs r JOIN cells c USING (run_id) "
              "WHERE c.file = 'summary' AND c.name = 'decode_median_ms' AND c.case_id = 'a'");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.text(0), "aaaa11112222");
  EXPECT_EQ(q.text(1), "1");
}

TEST_F(History_, ResolvesCommitsAndRunIds) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  write_folder(dir_ + "/r2", "bbbb33334444");
  write_folder(dir_ + "/r3", "aaaa55556666");
  History h(dir_ + "/h.sqlite");
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
  EXPECT_THROW(h.resolve("aa"), Error);
  EXPECT_THROW(h.resolve("aa%%"), Error);  // no LIKE wildcards
}

TEST_F(History_, FailedAppendStoresNothing) {
  write_folder(dir_ + "/r1", "aaaa11112222");
  fs::remove(dir_ + "/r1/summary.csv");
  History h(dir_ + "/h.sqlite");
  EXPECT_THROW(h.append(dir_ + "/r1"), Error);
  EXPECT_THROW(h.append(dir_ + "/nowhere"), Error);
  EXPECT_EQ(run_count(dir_ + "/h.sqlite"), 0u);
}

TEST_F(History_, RefusesOtherDatabases) {
  {
    Database d(dir_ + "/other.sqlite");
    d.exec("CREATE TABLE t (x)");
  }
  EXPECT_THROW(History(dir_ + "/other.sqlite"), Error);
  {
    Database d(dir_ + "/future.sqlite");
    d.exec("PRAGMA user_version = 99");
  }
  EXPECT_THROW(History(dir_ + "/future.sqlite"), Error);
}

// The exit code of `pdbench ARGS`; its output goes to `log` for failure messages.
int exit_code(const std::string& args, std::string* log = nullptr) {
  FILE* pipe = popen((std::string(PDBENCH_BIN) + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
    if (log) log->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(History_, RunAndCompareThroughTheCli) {
  const std::string db = dir_ + "/h.sqlite";
  const std::string common = " -m " + test::model_path("stories260K.gguf") + " -p 4 -n 4 -r 9 --warmup-max 1 --db " + db + " -o ";
  ASSERT_EQ(exit_code("run" + common + dir_ + "/a"), 0);
  ASSERT_EQ(exit_code("run" + common + dir_ + "/b --test-decode-delay-us 20000"), 0);
  EXPECT_EQ(run_count(db), 2u);
  EXPECT_EQ(History(db).load(2).samples.rows, runner::read_csv(dir_ + "/b/samples.csv").rows);
  // 20 ms per step against well under 1 ms: regressed.
  std::string log;
  EXPECT_EQ(exit_code("compare --db " + db + " run:1 run:2", &log), 1) << log;
  EXPECT_EQ(exit_code("compare --db " + db + " run:1 run:1"), 0);
  EXPECT_EQ(exit_code("compare --db " + db + " run:1 run:7"), 2);
}

// CI's shards land in the history: merge appends the merged folder.
TEST_F(History_, MergeAppendsTheMergedFolder) {
  const std::string db = dir_ + "/h.sqlite";
  const std::string common = " -m " + test::model_path("stories260K.gguf") + " -p 4,8 -n 4 -r 3 --warmup-max 1 -o ";
  ASSERT_EQ(exit_code("run" + common + dir_ + "/s1 --shard 1/2"), 0);
  ASSERT_EQ(exit_code("run" + common + dir_ + "/s2 --shard 2/2"), 0);
  std::string log;
  ASSERT_EQ(exit_code("merge " + dir_ + "/all " + dir_ + "/s1 " + dir_ + "/s2 --db " + db, &log), 0) << log;
  History h(db);
  const std::vector<RunInfo> runs = h.runs("");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].shard, "merged");
  const StoredRun back = h.load(runs[0].run_id);
  EXPECT_EQ(back.summary.rows, runner::read_csv(dir_ + "/all/summary.csv").rows);
  EXPECT_EQ(back.summary.rows.size(), 2u);
  EXPECT_EQ(back.samples.rows, runner::read_csv(dir_ + "/all/samples.csv").rows);
  // A merge that fails stores nothing.
  EXPECT_NE(exit_code("merge " + dir_ + "/again " + dir_ + "/s1 " + dir_ + "/s1 --db " + db), 0);
  EXPECT_EQ(run_count(db), 1u);
}

}  // namespace
}  // namespace pdbench::resultsdb
