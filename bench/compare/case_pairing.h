#pragma once
// Which base case is compared with which new case: by case_id (the default),
// or across settings by the values of some case axes (samples.csv's case
// columns): `--match threads,prompt_tokens` pairs cases equal in those,
// `--ignore threads` cases equal in every axis but those. A key that two
// cases of one side share is ambiguous and an error naming the axes that
// tell them apart.
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"

namespace pdbench::compare {

struct MatchRule {
  enum class Mode { CaseId, Match, Ignore };
  Mode mode = Mode::CaseId;
  std::vector<std::string> axes;  // with Match: the key; with Ignore: left out of it

  // The rule --match / --ignore give (comma-separated axis names, at most
  // one of the two); throws pdbench::Error naming the option and listing
  // the known axes for a name that is none.
  static MatchRule parse(const std::string& match, const std::string& ignore);
  // "model" stands for both model columns (file name and sha256 prefix).
  bool keys_on(const std::string& axis) const;
};

// The case columns a rule can name: runner::case_columns() without
// case_index and case_id.
std::vector<std::string> case_axes();

struct CasePair {
  std::string base_id, new_id;
};

struct CasePairs {
  std::vector<std::string> key_axes;   // the axes compared equal (empty: by case_id)
  std::vector<CasePair> pairs;         // in base case order
  std::vector<std::string> only_base;  // case ids with no partner
  std::vector<std::string> only_new;
};

// Pairs the cases of two samples tables (first row of each case read for
// its axes; a column either table lacks is left out of the key). Throws
// pdbench::Error when a key is ambiguous, or when nothing pairs up, listing
// each side's cases with their key values.
CasePairs pair_cases(const runner::Table& base, const runner::Table& next, const MatchRule& rule,
                     const std::string& base_label, const std::string& new_label);

}  // namespace pdbench::compare
