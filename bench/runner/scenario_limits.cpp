#include "bench/runner/scenario_limits.h"

#include <algorithm>

#include "engine/util/error.h"

namespace pdbench::runner {

void check_scenario_limits(std::string_view text, const std::string& path) {
  if (text.size() > kMaxScenarioBytes)
    throw Error(path + ": scenario file is larger than the limit of " + std::to_string(kMaxScenarioBytes) +
                " bytes");
  size_t line = 1;
  for (size_t begin = 0; begin < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    if (end - begin > kMaxScenarioLineBytes)
      throw Error(path + ":" + std::to_string(line) + ": line of " + std::to_string(end - begin) +
                  " bytes is longer than the limit of " + std::to_string(kMaxScenarioLineBytes) +
                  " (it bounds how deep a dotted key or [table.header] can nest)");
    begin = end + 1;
  }
}

}  // namespace pdbench::runner
