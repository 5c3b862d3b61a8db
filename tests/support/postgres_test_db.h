#pragma once
// A database of its own for one test on the throwaway PostgreSQL server
// that scripts/test.sh starts (scripts/postgres-test-server.sh) and names
// in PDBENCH_TEST_POSTGRES_URL; dropped when the test ends. Without that
// variable the test skips, saying so. Header-only: the test binaries that
// use it link pdbench_resultsdb.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "bench/resultsdb/connection.h"

namespace pdbench::test {

class PostgresTestDb {
 public:
  static constexpr const char* kUrlVariable = "PDBENCH_TEST_POSTGRES_URL";

  // The server's URL, or "" when no server was started for the tests.
  static std::string server_url() {
    const char* url = std::getenv(kUrlVariable);
    return url ? url : "";
  }

  // Call from SetUp, then GTEST_SKIP() when !available().
  PostgresTestDb() {
    server_ = server_url();
    if (server_.empty()) return;
    static int created = 0;
    name_ = "pdbench_test_" + std::to_string(getpid()) + "_" + std::to_string(++created);
    admin_ = resultsdb::connect(server_);
    admin_->exec("CREATE DATABASE " + name_);
    url_ = with_database(server_, name_);
  }
  ~PostgresTestDb() {
    if (admin_) admin_->exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  }
  PostgresTestDb(const PostgresTestDb&) = delete;
  PostgresTestDb& operator=(const PostgresTestDb&) = delete;

  bool available() const { return !url_.empty(); }
  static std::string skip_reason() {
    return std::string(kUrlVariable) + " is not set: scripts/test.sh starts a PostgreSQL server for these tests";
  }
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }
  resultsdb::Connection& admin() { return *admin_; }  // on the server's own database

  // `url` naming database `db` instead of its own.
  static std::string with_database(const std::string& url, const std::string& db) {
    const size_t host = url.find("://") + 3;
    const size_t slash = url.find('/', host);
    const size_t query = url.find('?', host);
    const std::string tail = query == std::string::npos ? "" : url.substr(query);
    return url.substr(0, slash == std::string::npos ? query : slash) + "/" + db + tail;
  }

 private:
  std::string server_, name_, url_;
  std::unique_ptr<resultsdb::Connection> admin_;
};

}  // namespace pdbench::test
