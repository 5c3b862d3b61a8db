#include "engine/util/regular_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/util/error.h"

namespace pdbench {

void require_regular_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);  // stat(2): does not open, so never blocks
  if (!std::filesystem::exists(status)) fail_file(path, "no such file");
  if (!std::filesystem::is_regular_file(status)) fail_file(path, "not a regular file");
}

std::string read_regular_file(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot read file");
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

}  // namespace pdbench
