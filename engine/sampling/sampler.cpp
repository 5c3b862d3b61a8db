#include "engine/sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "engine/sampling/argmax.h"
#include "engine/sampling/penalties.h"
#include "engine/util/error.h"

namespace pdbench {

Sampler::Sampler(const SamplingParams& params) : params_(params), rng_(params.seed) {
  params_.validate();
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> history) {
  if (logits.empty()) throw Error("sampler: no logits to sample from");
  logits_.assign(logits.begin(), logits.end());
  if (params_.penalties_active()) {
    counts_.resize(logits_.size());  // new entries are zero, old ones were left zero
    apply_penalties(logits_, penalty_window(history, params_.penalty_last_n), params_, counts_);
  }
  // The first of equal maxima: the lowest id, as greedy wants.
  const size_t top = first_argmax(logits_);
  if (logits_[top] == -std::numeric_limits<float>::infinity()) {
    throw Error("sampler: every logit is -inf, no token can be sampled");
  }
  if (params_.greedy()) return static_cast<int32_t>(top);
  return sample_chain(logits_[top]);
}

int32_t Sampler::sample_chain(float max_logit) {
  // Temperature. Subtracting the max first keeps a tiny T from overflowing to
  // inf; the top token then scores 0, so after the softmax its weight is 1.
  kept_.resize(logits_.size());
  for (size_t i = 0; i < logits_.size(); ++i) {
    kept_[i] = {static_cast<int32_t>(i), (logits_[i] - max_logit) / params_.temperature};
  }
  bool reordered = false;
  if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < kept_.size()) {
    keep_top_k(kept_, static_cast<size_t>(params_.top_k));
    reordered = true;
  }
  double total = 0.0;
  for (ScoredToken& t : kept_) {
    t.score = std::exp(t.score);
    total += t.score;
  }
  if (params_.top_p < 1.0f) {
    keep_top_p(kept_, total, params_.top_p);
    reordered = true;
  }
  if (params_.min_p > 0.0f) keep_min_p(kept_, params_.min_p);
  if (reordered) {
    std::sort(kept_.begin(), kept_.end(),
              [](const ScoredToken& a, const ScoredToken& b) { return a.id < b.id; });
  }

  // Draw by inverse CDF over the kept tokens in id order. target < kept sum,
  // so the loop returns before the last token unless that one is drawn.
  double kept_total = 0.0;
  for (const ScoredToken& t : kept_) kept_total += t.score;
  const double target = rng_.next_float() * kept_total;
  double sum = 0.0;
  for (size_t i = 0; i + 1 < kept_.size(); ++i) {
    sum += kept_[i].score;
    if (target < sum) return kept_[i].id;
  }
  return kept_.back().id;
}

std::vector<Candidate> Sampler::last_candidates(int n) const {
  if (params_.greedy()) return top_candidates(logits_, n);
  std::vector<Candidate> weights(kept_.size());
  std::transform(kept_.begin(), kept_.end(), weights.begin(), [](const ScoredToken& t) {
    return Candidate{t.id, t.score};
  });
  return most_likely(std::move(weights), n);
}

std::string Sampler::describe() const {
  const SamplingParams& p = params_;
  std::ostringstream s;
  if (p.greedy()) {
    s << "greedy";
  } else {
    s << "temp " << p.temperature;
    if (p.top_k > 0) s << " top-k " << p.top_k;
    if (p.top_p < 1.0f) s << " top-p " << p.top_p;
    if (p.min_p > 0.0f) s << " min-p " << p.min_p;
  }
  if (p.penalties_active()) {
    if (p.repeat_penalty != 1.0f) s << " repeat-penalty " << p.repeat_penalty;
    if (p.frequency_penalty != 0.0f) s << " frequency-penalty " << p.frequency_penalty;
    if (p.presence_penalty != 0.0f) s << " presence-penalty " << p.presence_penalty;
    s << " last-n ";
    if (p.penalty_last_n < 0) {
      s << "all";
    } else {
      s << p.penalty_last_n;
    }
  }
  if (!p.greedy()) s << " seed " << p.seed;
  return s.str();
}

}  // namespace pdbench
