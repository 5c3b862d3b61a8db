#include "bench/runner/accuracy_totals.h"

#include <cmath>
#include <numeric>
#include <string>

#include "bench/runner/log_probs.h"
#include "bench/runner/stats.h"
#include "engine/sampling/argmax.h"
#include "engine/util/error.h"

namespace pdbench::runner {

void AccuracyTotals::add(std::span<const float> logits, std::span<const float> base_logits, int32_t next) {
  if (next < 0 || static_cast<size_t>(next) >= logits.size())
    throw Error("scoring: token " + std::to_string(next) + " is outside the " + std::to_string(logits.size()) +
                "-token vocabulary");
  if (kld_.size() != (base_logits.empty() ? 0 : count_))
    throw Error("scoring: every position or none must come with the base's logits");
  const std::vector<double> log_probs = log_softmax(logits);
  nll_sum_ -= log_probs[static_cast<size_t>(next)];
  ++count_;
  if (base_logits.empty()) return;
  const std::vector<double> base_log_probs = log_softmax(base_logits);
  base_nll_sum_ -= base_log_probs[static_cast<size_t>(next)];
  kld_.push_back(kl_divergence(base_log_probs, log_probs));
  same_top_ += first_argmax(logits) == first_argmax(base_logits);
}

double AccuracyTotals::ppl() const { return count_ ? std::exp(nll_sum_ / static_cast<double>(count_)) : 0.0; }

AccuracySummary AccuracyTotals::summary() const {
  if (count_ == 0) throw Error("scoring: no positions were scored");
  AccuracySummary s{count_, ppl(), std::nullopt};
  if (kld_.empty()) return s;
  const double n = static_cast<double>(count_);
  BaseComparison& b = s.base.emplace();
  b.base_ppl = std::exp(base_nll_sum_ / n);
  b.kld_mean = std::accumulate(kld_.begin(), kld_.end(), 0.0) / n;
  b.kld_p99 = percentile(kld_, 99);
  b.same_top_pct = 100.0 * static_cast<double>(same_top_) / n;
  b.ppl_ratio = std::exp((nll_sum_ - base_nll_sum_) / n);
  return s;
}

}  // namespace pdbench::runner
