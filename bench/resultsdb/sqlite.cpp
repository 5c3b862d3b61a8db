#include "bench/resultsdb/sqlite.h"

#include <sqlite3.h>

#include "engine/util/error.h"

namespace pdbench::resultsdb {

namespace {

class SqliteConnection;

// One prepared statement; parameters bound by name ("$1"), so a query may
// use a parameter twice or out of order, as PostgreSQL allows.
class Statement {
 public:
  Statement(const SqliteConnection& db, const std::string& sql);
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(const std::vector<Param>& params);
  bool step();  // true: a row is ready
  std::optional<std::string> column(int index) const;
  int columns() const { return sqlite3_column_count(stmt_); }

 private:
  const SqliteConnection& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw Error(path + ": cannot open the results database: " + message);
    }
    sqlite3_busy_timeout(db_, 10000);  // another pdbench appending: wait, do not fail
    exec("PRAGMA foreign_keys = ON");
  }
  ~SqliteConnection() override { sqlite3_close(db_); }

  [[noreturn]] void fail(const std::string& what) const { throw Error(path_ + ": " + what + ": " + sqlite3_errmsg(db_)); }
  sqlite3* handle() const { return db_; }

  const std::string& name() const override { return path_; }
  const char* dialect() const override { return "sqlite"; }

  void exec(const std::string& sql) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string text = message ? message : "unknown error";
      sqlite3_free(message);
      throw Error(path_ + ": " + text + " (in: " + sql.substr(0, 60) + ")");
    }
  }

  Rows query(const std::string& sql, const std::vector<Param>& params) override {
    Statement q(*this, sql);
    q.bind(params);
    Rows out;
    while (q.step()) {
      auto& row = out.rows.emplace_back();
      for (int c = 0; c < q.columns(); ++c) row.push_back(q.column(c));
    }
    return out;
  }

  void insert(const std::string& table, const std::vector<std::string>& columns,
              const std::vector<std::vector<Param>>& rows) override {
    std::string names, values;
    for (size_t c = 0; c < columns.size(); ++c) {
      names += (c ? ", " : "") + columns[c];
      values += (c ? ", $" : "$") + std::to_string(c + 1);
    }
    Statement q(*this, "INSERT INTO " + table + " (" + names + ") VALUES (" + values + ")");
    for (const auto& row : rows) {
      q.bind(row);
      q.step();
    }
  }

  void begin() override { exec("BEGIN IMMEDIATE"); }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  void lock_schema() override {}  // BEGIN IMMEDIATE holds the file's write lock
  void unlock_schema() noexcept override {}

  int64_t schema_version() override { return query("PRAGMA user_version", {}).integer(0, 0); }
  void set_schema_version(int64_t version) override { exec("PRAGMA user_version = " + std::to_string(version)); }
  bool has_tables() override { return query("SELECT count(*) FROM sqlite_schema", {}).integer(0, 0) != 0; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

Statement::Statement(const SqliteConnection& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare '" + sql.substr(0, 60) + "'");
}

void Statement::bind(const std::vector<Param>& params) {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  for (size_t i = 0; i < params.size(); ++i) {
    const int index = sqlite3_bind_parameter_index(stmt_, ("$" + std::to_string(i + 1)).c_str());
    if (index == 0) continue;  // the query does not use it
    int rc = SQLITE_OK;
    if (const auto* text = std::get_if<std::string>(&params[i]))
      rc = sqlite3_bind_text(stmt_, index, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
    else if (const auto* value = std::get_if<int64_t>(&params[i]))
      rc = sqlite3_bind_int64(stmt_, index, *value);
    else
      rc = sqlite3_bind_null(stmt_, index);
    if (rc != SQLITE_OK) db_.fail("cannot bind parameter $" + std::to_string(i + 1));
  }
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("statement failed");
}

std::optional<std::string> Statement::column(int index) const {
  if (sqlite3_column_type(stmt_, index) == SQLITE_NULL) return std::nullopt;
  const auto* p = sqlite3_column_text(stmt_, index);
  return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

}  // namespace

std::unique_ptr<Connection> connect_sqlite(const std::string& path) { return std::make_unique<SqliteConnection>(path); }

}  // namespace pdbench::resultsdb
