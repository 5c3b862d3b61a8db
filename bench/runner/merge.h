#pragma once
// Joins the results folders of shards (--shard k/n) of one scenario into one.
#include <string>
#include <vector>

namespace pdbench::runner {

// Throws pdbench::Error when the inputs come from different scenarios or
// share a (case, repetition), or `out` already holds results.
void merge_results(const std::string& out, const std::vector<std::string>& inputs);

}  // namespace pdbench::runner
