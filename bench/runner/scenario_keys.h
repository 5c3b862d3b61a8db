#pragma once
// The keys each table of a scenario file accepts: the parser's one list
// (an unknown key is an error naming these), and what
// tests/runner/scenario_docs_test.cpp holds scenarios/README.md's tables to.
#include <string>
#include <vector>

namespace pdbench::runner {

// The tables by name: "" is the top level, "sampling.NAME" every named
// strategy. The load axes are keys of "sweep".
const std::vector<std::string>& scenario_tables();
// A table's keys; throws std::out_of_range for a name not in scenario_tables().
const std::vector<std::string>& scenario_keys(const std::string& table);

}  // namespace pdbench::runner
