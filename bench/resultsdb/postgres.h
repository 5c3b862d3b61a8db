#pragma once
// The PostgreSQL back end (libpq): one results history that many runners
// write to at once. Runs' ids come from an identity column, so concurrent
// appends need no lock; creating or migrating the schema takes an advisory
// lock. A server that cannot be reached within connect_timeout (10 s unless
// the URL sets it) is an error, not a hang.
#include <memory>
#include <string>

#include "bench/resultsdb/connection.h"

namespace pdbench::resultsdb {

// url: postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?PARAMS], as libpq takes it.
std::unique_ptr<Connection> connect_postgres(const std::string& url);

}  // namespace pdbench::resultsdb
