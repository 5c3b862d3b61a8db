#pragma once
// Limits on a scenario: on its text, checked before toml++ parses it, and on
// the work its sweeps ask for, checked before they are expanded.
//
// The text: toml++ 3.3
// stops nested arrays and inline tables at 256 levels with a parse error,
// but not tables nested through dotted keys (a.b.c = 1) or headers
// ([a.b.c]): about 60,000 levels overflow the stack of its recursive code.
// A key's levels all sit on one line, so a cap on line length bounds them
// (about 2,000 levels, plus the 256 of values that may span lines).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pdbench::runner {

inline constexpr size_t kMaxScenarioBytes = size_t{1} << 20;
inline constexpr size_t kMaxScenarioLineBytes = 4096;

// Throws pdbench::Error "PATH: ..." or "PATH:LINE: ..." when the text is
// larger than kMaxScenarioBytes or has a longer line than kMaxScenarioLineBytes.
void check_scenario_limits(std::string_view text, const std::string& path);

// Bounds on one axis value, far beyond any model or machine, so that no
// later sum or allocation sized from it can overflow.
inline constexpr int64_t kMaxTokens = int64_t{1} << 24;  // per prompt, output, depth, block or capacity
inline constexpr int64_t kMaxThreads = 4096;
inline constexpr int64_t kMaxBatch = 4096;
inline constexpr int64_t kMaxRequests = int64_t{1} << 20;  // per run of a load case

struct Scenario;

// The work: three 1000-value axes are 10^9 cases, which would take hours
// and gigabytes just to list. Counted from the axes' sizes and sums, with
// no case made: at most kMaxCases cases (before duplicates across tables
// are dropped), and at most kMaxScenarioTokens tokens in all (context
// depth + prompt + output, times batch, for every warm-up, probe and
// measured run).
inline constexpr double kMaxCases = 100'000;
inline constexpr double kMaxScenarioTokens = 1e10;
void check_scenario_size(const Scenario& scenario);

}  // namespace pdbench::runner
