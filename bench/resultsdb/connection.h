#pragma once
// One connection to a results database, SQLite file or PostgreSQL server:
// the history (history.h) speaks SQL both understand, with $1, $2, ...
// parameters, through this interface. Every failure throws pdbench::Error
// naming the database (the file, or the URL without its password) and the
// back end's message.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pdbench::resultsdb {

// A value bound to a $N parameter; text is bound as text, never parsed.
using Param = std::variant<std::nullptr_t, int64_t, std::string>;

// A query's result, read whole (the history's queries return a run's cells
// at most).
struct Rows {
  std::vector<std::vector<std::optional<std::string>>> rows;

  size_t size() const { return rows.size(); }
  bool empty() const { return rows.empty(); }
  std::string text(size_t row, size_t col) const;  // "" for NULL
  int64_t integer(size_t row, size_t col) const;   // throws unless an integer
};

class Connection {
 public:
  virtual ~Connection() = default;

  // The database as messages name it.
  virtual const std::string& name() const = 0;
  // "sqlite" or "postgresql": what the schema's few dialect words follow.
  virtual const char* dialect() const = 0;

  // Statements without parameters or results (a schema, a migration).
  virtual void exec(const std::string& sql) = 0;
  virtual Rows query(const std::string& sql, const std::vector<Param>& params) = 0;
  // Appends rows to a table: one prepared statement on SQLite, COPY on
  // PostgreSQL (a run's cells are tens of thousands of rows).
  virtual void insert(const std::string& table, const std::vector<std::string>& columns,
                      const std::vector<std::vector<Param>>& rows) = 0;

  // A transaction that takes the write lock at once: a writer waits for
  // another writer rather than failing mid-way.
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // Outside a transaction: waits until no other connection is creating or
  // migrating the schema, and keeps them waiting until unlock_schema()
  // (SQLite: nothing; BEGIN IMMEDIATE's write lock does it). Taken before
  // the transaction, so the transaction starts with the catalog the last
  // holder committed.
  virtual void lock_schema() = 0;
  virtual void unlock_schema() noexcept = 0;

  // The schema version stored in the database (0: none yet), and whether it
  // holds tables that are not the history's.
  virtual int64_t schema_version() = 0;
  virtual void set_schema_version(int64_t version) = 0;
  virtual bool has_tables() = 0;
};

// True for postgresql:// and postgres:// URLs (libpq's connection URIs).
bool is_postgres_url(const std::string& target);
// The target with a URL's password replaced by "***", for messages.
std::string redact_password(const std::string& target);
// A connection to `target`: a PostgreSQL URL, else an SQLite file (created
// when missing).
std::unique_ptr<Connection> connect(const std::string& target);

// Rolled back by the destructor unless commit() ran.
class Transaction {
 public:
  explicit Transaction(Connection& db) : db_(db) { db_.begin(); }
  ~Transaction() {
    if (!done_) db_.rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    db_.commit();
    done_ = true;
  }

 private:
  Connection& db_;
  bool done_ = false;
};

// Holds lock_schema() for its lifetime.
class SchemaLock {
 public:
  explicit SchemaLock(Connection& db) : db_(db) { db_.lock_schema(); }
  ~SchemaLock() { db_.unlock_schema(); }
  SchemaLock(const SchemaLock&) = delete;
  SchemaLock& operator=(const SchemaLock&) = delete;

 private:
  Connection& db_;
};

}  // namespace pdbench::resultsdb
