#pragma once
// Appending a finished results folder to the history (`--db` of run and
// merge). The folder is the record: when the database fails (unreachable,
// gone mid-way, refused), nothing of the run is half-stored, the folder is
// kept, and the error says how to store it later.
#include <string>

namespace pdbench::cli {

void store_run(const std::string& db, const std::string& results_dir);

}  // namespace pdbench::cli
