#pragma once
// The verdict on one (case, metric): improved, regressed, unchanged or
// unstable. The rule, step by step, is in docs/COMPARE.md; judge() is the
// only place it lives.
#include <string>
#include <vector>

namespace pdbench::compare {

enum class Verdict { Improved, Regressed, Unchanged, Unstable };

const char* verdict_name(Verdict v);  // "improved", ...

struct Rule {
  double threshold_pct = 5;  // smallest change worth a verdict
  double alpha = 0.05;       // family-wise, over every test of the comparison (Holm)
};

// What judge() needs about one side's samples of a metric (times: lower is better).
struct SideStats {
  size_t n = 0;
  double median = 0;
  double noise_pct = 0;  // half-width of the median's 95% CI, % of the median
};

SideStats side_stats(const std::vector<double>& samples);

// The test's outcome on one (case, metric); `tested` is false when the
// sample sizes cannot reach alpha, and p then stays 1.
struct Test {
  bool tested = false;
  double p = 1;      // Mann-Whitney U, two-sided
  double p_adj = 1;  // Holm-adjusted over the comparison
};

// Whether the samples are large enough to test: both at least 3 and the
// smallest attainable p below alpha.
bool testable(size_t n, size_t m, double alpha);

struct Judgement {
  Verdict verdict = Verdict::Unchanged;
  double change_pct = 0;  // (new - base) / base median, in %
  std::string reason;     // one phrase, why
};

Judgement judge(const SideStats& base, const SideStats& next, const Test& test, const Rule& rule);

}  // namespace pdbench::compare
