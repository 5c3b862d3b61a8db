#include "bench/compare/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace pdbench::compare {

namespace {

// Sizes up to which the exact distribution is used (no ties); above, the
// normal approximation is accurate and the counts would grow large.
constexpr size_t kExactMax = 50;

// counts[u] = number of arrangements of n x's and m y's with U = u, by the
// recurrence f(n, m, u) = f(n - 1, m, u - m) + f(n, m - 1, u).
std::vector<double> u_counts(size_t n, size_t m) {
  // f[j][u] for the current n, j = 0..m.
  std::vector<std::vector<double>> f(m + 1, std::vector<double>(n * m + 1, 0.0));
  for (size_t j = 0; j <= m; ++j) f[j][0] = 1;  // n = 0: one arrangement, U = 0
  for (size_t i = 1; i <= n; ++i) {
    std::vector<std::vector<double>> g(m + 1, std::vector<double>(n * m + 1, 0.0));
    g[0][0] = 1;  // m = 0
    for (size_t j = 1; j <= m; ++j)
      for (size_t u = 0; u <= i * j; ++u) g[j][u] = (u >= j ? f[j][u - j] : 0.0) + g[j - 1][u];
    f = std::move(g);
  }
  return f[m];
}

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

double mann_whitney_exact_p(double u, size_t n, size_t m) {
  const std::vector<double> counts = u_counts(n, m);
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double nm = static_cast<double>(n * m);
  const double upper = std::max(u, nm - u);
  double tail = 0;
  for (size_t k = 0; k < counts.size(); ++k)
    if (static_cast<double>(k) >= upper - 1e-9) tail += counts[k];
  return std::min(1.0, 2.0 * tail / total);
}

double mann_whitney_min_p(size_t n, size_t m) {
  // C(n+m, n) as a product of ratios; exact enough in double for any size here.
  double c = 1;
  for (size_t i = 1; i <= n; ++i) c = c * static_cast<double>(m + i) / static_cast<double>(i);
  return std::min(1.0, 2.0 / c);
}

MannWhitney mann_whitney(std::span<const double> x, std::span<const double> y) {
  const size_t n = x.size(), m = y.size(), total = n + m;
  std::vector<std::pair<double, bool>> all;  // (value, from x)
  all.reserve(total);
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Midranks; tie_term = sum over tie groups of t^3 - t.
  double rank_sum_x = 0, tie_term = 0;
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && all[j].first == all[i].first) ++j;
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum_x += midrank;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double dn = static_cast<double>(n), dm = static_cast<double>(m), dt = static_cast<double>(total);
  MannWhitney r;
  r.u = rank_sum_x - dn * (dn + 1) / 2;
  if (tie_term == 0 && n <= kExactMax && m <= kExactMax) {
    r.exact = true;
    r.p = mann_whitney_exact_p(r.u, n, m);
    return r;
  }
  const double mean = dn * dm / 2;
  const double variance = dn * dm / 12 * ((dt + 1) - tie_term / (dt * (dt - 1)));
  if (variance <= 0) return r;  // every value equal: no evidence of a difference
  const double z = (std::max(r.u, dn * dm - r.u) - mean - 0.5) / std::sqrt(variance);
  r.p = std::min(1.0, 2.0 * normal_sf(z));
  return r;
}

}  // namespace pdbench::compare
