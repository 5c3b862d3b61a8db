#pragma once
// The history's schema (docs/RESULTS.md), one text for both back ends with
// their few dialect words filled in, and its migrations: migration v takes
// a database from version v to v + 1, so a new database and an old one
// reach the current version by the same steps.
#include <cstdint>

#include "bench/resultsdb/connection.h"

namespace pdbench::resultsdb {

inline constexpr int64_t kSchemaVersion = 2;

// Brings the database to kSchemaVersion, creating it when empty; safe
// against other processes doing the same at once. Throws when the database
// is newer than this pdbench or holds tables that are not a history's.
void migrate(Connection& db);

}  // namespace pdbench::resultsdb
