#pragma once
// A thin RAII layer over the sqlite3 C API: a connection, prepared
// statements, and a transaction that rolls back unless committed. Every
// failure throws pdbench::Error naming the database file and SQLite's message.
#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace pdbench::resultsdb {

class Database {
 public:
  explicit Database(const std::string& path);  // opens or creates
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);  // statements without results
  int64_t last_insert_rowid() const;
  [[noreturn]] void fail(const std::string& what) const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters count from 1; text is copied by SQLite.
  Statement& bind(int index, const std::string& text);
  Statement& bind(int index, int64_t value);
  Statement& bind_null(int index);
  bool step();  // true: a row is ready; false: done
  void reset();  // for the next bindings
  std::string text(int column) const;  // "" for NULL
  int64_t integer(int column) const;

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE; rolled back by the destructor unless commit() ran.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace pdbench::resultsdb
