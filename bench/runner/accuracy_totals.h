#pragma once
// What the scored positions of one forward path add up to: perplexity and,
// against a base model's logits at the same positions, how far the path's
// next-token distributions moved (llama-perplexity --kl-divergence).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace pdbench::runner {

struct BaseComparison {
  double base_ppl = 0;
  double kld_mean = 0;      // KL(base || this) per position, in nats
  double kld_p99 = 0;       // its 99th percentile, interpolated as numpy's
  double same_top_pct = 0;  // positions whose top token is the base's
  double ppl_ratio = 0;     // ppl / base_ppl
};

struct AccuracySummary {
  size_t tokens_scored = 0;
  double ppl = 0;  // exp(mean negative log-likelihood)
  std::optional<BaseComparison> base;
};

class AccuracyTotals {
 public:
  // One position: its logits, the base's logits there (empty without a
  // base, and the same for every position) and the token that came next.
  void add(std::span<const float> logits, std::span<const float> base_logits, int32_t next);

  size_t count() const { return count_; }
  double ppl() const;
  AccuracySummary summary() const;  // throws Error before any position

 private:
  size_t count_ = 0;
  double nll_sum_ = 0;
  double base_nll_sum_ = 0;
  size_t same_top_ = 0;
  std::vector<double> kld_;  // one per position, with a base
};

}  // namespace pdbench::runner
