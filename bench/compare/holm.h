#pragma once
// Holm's step-down correction: a comparison tests many (case, metric) pairs
// at once, and without a correction some of them would pass p < alpha by
// chance in every A/A run. Holm keeps the chance of any false call at most
// alpha whatever the dependence between the tests.
#include <vector>

namespace pdbench::compare {

// Holm-adjusted p-values, in the order given: sort ascending, multiply the
// i-th smallest (from 0) by (k - i), make them non-decreasing, cap at 1.
std::vector<double> holm_adjust(const std::vector<double>& p);

}  // namespace pdbench::compare
