#include "engine/util/regular_file.h"

#include <filesystem>

#include "engine/util/error.h"

namespace pdbench {

void require_regular_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);  // stat(2): does not open, so never blocks
  if (!std::filesystem::exists(status)) fail_file(path, "no such file");
  if (!std::filesystem::is_regular_file(status)) fail_file(path, "not a regular file");
}

}  // namespace pdbench
