#pragma once
// Where tests find their data, and small helpers shared by test binaries.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pdbench::test {

std::string source_path(const std::string& relative);  // <repo>/relative
std::string data_path(const std::string& relative);    // <repo>/tests/data/relative
std::string model_path(const std::string& relative);   // <repo>/models/relative
// <shared>/relative, or "" when the shared folder is absent (the test then
// GTEST_SKIPs with that reason).
std::string shared_path(const std::string& relative);

// The whole file's bytes; throws when it cannot be read.
std::string read_file(const std::string& path);

// Every line of a .jsonl file, parsed.
std::vector<nlohmann::json> read_jsonl(const std::string& path);

// A fresh empty directory under the system temp dir, removed with all it
// holds when the test process exits.
std::string temp_dir(const std::string& tag);

}  // namespace pdbench::test
