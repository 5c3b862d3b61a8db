#include "bench/compare/holm.h"

#include <algorithm>
#include <numeric>

namespace pdbench::compare {

std::vector<double> holm_adjust(const std::vector<double>& p) {
  const size_t k = p.size();
  std::vector<size_t> order(k);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(k);
  double running = 0;
  for (size_t i = 0; i < k; ++i) {
    running = std::max(running, std::min(1.0, static_cast<double>(k - i) * p[order[i]]));
    adjusted[order[i]] = running;
  }
  return adjusted;
}

}  // namespace pdbench::compare
