#pragma once
// A results table as text cells: written atomically as CSV (RFC 4180
// quoting), read back with libcsv for --resume and merge.
#include <string>
#include <vector>

namespace pdbench::runner {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  size_t column(const std::string& name) const;  // throws pdbench::Error if absent
};

// A number as results files write it: "%.9g", which reads back any float.
std::string csv_number(double v);
// A cell read back as a number; anything but a whole number (as csv_number
// writes, or "inf") is a damaged file and an Error naming the column.
double cell_number(const std::string& column, const std::string& cell);
double cell_number(const Table& t, const std::vector<std::string>& row, const std::string& column);
std::string to_csv(const Table& table);
// Writes PATH.tmp.* then renames it over PATH: readers never see a partial file.
void write_file_atomic(const std::string& path, const std::string& contents);
void write_csv(const std::string& path, const Table& table);
// The first row is the header; every row must have as many cells.
Table read_csv(const std::string& path);

}  // namespace pdbench::runner
