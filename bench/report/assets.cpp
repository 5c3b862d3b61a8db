#include "bench/report/assets.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/util/error.h"

namespace pdbench::report {

std::string reports_dir() { return PDBENCH_REPORTS_DIR; }

std::string asset_path(const std::string& relative) {
  const std::string path = reports_dir() + "/" + relative;
  if (!std::filesystem::exists(path))
    fail_file(path, "missing: the report's chart scripts come from npm; run scripts/setup.sh (or: npm ci --prefix " +
                        reports_dir() + ")");
  return path;
}

std::string read_asset(const std::string& relative) {
  const std::string path = asset_path(relative);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot read");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace pdbench::report
