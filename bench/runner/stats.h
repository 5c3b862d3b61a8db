#pragma once
// Summary statistics of repeated timings. Percentiles interpolate linearly
// between order statistics (numpy's default); the 95% CI of the median is a
// percentile bootstrap with a fixed seed, so the same samples always give
// the same interval.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pdbench::runner {

struct Summary {
  size_t n = 0;
  double median = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for n < 2
  double cv_pct = 0;  // stddev / mean, in percent
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double ci95_lo = 0;  // bootstrap 95% CI of the median
  double ci95_hi = 0;
};

double percentile(std::vector<double> values, double p);  // p in [0, 100]; values not empty
double median(const std::vector<double>& values);
Summary summarize(const std::vector<double>& values, size_t bootstrap_resamples = 2000, uint64_t seed = 0x5eed);

}  // namespace pdbench::runner
