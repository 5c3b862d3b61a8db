#include "bench/runner/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

// splitmix64: a tiny generator whose stream is the same on every platform
// (std:: distributions are not), so bootstrap intervals reproduce exactly.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

double sorted_percentile(const std::vector<double>& sorted, double p) {
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (rank - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double percentile(std::vector<double> values, double p) {
  if (values.empty()) throw Error("percentile of no values");
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, p);
}

double median(const std::vector<double>& values) { return percentile(values, 50); }

Summary summarize(const std::vector<double>& values, size_t bootstrap_resamples, uint64_t seed) {
  Summary s;
  s.n = values.size();
  if (values.empty()) return s;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  s.median = s.p50 = sorted_percentile(sorted, 50);
  s.p90 = sorted_percentile(sorted, 90);
  s.p99 = sorted_percentile(sorted, 99);
  const double n = static_cast<double>(s.n);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (s.n > 1) {
    double ss = 0;
    for (double v : values) ss += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(ss / (n - 1));
  }
  s.cv_pct = s.mean != 0 ? 100.0 * s.stddev / s.mean : 0;

  SplitMix64 rng{seed};
  std::vector<double> medians(bootstrap_resamples);
  std::vector<double> resample(s.n);
  for (double& m : medians) {
    for (double& v : resample) v = values[rng.next() % s.n];
    std::sort(resample.begin(), resample.end());
    m = sorted_percentile(resample, 50);
  }
  if (medians.empty()) {
    s.ci95_lo = s.ci95_hi = s.median;
  } else {
    std::sort(medians.begin(), medians.end());
    s.ci95_lo = sorted_percentile(medians, 2.5);
    s.ci95_hi = sorted_percentile(medians, 97.5);
  }
  return s;
}

}  // namespace pdbench::runner
