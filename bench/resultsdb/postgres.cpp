#include "bench/resultsdb/postgres.h"

#include <memory>

#include <libpq-fe.h>

#include "engine/util/error.h"

namespace pdbench::resultsdb {

namespace {

// Type OIDs of pg_type, so the server never has to guess a parameter's type.
constexpr Oid kInt8Oid = 20;
constexpr Oid kTextOid = 25;

// The history's one advisory lock key: "pdbench" in ASCII, as a bigint.
constexpr const char* kSchemaLockKey = "31635571162899304";

std::string trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  // libpq's messages run over lines ("connection to server ... failed: ...").
  for (auto& c : s)
    if (c == '\n') c = ' ';
  return s;
}

// Owns one PGresult: every result libpq hands out must be cleared, the
// ones only checked for success too.
struct ClearResult {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ClearResult>;

// COPY's text format: backslash escapes for the characters that end a
// field or a row.
void append_copy_field(std::string& out, const Param& value) {
  if (std::holds_alternative<std::nullptr_t>(value)) {
    out += "\\N";
    return;
  }
  if (const auto* number = std::get_if<int64_t>(&value)) {
    out += std::to_string(*number);
    return;
  }
  for (const char c : std::get<std::string>(value)) switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
}

class PostgresConnection final : public Connection {
 public:
  explicit PostgresConnection(const std::string& url) : name_(redact_password(url)) {
    // The URL's own settings win; these are the defaults it may override.
    const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
    const char* values[] = {"10", "pdbench", url.c_str(), nullptr};
    conn_ = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const std::string message = conn_ ? trimmed(PQerrorMessage(conn_)) : "out of memory";
      PQfinish(conn_);
      throw Error(name_ + ": cannot connect to the results database: " + message);
    }
    exec("SET client_min_messages = warning");  // CREATE ... IF NOT EXISTS notices are not for the user
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  const std::string& name() const override { return name_; }
  const char* dialect() const override { return "postgresql"; }

  void exec(const std::string& sql) override { check(Result(PQexec(conn_, sql.c_str())), sql); }

  Rows query(const std::string& sql, const std::vector<Param>& params) override {
    std::vector<Oid> types;
    std::vector<std::string> texts;
    std::vector<const char*> values;
    texts.reserve(params.size());
    for (const auto& p : params) {
      if (const auto* text = std::get_if<std::string>(&p)) {
        types.push_back(kTextOid);
        texts.push_back(*text);
      } else if (const auto* number = std::get_if<int64_t>(&p)) {
        types.push_back(kInt8Oid);
        texts.push_back(std::to_string(*number));
      } else {
        types.push_back(0);
        texts.emplace_back();
      }
    }
    for (size_t i = 0; i < params.size(); ++i)
      values.push_back(std::holds_alternative<std::nullptr_t>(params[i]) ? nullptr : texts[i].c_str());
    const Result result = check(Result(PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()),
                                                    types.data(), values.data(), nullptr, nullptr, 0)),
                                sql);
    Rows out;
    const int n_rows = PQntuples(result.get()), n_cols = PQnfields(result.get());
    out.rows.resize(static_cast<size_t>(n_rows));
    for (int r = 0; r < n_rows; ++r)
      for (int c = 0; c < n_cols; ++c)
        out.rows[static_cast<size_t>(r)].push_back(
            PQgetisnull(result.get(), r, c)
                ? std::nullopt
                : std::optional<std::string>(std::string(PQgetvalue(result.get(), r, c),
                                                         static_cast<size_t>(PQgetlength(result.get(), r, c)))));
    return out;
  }

  void insert(const std::string& table, const std::vector<std::string>& columns,
              const std::vector<std::vector<Param>>& rows) override {
    std::string names;
    for (size_t c = 0; c < columns.size(); ++c) names += (c ? ", " : "") + columns[c];
    const std::string sql = "COPY " + table + " (" + names + ") FROM STDIN";
    {
      const Result started(PQexec(conn_, sql.c_str()));
      if (PQresultStatus(started.get()) != PGRES_COPY_IN) fail(sql);
    }
    std::string chunk;
    const auto flush = [&] {
      if (PQputCopyData(conn_, chunk.data(), static_cast<int>(chunk.size())) != 1) fail(sql);
      chunk.clear();
    };
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) {
        if (c) chunk += '\t';
        append_copy_field(chunk, row[c]);
      }
      chunk += '\n';
      if (chunk.size() > (1u << 20)) flush();
    }
    flush();
    if (PQputCopyEnd(conn_, nullptr) != 1) fail(sql);
    check(Result(PQgetResult(conn_)), sql);
    while (PGresult* rest = PQgetResult(conn_)) PQclear(rest);  // the COPY's end
  }

  void begin() override { exec("BEGIN"); }
  void commit() override { exec("COMMIT"); }
  void rollback() noexcept override { PQclear(PQexec(conn_, "ROLLBACK")); }
  // A session lock, not a transaction's: a backend that waited for a lock
  // inside a transaction would go on reading the catalog as cached before
  // the wait (an advisory lock does not refresh it), and miss the tables
  // the holder created.
  void lock_schema() override { exec(std::string("SELECT pg_advisory_lock(") + kSchemaLockKey + ")"); }
  void unlock_schema() noexcept override {
    PQclear(PQexec(conn_, (std::string("SELECT pg_advisory_unlock(") + kSchemaLockKey + ")").c_str()));
  }

  int64_t schema_version() override {
    if (query("SELECT to_regclass('pdbench_schema') IS NOT NULL", {}).text(0, 0) != "t") return 0;
    const Rows v = query("SELECT max(version) FROM pdbench_schema", {});
    return v.rows[0][0] ? v.integer(0, 0) : 0;
  }
  void set_schema_version(int64_t version) override {
    exec("CREATE TABLE IF NOT EXISTS pdbench_schema (version BIGINT NOT NULL)");
    exec("DELETE FROM pdbench_schema");
    query("INSERT INTO pdbench_schema (version) VALUES ($1)", {version});
  }
  bool has_tables() override {
    return query("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()", {}).integer(0, 0) != 0;
  }

 private:
  // The result when the statement succeeded; else throws with the server's message.
  Result check(Result result, const std::string& sql) {
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    const std::string message = trimmed(result ? PQresultErrorMessage(result.get()) : PQerrorMessage(conn_));
    throw Error(name_ + ": " + (message.empty() ? trimmed(PQerrorMessage(conn_)) : message) +
                " (in: " + sql.substr(0, 60) + ")");
  }
  [[noreturn]] void fail(const std::string& sql) {
    throw Error(name_ + ": " + trimmed(PQerrorMessage(conn_)) + " (in: " + sql.substr(0, 60) + ")");
  }

  std::string name_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<Connection> connect_postgres(const std::string& url) {
  return std::make_unique<PostgresConnection>(url);
}

}  // namespace pdbench::resultsdb
