#pragma once
// Small synthetic tokenizer files for unit tests: a temp folder that cleans
// up after itself and a byte-level tokenizer.json whose ids are easy to read
// (byte b is id b; merged pieces follow from 256 in merge order).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/tokenizer/byte_level.h"
#include "tests/support/test_paths.h"

namespace pdbench::test {

class TempDir {
 public:
  explicit TempDir(const std::string& tag) : path_(temp_dir(tag)) {}
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `content` to a file in the folder; returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::string path = path_ + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// merges: "left right" rules over ASCII pieces, highest priority first.
inline nlohmann::json tiny_tokenizer_json(const std::vector<std::string>& merges) {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_level::encode(std::string(1, static_cast<char>(b)))] = b;
  int next_id = 256;
  for (const std::string& rule : merges) {
    const size_t space = rule.find(' ');
    const std::string merged = rule.substr(0, space) + rule.substr(space + 1);
    if (!vocab.contains(merged)) vocab[merged] = next_id++;
  }
  return {
      {"version", "1.0"},
      {"added_tokens", nlohmann::json::array()},
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"decoder", {{"type", "ByteLevel"}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}},
  };
}

}  // namespace pdbench::test
