#include "engine/sampling/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "engine/sampling/setting_check.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

struct Expansion {
  int32_t token;
  double logprob;
};

struct Beam {
  std::vector<int32_t> tokens;
  double logprob;
  int slot;
  std::vector<Expansion> next;  // its most likely continuations, read as soon as decoded
};

struct Child {
  size_t parent;  // index into the live beams
  int32_t token;
  double logprob;  // the parent's plus the token's
};

// The k most likely next tokens under log-softmax(logits), most likely first,
// ties by lower id, leaving out tokens of probability 0. `order` is scratch.
std::vector<Expansion> top_logprobs(std::span<const float> logits, size_t k,
                                    std::vector<int32_t>& order) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  if (logits.empty()) throw Error("beam search: no logits");
  const float max = *std::max_element(logits.begin(), logits.end());
  if (max == kNegInf) throw Error("beam search: every logit is -inf, no token can follow");
  double sum = 0.0;
  for (float l : logits) sum += std::exp(static_cast<double>(l - max));
  const double log_z = max + std::log(sum);

  order.resize(logits.size());
  std::iota(order.begin(), order.end(), 0);
  k = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int32_t a, int32_t b) {
    return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
  });
  std::vector<Expansion> out;
  for (size_t i = 0; i < k && logits[order[i]] != kNegInf; ++i) {
    out.push_back({order[i], logits[order[i]] - log_z});
  }
  return out;
}

double length_normalized(double logprob, size_t length, float length_penalty) {
  return logprob / std::pow(static_cast<double>(length), static_cast<double>(length_penalty));
}

// Inserts h after every hypothesis scoring at least as high, keeping the list
// best first and earlier finds first among equals.
void add_hypothesis(std::vector<Hypothesis>& hypotheses, Hypothesis h) {
  const auto at = std::upper_bound(hypotheses.begin(), hypotheses.end(), h.score,
                                   [](float s, const Hypothesis& x) { return s > x.score; });
  hypotheses.insert(at, std::move(h));
}

}  // namespace

void BeamParams::validate() const {
  require_setting(width >= 1, "beam width", ">= 1", width);
  require_setting(std::isfinite(length_penalty), "length_penalty", "a finite number",
                  length_penalty);
  require_setting(max_new_tokens >= 1, "max_new_tokens", ">= 1", max_new_tokens);
}

BeamResult beam_search(BeamSearchModel& model, std::span<const float> first_logits,
                       const BeamParams& params) {
  params.validate();
  const size_t width = params.width;
  const auto is_stop = [&](int32_t token) {
    return std::find(params.stop_tokens.begin(), params.stop_tokens.end(), token) !=
           params.stop_tokens.end();
  };
  const auto hypothesis = [&](std::vector<int32_t> tokens, double logprob, bool stopped) {
    const size_t length = tokens.size() + (stopped ? 1 : 0);
    const double score = length_normalized(logprob, length, params.length_penalty);
    return Hypothesis{std::move(tokens), static_cast<float>(logprob), static_cast<float>(score),
                      stopped};
  };
  // The best score a live beam could still reach. Its logprob can only fall,
  // so with a positive penalty its best case is the longest length it can
  // reach, otherwise the shortest (one more token).
  const auto best_possible = [&](double logprob, int step) {
    const int length = params.length_penalty > 0.0f ? params.max_new_tokens : step + 1;
    return length_normalized(logprob, static_cast<size_t>(length), params.length_penalty);
  };

  std::vector<int32_t> order;
  std::vector<Beam> beams;
  beams.push_back({{}, 0.0, 0, top_logprobs(first_logits, width, order)});
  std::vector<Hypothesis> finished;
  std::vector<Child> children;
  std::vector<Child> survivors;
  for (int step = 1;; ++step) {
    children.clear();
    for (size_t b = 0; b < beams.size(); ++b) {
      for (const Expansion& e : beams[b].next) {
        children.push_back({b, e.token, beams[b].logprob + e.logprob});
      }
    }
    std::sort(children.begin(), children.end(), [](const Child& a, const Child& b) {
      if (a.logprob != b.logprob) return a.logprob > b.logprob;
      return a.parent != b.parent ? a.parent < b.parent : a.token < b.token;
    });
    survivors.clear();
    for (size_t rank = 0; rank < children.size() && survivors.size() < width; ++rank) {
      const Child& c = children[rank];
      if (!is_stop(c.token)) {
        survivors.push_back(c);
      } else if (rank < width) {
        add_hypothesis(finished, hypothesis(beams[c.parent].tokens, c.logprob, true));
      }
    }

    if (step == params.max_new_tokens) {
      for (const Child& c : survivors) {
        std::vector<int32_t> tokens = beams[c.parent].tokens;
        tokens.push_back(c.token);
        add_hypothesis(finished, hypothesis(std::move(tokens), c.logprob, false));
      }
      break;
    }
    if (survivors.empty()) break;
    // Survivors are ranked by logprob, so the first has the best chance.
    if (finished.size() >= width &&
        best_possible(survivors.front().logprob, step) <= finished[width - 1].score) {
      break;
    }

    // A parent's first surviving child takes over the parent's slot; its other
    // children get copies in slots that no surviving child's parent holds.
    // Every copy is made before any decode, so no source changes under a copy.
    std::vector<int> slots(survivors.size(), -1);
    std::vector<bool> slot_taken(width, false);
    std::vector<bool> parent_continued(beams.size(), false);
    for (size_t i = 0; i < survivors.size(); ++i) {
      const size_t parent = survivors[i].parent;
      if (parent_continued[parent]) continue;
      parent_continued[parent] = true;
      slots[i] = beams[parent].slot;
      slot_taken[slots[i]] = true;
    }
    int free_slot = 0;
    for (size_t i = 0; i < survivors.size(); ++i) {
      if (slots[i] >= 0) continue;
      while (slot_taken[free_slot]) ++free_slot;
      slots[i] = free_slot;
      slot_taken[free_slot] = true;
      model.copy_slot(beams[survivors[i].parent].slot, free_slot);
    }

    std::vector<Beam> next_beams;
    next_beams.reserve(survivors.size());
    for (size_t i = 0; i < survivors.size(); ++i) {
      const Child& c = survivors[i];
      std::vector<int32_t> tokens = beams[c.parent].tokens;
      tokens.push_back(c.token);
      const std::span<const float> logits = model.decode(slots[i], c.token);
      next_beams.push_back(
          {std::move(tokens), c.logprob, slots[i], top_logprobs(logits, width, order)});
    }
    beams = std::move(next_beams);
  }

  return {finished.front().tokens, finished.front().score, std::move(finished)};
}

}  // namespace pdbench
