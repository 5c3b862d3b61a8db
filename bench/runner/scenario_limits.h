#pragma once
// Limits on a scenario file, checked before toml++ parses it. toml++ 3.3
// stops nested arrays and inline tables at 256 levels with a parse error,
// but not tables nested through dotted keys (a.b.c = 1) or headers
// ([a.b.c]): about 60,000 levels overflow the stack of its recursive code.
// A key's levels all sit on one line, so a cap on line length bounds them
// (about 2,000 levels, plus the 256 of values that may span lines).
#include <cstddef>
#include <string>
#include <string_view>

namespace pdbench::runner {

inline constexpr size_t kMaxScenarioBytes = size_t{1} << 20;
inline constexpr size_t kMaxScenarioLineBytes = 4096;

// Throws pdbench::Error "PATH: ..." or "PATH:LINE: ..." when the text is
// larger than kMaxScenarioBytes or has a longer line than kMaxScenarioLineBytes.
void check_scenario_limits(std::string_view text, const std::string& path);

}  // namespace pdbench::runner
