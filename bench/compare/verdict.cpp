#include "bench/compare/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/compare/mann_whitney.h"
#include "bench/runner/stats.h"

namespace pdbench::compare {

namespace {

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Improved: return "improved";
    case Verdict::Regressed: return "regressed";
    case Verdict::Unchanged: return "unchanged";
    case Verdict::Unstable: return "unstable";
  }
  return "unstable";
}

SideStats side_stats(const std::vector<double>& samples) {
  const runner::Summary s = runner::summarize(samples);
  SideStats out{s.n, s.median, 0};
  if (s.median > 0) out.noise_pct = 100.0 * (s.ci95_hi - s.ci95_lo) / 2.0 / s.median;
  return out;
}

bool testable(size_t n, size_t m, double alpha) {
  return std::min(n, m) >= 3 && mann_whitney_min_p(n, m) < alpha;
}

Judgement judge(const SideStats& base, const SideStats& next, const Test& test, const Rule& rule) {
  Judgement j;
  if (base.median <= 0) {
    j.verdict = Verdict::Unstable;
    j.reason = "base median is 0";
    return j;
  }
  j.change_pct = 100.0 * (next.median - base.median) / base.median;
  if (!test.tested) {
    j.verdict = Verdict::Unstable;
    j.reason = "too few repetitions to reach alpha";
    return j;
  }
  const double size = std::fabs(j.change_pct);
  const double bar = std::max(rule.threshold_pct, base.noise_pct);
  if (test.p_adj < rule.alpha && size > bar) {
    j.verdict = j.change_pct > 0 ? Verdict::Regressed : Verdict::Improved;
    j.reason = "significant, " + percent(size) + " > " + percent(bar);
    return j;
  }
  const double noise = std::max(base.noise_pct, next.noise_pct);
  if (noise > rule.threshold_pct) {
    j.verdict = Verdict::Unstable;
    j.reason = "median CI +-" + percent(noise) + " wider than the threshold";
  } else if (size > rule.threshold_pct) {
    j.verdict = Verdict::Unstable;
    j.reason = "change above the threshold but not significant";
  } else if (test.p_adj < rule.alpha) {
    j.verdict = Verdict::Unchanged;
    j.reason = "significant but below " + percent(bar);
  } else {
    j.verdict = Verdict::Unchanged;
    j.reason = "not significant, within the threshold";
  }
  return j;
}

}  // namespace pdbench::compare
