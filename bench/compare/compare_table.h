#pragma once
// Compares two runs case by case (paired by case_id, or across settings by
// some axes: case_pairing.h) and metric by metric,
// from the raw per-repetition times in samples.csv: the medians, the change,
// the Mann-Whitney p-value (Holm-adjusted over the whole table) and a
// verdict per row; prefill-side and decode-side metrics are separate rows,
// so the table says which phase moved.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/compare/accuracy_verdict.h"
#include "bench/compare/case_pairing.h"
#include "bench/compare/fingerprint.h"
#include "bench/compare/verdict.h"
#include "bench/runner/csv_table.h"

namespace pdbench::compare {

// One side of a comparison: a results folder, or a run from the history.
struct RunData {
  std::string label;  // the folder, or "run 12 (abc123)"
  nlohmann::json meta;
  runner::Table samples;
  std::optional<runner::Table> accuracy;  // accuracy.csv, when the run scored one
};

// samples.csv and meta.json of a results folder; throws pdbench::Error when
// either is missing or malformed.
RunData load_run_dir(const std::string& dir);

struct Metric {
  const char* column;  // in samples.csv
  const char* name;    // as shown
  const char* phase;   // "prefill", "decode" or "e2e"
};
const std::vector<Metric>& compared_metrics();
const std::vector<std::string>& phases();  // in table order

struct Row {
  std::string case_id;      // the base case
  std::string new_case_id;  // its partner: the same id unless paired across settings
  std::string label() const { return case_id == new_case_id ? case_id : case_id + " -> " + new_case_id; }
  Metric metric;
  SideStats base;
  SideStats next;
  Test test;
  Judgement judgement;
};

struct PhaseCounts {
  std::string phase;
  std::array<size_t, 4> count{};  // by Verdict
};

struct Comparison {
  std::string base_label, new_label;
  Rule rule;
  AccuracyRule accuracy_rule;
  std::vector<Row> rows;  // base case order, then metric order
  std::vector<AccuracyRow> accuracy;  // a regression here is a regression too
  std::vector<std::string> only_base, only_new;  // case ids with no partner on the other side
  std::vector<std::string> key_axes;             // the axes cases were paired by (empty: case_id)
  std::vector<FieldDifference> fingerprint;
  size_t tests = 0;      // rows tested (the Holm family size)
  bool regressed() const;
  std::vector<PhaseCounts> by_phase() const;
};

// Throws pdbench::Error when no case pairs up (listing each side's) or a
// time is not a number. Pairing across models (--match without `model`,
// --ignore with it) makes a model/sha256 difference expected, not a mismatch.
Comparison compare_runs(const RunData& base, const RunData& next, const Rule& rule,
                        const AccuracyRule& accuracy_rule = {}, const MatchRule& match = {});

// "threads, prompt_tokens": the axes cases were paired by.
std::string joined_axes(const Comparison& c);

// The table as aligned text, with a summary per phase.
std::string text_report(const Comparison& c);

}  // namespace pdbench::compare
