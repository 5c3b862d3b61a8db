#include "bench/runner/csv_table.h"

#include <csv.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <span>

#include "engine/util/atomic_file.h"
#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench::runner {

namespace {

std::string quoted(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct Parse {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
};

void on_field(void* field, size_t size, void* data) {
  static_cast<Parse*>(data)->row.emplace_back(static_cast<const char*>(field), size);
}

void on_row(int, void* data) {
  auto* p = static_cast<Parse*>(data);
  p->rows.push_back(std::move(p->row));
  p->row.clear();
}

std::string read_text(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot read CSV file");
  // A failed read (a folder opens, then reading it fails with EISDIR) throws
  // std::ios_base::failure from the stream buffer even with exceptions off;
  // found by fuzzing (a scenario's trace = "/").
  try {
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure& e) {
    fail_file(path, "cannot read CSV file: " + e.code().message());
  }
}

}  // namespace

size_t Table::column(const std::string& name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) throw Error("results table has no column '" + name + "'");
  return static_cast<size_t>(it - columns.begin());
}

std::string csv_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

double cell_number(const std::string& column, const std::string& cell) {
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc{} || end != cell.data() + cell.size())
    throw Error("results column '" + column + "' holds '" + cell + "', not a number");
  return v;
}

double cell_number(const Table& t, const std::vector<std::string>& row, const std::string& column) {
  return cell_number(column, row[t.column(column)]);
}

std::string to_csv(const Table& table) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + quoted(cells[i]);
    out += "\n";
  };
  line(table.columns);
  for (const auto& row : table.rows) line(row);
  return out;
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  AtomicFile file(path);
  file.write(std::as_bytes(std::span(contents.data(), contents.size())));
  file.commit();
}

void write_csv(const std::string& path, const Table& table) { write_file_atomic(path, to_csv(table)); }

Table read_csv(const std::string& path) {
  const std::string text = read_text(path);
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) fail_file(path, "cannot start the CSV parser");
  Parse parse;
  const bool ok = csv_parse(&parser, text.data(), text.size(), on_field, on_row, &parse) == text.size() &&
                  csv_fini(&parser, on_field, on_row, &parse) == 0;
  const std::string problem = ok ? "" : csv_strerror(csv_error(&parser));
  csv_free(&parser);
  if (!ok) fail_file(path, "bad CSV: " + problem);
  if (parse.rows.empty()) fail_file(path, "empty CSV file (no header row)");
  Table table;
  table.columns = std::move(parse.rows.front());
  for (size_t i = 1; i < parse.rows.size(); ++i) {
    if (parse.rows[i].size() != table.columns.size())
      fail_file(path, "row " + std::to_string(i + 1) + " has " + std::to_string(parse.rows[i].size()) +
                          " cells, the header has " + std::to_string(table.columns.size()));
    table.rows.push_back(std::move(parse.rows[i]));
  }
  return table;
}

}  // namespace pdbench::runner
