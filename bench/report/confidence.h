#pragma once
// How sure a sentence may be: a case's median time with its bootstrap 95%
// interval and CV (summary.csv), and whether two cases differ clearly.
// Two cases differ clearly when their intervals do not overlap and neither
// CV is above kMaxCvPct; otherwise the report says "no clear difference".
#include <string>
#include <vector>

#include "bench/report/cases.h"

namespace pdbench::report {

// Above this CV (%) a case's median is too noisy to compare or classify.
inline constexpr double kMaxCvPct = 20;

struct Estimate {
  double median = 0;  // ms
  double lo = 0;      // bootstrap 95% interval of the median (ms)
  double hi = 0;
  double cv_pct = 0;
  bool noisy() const { return !(cv_pct <= kMaxCvPct); }
  Estimate divided(double by) const { return {median / by, lo / by, hi / by, cv_pct}; }
};

// summary.csv's `METRIC_median_ms`, `_ci95_lo_ms`, `_ci95_hi_ms`, `_cv_pct`
// for a metric of docs/RESULTS.md ("prefill", "itl", "tpot", "ttft").
Estimate estimate(const runner::Table& summary, const Row& row, const std::string& metric);

// Empty when a and b differ clearly, else why not: "intervals overlap" or
// "CV 35% above the 20% limit".
std::string unclear_because(const Estimate& a, const Estimate& b);

// "95% CI 0.80-0.95 ms, CV 6%".
std::string interval_text(const Estimate& e);
// The same for a rate `numerator / time` (tokens/s from ms: 1000 x tokens).
std::string rate_interval_text(const Estimate& e, double numerator, const std::string& unit);

// One compared pair: `measured` against `base` (times).
struct Pair {
  Estimate measured;
  Estimate base;
};
// The speed of `measured` relative to `base` over matched pairs: "0.444x
// (slower; 95% intervals apart in 3 of 3 matched cases)", the median of
// the rate ratios of the clear pairs; "no clear difference (intervals
// overlap)" when no pair is clear. `clear` tells which.
std::string speed_ratio(const std::vector<Pair>& pairs, bool& clear, double& ratio);

// A least-squares line y = a + slope x with the 95% interval of its slope
// (slope +- half_width: Student's t on the slope's standard error from the
// residuals). Not valid for fewer than 3 points or one x.
struct LineFit {
  bool valid = false;
  double mean_x = 0, mean_y = 0, slope = 0, half_width = 0;
  double at(double x) const { return mean_y + slope * (x - mean_x); }
};
LineFit least_squares(const std::vector<double>& xs, const std::vector<double>& ys);

}  // namespace pdbench::report
