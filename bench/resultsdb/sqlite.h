#pragma once
// The SQLite back end: a results history in one file, the default.
// Parameters $1, $2, ... are SQLite's named parameters of those names.
#include <memory>
#include <string>

#include "bench/resultsdb/connection.h"

namespace pdbench::resultsdb {

std::unique_ptr<Connection> connect_sqlite(const std::string& path);  // opens or creates

}  // namespace pdbench::resultsdb
