#pragma once
// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: exact null
// distribution when there are no ties and both samples are small, the normal
// approximation with tie correction and continuity correction otherwise (as
// scipy.stats.mannwhitneyu with method="auto").
#include <cstddef>
#include <span>

namespace pdbench::compare {

struct MannWhitney {
  double u = 0;  // U of the first sample: pairs (x, y) with x > y, ties counted 1/2
  double p = 1;  // two-sided p-value
  bool exact = false;
};

// Both samples non-empty.
MannWhitney mann_whitney(std::span<const double> x, std::span<const double> y);

// Two-sided exact p of U = u for sample sizes n and m without ties:
// 2 P(U >= max(u, nm - u)), at most 1.
double mann_whitney_exact_p(double u, size_t n, size_t m);

// The smallest two-sided p the test can give for these sizes, 2 / C(n+m, n):
// the test cannot reach alpha unless this is below it (n = m = 4: 0.029).
double mann_whitney_min_p(size_t n, size_t m);

}  // namespace pdbench::compare
