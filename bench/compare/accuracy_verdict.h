#pragma once
// Accuracy's verdict, beside speed's: each (weight_type, kv_type_k,
// kv_type_v, path) of accuracy.csv in both runs, judged by its mean KL
// divergence against the base. The figures are computed, not sampled, so
// there is no test: a change counts when it is beyond both a ratio and an
// absolute step (docs/COMPARE.md). A faster build that moved the fast
// path's outputs shows here as a regression.
#include <optional>
#include <string>
#include <vector>

#include "bench/compare/verdict.h"
#include "bench/runner/csv_table.h"

namespace pdbench::compare {

struct AccuracyRule {
  double kld_ratio = 1.1;       // new / base mean KLD beyond which it moved
  double kld_increase = 0.001;  // and the least absolute change, in nats
};

struct AccuracyRow {
  std::string config;  // "q8_0 KV f16/f16"
  std::string path;    // prefill | decode
  double base_kld = 0, next_kld = 0;
  double base_same_top = 0, next_same_top = 0;  // %
  Verdict verdict = Verdict::Unchanged;
};

// The rows both runs scored, in base order; none when either has no
// accuracy.csv. Throws Error naming the run when a figure is not a number.
std::vector<AccuracyRow> compare_accuracy(const std::optional<runner::Table>& base,
                                          const std::optional<runner::Table>& next, const AccuracyRule& rule);

}  // namespace pdbench::compare
