#include "bench/resultsdb/connection.h"

#include <charconv>
#include <regex>

#include "bench/resultsdb/postgres.h"
#include "bench/resultsdb/sqlite.h"
#include "engine/util/error.h"

namespace pdbench::resultsdb {

std::string Rows::text(size_t row, size_t col) const { return rows.at(row).at(col).value_or(""); }

int64_t Rows::integer(size_t row, size_t col) const {
  const std::string s = text(row, col);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    throw Error("results database: expected an integer, got '" + s + "'");
  return v;
}

bool is_postgres_url(const std::string& target) {
  return target.starts_with("postgresql://") || target.starts_with("postgres://");
}

std::string redact_password(const std::string& target) {
  static const std::regex kPassword(R"(^(postgres(?:ql)?://[^:@/]*):[^@/]*@)");
  return std::regex_replace(target, kPassword, "$1:***@", std::regex_constants::format_first_only);
}

std::unique_ptr<Connection> connect(const std::string& target) {
  return is_postgres_url(target) ? connect_postgres(target) : connect_sqlite(target);
}

}  // namespace pdbench::resultsdb
