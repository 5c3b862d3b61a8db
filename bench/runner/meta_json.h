#pragma once
// Reading a results folder's meta.json back (docs/RESULTS.md). Every reader
// (resume, merge, compare, report, the history) goes through here, so a
// file with a key of the wrong type is one error naming the file and the
// key, never a JSON library exception or a check silently skipped.
#include <nlohmann/json.hpp>
#include <string>

namespace pdbench::runner {

// Parses DIR/meta.json and checks the type of every key pdbench writes
// that is present (absent keys are the readers' business). Throws
// pdbench::Error "DIR/meta.json: ..." when it cannot be read, is not a
// JSON object, or a key has the wrong type.
nlohmann::json read_meta_json(const std::string& dir);

// The same checks on a parsed value; `path` names it in errors.
void check_meta_types(const nlohmann::json& meta, const std::string& path);

}  // namespace pdbench::runner
