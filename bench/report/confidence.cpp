#include "bench/report/confidence.h"

#include <cmath>
#include <cstdio>

#include "bench/report/insights.h"
#include "bench/runner/stats.h"

namespace pdbench::report {

namespace {

// Student's t at 97.5% for `df` degrees of freedom: exact for 1 and 2,
// else the Cornish-Fisher expansion (within 0.1% from 3 on).
double t975(double df) {
  if (df < 1.5) return 12.706;
  if (df < 2.5) return 4.303;
  const double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

Estimate estimate(const runner::Table& summary, const Row& row, const std::string& metric) {
  return {number(summary, row, metric + "_median_ms"), number(summary, row, metric + "_ci95_lo_ms"),
          number(summary, row, metric + "_ci95_hi_ms"), number(summary, row, metric + "_cv_pct")};
}

std::string unclear_because(const Estimate& a, const Estimate& b) {
  for (const Estimate* e : {&a, &b})
    if (e->noisy())
      return "CV " + readable(e->cv_pct) + "% above the " + readable(kMaxCvPct) + "% limit";
  // NaN bounds (too few runs) compare false: not apart.
  const bool apart = a.hi < b.lo || b.hi < a.lo;
  return apart ? "" : "intervals overlap";
}

std::string interval_text(const Estimate& e) {
  return "95% CI " + readable(e.lo) + "-" + readable(e.hi) + " ms, CV " + readable(e.cv_pct) + "%";
}

std::string rate_interval_text(const Estimate& e, double numerator, const std::string& unit) {
  return "95% CI " + readable(numerator / e.hi) + "-" + readable(numerator / e.lo) + " " + unit + ", CV " +
         readable(e.cv_pct) + "%";
}

std::string speed_ratio(const std::vector<Pair>& pairs, bool& clear, double& ratio) {
  std::vector<double> ratios;
  bool noisy = false;
  for (const Pair& p : pairs) {
    const std::string why = unclear_because(p.measured, p.base);
    if (why.empty())
      ratios.push_back(p.base.median / p.measured.median);
    else
      noisy = noisy || why != "intervals overlap";
  }
  clear = !ratios.empty();
  if (!clear)
    return std::string("no clear difference (intervals overlap") +
           (noisy ? " or CV above " + readable(kMaxCvPct) + "%" : "") + ")";
  ratio = runner::median(ratios);
  size_t faster = 0;
  for (double r : ratios) faster += r > 1 ? 1 : 0;
  const char* verdict = faster == ratios.size() ? "faster" : faster == 0 ? "slower" : "mixed";
  char counts[96];
  std::snprintf(counts, sizeof counts, "; 95%% intervals apart in %zu of %zu matched cases", ratios.size(), pairs.size());
  return readable(ratio) + "x (" + verdict + counts + ")";
}

LineFit least_squares(const std::vector<double>& xs, const std::vector<double>& ys) {
  LineFit f;
  const size_t n = xs.size();
  if (n < 3 || ys.size() != n) return f;
  f.mean_x = mean(xs), f.mean_y = mean(ys);
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; ++i) sxy += (xs[i] - f.mean_x) * (ys[i] - f.mean_y), sxx += (xs[i] - f.mean_x) * (xs[i] - f.mean_x);
  if (!(sxx > 0)) return f;
  f.slope = sxy / sxx;
  double residuals = 0;
  for (size_t i = 0; i < n; ++i) residuals += std::pow(ys[i] - f.at(xs[i]), 2);
  const double df = static_cast<double>(n - 2);
  f.half_width = t975(df) * std::sqrt(residuals / df / sxx);
  f.valid = true;
  return f;
}

}  // namespace pdbench::report
