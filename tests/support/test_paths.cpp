#include "tests/support/test_paths.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <unistd.h>

namespace pdbench::test {

namespace fs = std::filesystem;

std::string source_path(const std::string& relative) { return std::string(PDBENCH_SOURCE_DIR) + "/" + relative; }
std::string data_path(const std::string& relative) { return source_path("tests/data/" + relative); }
std::string model_path(const std::string& relative) { return source_path("models/" + relative); }

std::string shared_path(const std::string& relative) {
  const char* env = std::getenv("PDBENCH_SHARED_DIR");
  const fs::path root = env != nullptr ? fs::path(env) : fs::path(PDBENCH_SHARED_DIR);
  const fs::path p = root / relative;
  return fs::exists(p) ? p.string() : std::string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

namespace {

// Every folder temp_dir made in this process, removed when it exits: a test
// that fails an ASSERT before its last line leaves nothing behind. Only the
// process that made them removes them (a forked child leaves by _exit).
class TempDirs {
 public:
  void add(const std::string& path) { paths_.push_back(path); }
  ~TempDirs() {
    if (::getpid() != owner_) return;
    std::error_code ignored;
    for (const std::string& p : paths_) fs::remove_all(p, ignored);
  }

 private:
  pid_t owner_ = ::getpid();
  std::vector<std::string> paths_;
};

TempDirs& temp_dirs() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

std::string temp_dir(const std::string& tag) {
  fs::path base = fs::temp_directory_path() / ("pdbench-test-" + tag + "-XXXXXX");
  std::string tmpl = base.string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
  temp_dirs().add(tmpl);
  return tmpl;
}

}  // namespace pdbench::test
