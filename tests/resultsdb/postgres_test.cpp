// What only a server can do to the history: refuse a password, not be
// there, drop a connection, go away while a run is measuring, and take
// writers from several processes at once. history_test.cpp holds what
// both back ends share.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "bench/resultsdb/history.h"
#include "engine/util/error.h"
#include "tests/resultsdb/history_test_util.h"
#include "tests/support/error_of.h"
#include "tests/support/postgres_test_db.h"
#include "tests/support/test_paths.h"

namespace pdbench::resultsdb {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::exit_code;

class Postgres : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!db_.available()) GTEST_SKIP() << test::PostgresTestDb::skip_reason();
    dir_ = test::temp_dir("postgres");
  }
  size_t runs() { return static_cast<size_t>(connect(db_.url())->query("SELECT count(*) FROM runs", {}).integer(0, 0)); }
  // Ends every connection to the test's database but the admin's own.
  void drop_connections() {
    db_.admin().query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", {db_.name()});
  }
  void allow_connections(bool allow) {
    db_.admin().exec("ALTER DATABASE " + db_.name() + " ALLOW_CONNECTIONS " + (allow ? "true" : "false"));
  }

  test::PostgresTestDb db_;
  std::string dir_;
};

TEST_F(Postgres, AWrongPasswordIsAClearErrorThatHidesIt) {
  std::string url = db_.url();
  const size_t at = url.find('@');
  const size_t colon = url.rfind(':', at);
  ASSERT_NE(colon, std::string::npos) << "the test server's URL carries a password";
  url = url.substr(0, colon + 1) + "not-the-password" + url.substr(at);
  const std::string e = error_of([&] { History{url}; });
  EXPECT_NE(e.find("cannot connect to the results database"), std::string::npos) << e;
  EXPECT_NE(e.find("password authentication failed"), std::string::npos) << e;
  EXPECT_EQ(e.find("not-the-password"), std::string::npos) << e;
  EXPECT_NE(e.find(":***@"), std::string::npos) << e;
}

TEST_F(Postgres, NoServerIsAClearErrorNotAHang) {
  const auto start = std::chrono::steady_clock::now();
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  const std::string e = error_of([] { History{"postgresql://pdbench@127.0.0.1:1/none?connect_timeout=5"}; });
  EXPECT_NE(e.find("postgresql://pdbench@127.0.0.1:1/none"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot connect"), std::string::npos) << e;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));  // a bound, not a timing
  std::string log;
  EXPECT_EQ(exit_code("report --db postgresql://pdbench@127.0.0.1:1/none --history -o " + dir_ + "/h.html", &log), 1);
  EXPECT_NE(log.find("cannot connect"), std::string::npos) << log;
}

// The server ends the connection between opening and appending: the append
// fails naming the database, stores nothing, and a new connection works.
TEST_F(Postgres, ADroppedConnectionStoresNothing) {
  test::write_folder(dir_ + "/r1", "aaaa11112222");
  History h(db_.url());
  drop_connections();
  const std::string e = error_of([&] { h.append(dir_ + "/r1"); });
  EXPECT_NE(e.find(redact_password(db_.url())), std::string::npos) << e;
  EXPECT_EQ(runs(), 0u);
  EXPECT_EQ(History(db_.url()).append(dir_ + "/r1"), 1);
  EXPECT_EQ(runs(), 1u);
}

// `pdbench run --db` checks the database before measuring and stores after.
// If the database is gone by then, the run fails saying so, the folder is
// whole, and `merge FOLDER --db` stores it once the server is back.
TEST_F(Postgres, AServerGoneMidRunLosesNothingMeasured) {
  const std::string out = dir_ + "/run";
  const std::string command = std::string(PDBENCH_BIN) + " run -m " + test::model_path("stories260K.gguf") +
                              " -p 4 -n 16 -r 5 --warmup-max 1 --test-decode-delay-us 20000 --db " + db_.url() +
                              " -o " + out + " 2>&1";
  FILE* run = popen(command.c_str(), "r");
  ASSERT_NE(run, nullptr);
  // meta.json is written as measuring starts, after the database was checked.
  for (int i = 0; i < 3000 && !fs::exists(out + "/meta.json"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  allow_connections(false);
  drop_connections();
  std::string log;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, run)) > 0;) log.append(buf, n);
  const int status = pclose(run);
  allow_connections(true);
  ASSERT_TRUE(fs::exists(out + "/meta.json")) << log;
  EXPECT_NE(status, 0) << log;
  EXPECT_NE(log.find("not currently accepting connections"), std::string::npos) << log;
  EXPECT_NE(log.find("are whole; store them later with: pdbench merge " + out + " --db"), std::string::npos) << log;
  EXPECT_EQ(runs(), 0u);
  EXPECT_EQ(runner::read_csv(out + "/samples.csv").rows.size(), 5u);
  log.clear();
  ASSERT_EQ(exit_code("merge " + out + " --db " + db_.url(), &log), 0) << log;
  EXPECT_EQ(runs(), 1u);
  EXPECT_EQ(History(db_.url()).load(1).samples.rows, runner::read_csv(out + "/samples.csv").rows);
}

// Several pdbench processes storing at once into a database none has used
// yet: one creates the schema, all runs arrive, none twice.
TEST_F(Postgres, WritersInSeveralProcessesAtOnce) {
  test::write_folder(dir_ + "/r1", "aaaa11112222");
  constexpr int kWriters = 4;
  std::vector<FILE*> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.push_back(popen((std::string(PDBENCH_BIN) + " merge " + dir_ + "/r1 --db " + db_.url() + " 2>&1").c_str(), "r"));
  for (FILE* w : writers) {
    ASSERT_NE(w, nullptr);
    std::string log;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, w)) > 0;) log.append(buf, n);
    EXPECT_EQ(pclose(w), 0) << log;
  }
  History h(db_.url());
  const std::vector<RunInfo> stored = h.runs("");
  ASSERT_EQ(stored.size(), static_cast<size_t>(kWriters));
  for (size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(stored[i].run_id, static_cast<int64_t>(i + 1));
  EXPECT_EQ(connect(db_.url())->query("SELECT version FROM pdbench_schema", {}).size(), 1u);
}

}  // namespace
}  // namespace pdbench::resultsdb
