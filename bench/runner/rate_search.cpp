#include "bench/runner/rate_search.h"

#include <algorithm>
#include <cmath>

namespace pdbench::runner {

namespace {

double three_digits(double v) {
  const double scale = std::pow(10.0, std::floor(std::log10(v)) - 2);
  return std::round(v / scale) * scale;
}

}  // namespace

std::optional<double> highest_rate_met(const std::vector<RateProbe>& done) {
  std::optional<double> lowest_missed, best;
  for (const RateProbe& p : done)
    if (!p.met) lowest_missed = std::min(p.rate, lowest_missed.value_or(p.rate));
  // A rate met above one missed (noise) does not count: the answer is below every miss.
  for (const RateProbe& p : done)
    if (p.met && (!lowest_missed || p.rate < *lowest_missed)) best = std::max(p.rate, best.value_or(p.rate));
  return best;
}

std::optional<double> next_probe_rate(const RateSearch& s, const std::vector<RateProbe>& done) {
  if (done.size() >= s.probes) return std::nullopt;
  if (done.empty()) return s.high_req_s;
  if (done.size() == 1) return done[0].met ? std::nullopt : std::optional(s.low_req_s);
  const std::optional<double> met = highest_rate_met(done);
  if (!met) return std::nullopt;  // the low rate missed
  double missed = s.high_req_s;
  for (const RateProbe& p : done)
    if (!p.met && p.rate > *met) missed = std::min(missed, p.rate);
  const double mid = three_digits(std::sqrt(*met * missed));
  if (mid <= *met || mid >= missed) return std::nullopt;  // as close as 3 digits tell apart
  return mid;
}

}  // namespace pdbench::runner
