#include "engine/sampling/beam_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/sampling/rng.h"
#include "engine/util/error.h"

namespace pdbench {
namespace {

using Sequence = std::vector<int32_t>;
// Next-token logits after a sequence.
using Rule = std::function<std::vector<float>(const Sequence&)>;

// A model whose logits are a function of the whole sequence in a slot. It
// keeps each slot's sequence, so a beam decoded in a slot that holds the wrong
// sequence gets the wrong logits, and it returns every result in one buffer,
// so a search that reads stale logits reads the wrong ones.
class FakeModel : public BeamSearchModel {
 public:
  FakeModel(int slots, Rule rule) : slots_(static_cast<size_t>(slots)), rule_(std::move(rule)) {}

  void copy_slot(int src, int dst) override {
    if (src == dst) throw std::logic_error("copy of a slot onto itself");
    slot(dst) = slot(src);
    ++copies;
  }

  std::span<const float> decode(int s, int32_t token) override {
    slot(s).push_back(token);
    out_ = rule_(slot(s));
    return out_;
  }

  std::vector<float> logits(const Sequence& sequence) const { return rule_(sequence); }

  // Sum of log-softmax over the sequence, token by token.
  double logprob(const Sequence& sequence) const {
    double sum = 0.0;
    for (size_t i = 0; i < sequence.size(); ++i) {
      const std::vector<float> l = rule_(Sequence(sequence.begin(), sequence.begin() + i));
      const float max = *std::max_element(l.begin(), l.end());
      double z = 0.0;
      for (float x : l) z += std::exp(static_cast<double>(x - max));
      sum += l[sequence[i]] - max - std::log(z);
    }
    return sum;
  }

  int copies = 0;

 private:
  Sequence& slot(int s) { return slots_.at(static_cast<size_t>(s)); }

  std::vector<Sequence> slots_;
  Rule rule_;
  std::vector<float> out_;
};

std::vector<float> logits_of(const std::vector<double>& probs) {
  std::vector<float> logits;
  for (double p : probs) {
    logits.push_back(p > 0.0 ? static_cast<float>(std::log(p))
                             : -std::numeric_limits<float>::infinity());
  }
  return logits;
}

// A Markov chain: the next-token probabilities depend on the last token
// (row `tokens` of the table before any token).
Rule markov(std::vector<std::vector<double>> table) {
  return [table = std::move(table)](const Sequence& s) {
    return logits_of(table[s.empty() ? table.size() - 1 : static_cast<size_t>(s.back())]);
  };
}

// Pseudo-random logits in [-3, 3) that depend on the whole sequence.
Rule hashed(uint64_t salt, size_t vocab) {
  return [salt, vocab](const Sequence& s) {
    uint64_t h = salt;
    for (int32_t t : s) h = Rng(h * 31 + static_cast<uint64_t>(t) + 1).next_u64();
    Rng rng(h);
    std::vector<float> logits(vocab);
    for (float& l : logits) l = rng.next_float() * 6.0f - 3.0f;
    return logits;
  };
}

BeamResult search(FakeModel& model, const BeamParams& params) {
  return beam_search(model, model.logits({}), params);
}

// Greedy decoding straight from the model: first maximum, up to a stop token.
Sequence greedy(const FakeModel& model, int max_new_tokens, const Sequence& stop_tokens) {
  Sequence s;
  while (static_cast<int>(s.size()) < max_new_tokens) {
    const std::vector<float> l = model.logits(s);
    const auto t = static_cast<int32_t>(std::max_element(l.begin(), l.end()) - l.begin());
    if (std::find(stop_tokens.begin(), stop_tokens.end(), t) != stop_tokens.end()) break;
    s.push_back(t);
  }
  return s;
}

BeamParams beam(int width, int max_new_tokens, Sequence stop_tokens = {}) {
  BeamParams p;
  p.width = width;
  p.max_new_tokens = max_new_tokens;
  p.stop_tokens = std::move(stop_tokens);
  return p;
}

enum : int32_t { A, B, X, Y };

// Greedy takes A (0.55) but every continuation of A is unlikely; B (0.45) is
// followed by X with 0.9.
Rule greedy_trap() {
  return markov({
      {0.15, 0.1, 0.4, 0.35},   // after A
      {0.03, 0.02, 0.9, 0.05},  // after B
      {0.25, 0.25, 0.25, 0.25},
      {0.25, 0.25, 0.25, 0.25},
      {0.55, 0.45, 0.0, 0.0},  // start
  });
}

TEST(BeamSearch, BeatsGreedyWhenTheFirstChoiceLeadsNowhere) {
  FakeModel model(2, greedy_trap());
  const BeamResult r = search(model, beam(2, 2));
  EXPECT_EQ(r.tokens, (Sequence{B, X}));
  EXPECT_NEAR(r.score, std::log(0.45 * 0.9) / 2, 1e-5);
  EXPECT_EQ(greedy(model, 2, {}), (Sequence{A, X}));
  EXPECT_GT(model.logprob(r.tokens), model.logprob({A, X}));
}

TEST(BeamSearch, WidthOneIsGreedy) {
  FakeModel trap(1, greedy_trap());
  EXPECT_EQ(search(trap, beam(1, 2)).tokens, (Sequence{A, X}));
  for (uint64_t salt = 0; salt < 20; ++salt) {
    SCOPED_TRACE(salt);
    FakeModel model(1, hashed(salt, 6));
    const BeamResult r = search(model, beam(1, 12, {0, 5}));
    EXPECT_EQ(r.tokens, greedy(model, 12, {0, 5}));
    EXPECT_EQ(r.hypotheses.size(), 1u);
  }
}

enum : int32_t { kStop, kA, kB, kC, kD, kJunk };

// A short answer [A] with logprob ln(0.5 * 0.6) = -1.204 and a long one
// [B C D] with ln(0.4 * 0.9^3) = -1.232, each followed by the stop token.
Rule short_or_long() {
  const std::vector<double> junk(6, 1.0 / 6);
  return markov({
      junk,                      // after stop (never used)
      {0.6, 0, 0, 0, 0, 0.4},    // after A
      {0, 0, 0, 0.9, 0, 0.1},    // after B
      {0, 0, 0, 0, 0.9, 0.1},    // after C
      {0.9, 0, 0, 0, 0, 0.1},    // after D
      junk,                      // after junk
      {0, 0.5, 0.4, 0, 0, 0.1},  // start
  });
}

TEST(BeamSearch, LengthPenaltyChangesTheWinner) {
  BeamParams p = beam(2, 6, {kStop});
  p.length_penalty = 0.0f;  // plain sum of logprobs: the short answer
  FakeModel model(2, short_or_long());
  BeamResult r = search(model, p);
  EXPECT_EQ(r.tokens, (Sequence{kA}));
  EXPECT_NEAR(r.score, std::log(0.5 * 0.6), 1e-5);

  p.length_penalty = 1.0f;  // per-token average: the long answer
  FakeModel again(2, short_or_long());
  r = search(again, p);
  EXPECT_EQ(r.tokens, (Sequence{kB, kC, kD}));
  EXPECT_NEAR(r.score, std::log(0.4 * 0.9 * 0.9 * 0.9) / 4, 1e-5);  // the stop token counts
  ASSERT_GE(r.hypotheses.size(), 2u);
  EXPECT_TRUE(r.hypotheses[0].stopped);
  EXPECT_EQ(r.hypotheses[1].tokens, (Sequence{kA}));
}

TEST(BeamSearch, StopTokensEndHypothesesAndAreLeftOut) {
  // The start row makes stop token 5 the most likely first token.
  FakeModel model(3, markov({
                         {0.2, 0.2, 0.2, 0.2, 0.2, 0.0},
                         {0.2, 0.2, 0.2, 0.2, 0.2, 0.0},
                         {0.2, 0.2, 0.2, 0.2, 0.2, 0.0},
                         {0.2, 0.2, 0.2, 0.2, 0.2, 0.0},
                         {0.2, 0.2, 0.2, 0.2, 0.2, 0.0},
                         {0.2, 0.2, 0.2, 0.2, 0.2, 0.0},
                         {0.05, 0.05, 0.0, 0.0, 0.0, 0.9},
                     }));
  const BeamResult r = search(model, beam(3, 5, {0, 5}));
  EXPECT_TRUE(r.tokens.empty());
  EXPECT_NEAR(r.score, std::log(0.9), 1e-5);
  ASSERT_FALSE(r.hypotheses.empty());
  EXPECT_TRUE(r.hypotheses[0].stopped);
  for (size_t i = 1; i < r.hypotheses.size(); ++i) {
    EXPECT_GE(r.hypotheses[i - 1].score, r.hypotheses[i].score);
  }
}

TEST(BeamSearch, UnfinishedBeamsCountAtTheTokenLimit) {
  FakeModel model(2, greedy_trap());
  const BeamResult r = search(model, beam(2, 2, {Y}));
  for (const Hypothesis& h : r.hypotheses) {
    if (!h.stopped) {
      EXPECT_EQ(h.tokens.size(), 2u);
    }
  }
  EXPECT_FALSE(r.hypotheses[0].stopped);
}

TEST(BeamSearch, SlotCopiesKeepEveryBeamsOwnSequence) {
  // Logits depend on the whole sequence, so a beam decoded in a slot holding
  // another sequence would carry a logprob that does not match its tokens.
  int copies = 0;
  for (int width : {2, 3, 4, 5}) {
    for (uint64_t salt = 0; salt < 10; ++salt) {
      SCOPED_TRACE(testing::Message() << "width " << width << " salt " << salt);
      FakeModel model(width, hashed(salt, 7));
      BeamParams p = beam(width, 10, {0});
      p.length_penalty = 0.5f;
      const BeamResult r = search(model, p);
      for (const Hypothesis& h : r.hypotheses) {
        Sequence full = h.tokens;
        if (h.stopped) full.push_back(0);
        EXPECT_NEAR(h.logprob, model.logprob(full), 1e-4);
      }
      copies += model.copies;
    }
  }
  EXPECT_GT(copies, 0);
}

TEST(BeamSearch, WideBeamFindsTheExhaustiveBest) {
  // Width 27 over 3 tokens and 3 steps keeps every sequence.
  for (uint64_t salt = 0; salt < 5; ++salt) {
    SCOPED_TRACE(salt);
    FakeModel model(27, hashed(salt, 3));
    BeamParams p = beam(27, 3, {0});
    p.length_penalty = 0.7f;
    const BeamResult r = search(model, p);

    double best = -std::numeric_limits<double>::infinity();
    Sequence best_tokens;
    int count = 0;
    const std::function<void(Sequence)> visit = [&](Sequence s) {
      for (int32_t t = 0; t < 3; ++t) {
        Sequence next = s;
        next.push_back(t);
        if (t != 0 && next.size() < 3) {
          visit(next);
          continue;
        }
        const double score =
            model.logprob(next) / std::pow(static_cast<double>(next.size()), p.length_penalty);
        ++count;
        if (score > best) {
          best = score;
          best_tokens = t == 0 ? s : next;
        }
      }
    };
    visit({});
    EXPECT_EQ(static_cast<int>(r.hypotheses.size()), count);
    EXPECT_EQ(r.tokens, best_tokens);
    EXPECT_NEAR(r.score, best, 1e-5);
  }
}

TEST(BeamSearch, RejectsBadParams) {
  FakeModel model(1, greedy_trap());
  EXPECT_THROW(search(model, beam(0, 4)), Error);
  EXPECT_THROW(search(model, beam(1, 0)), Error);
  BeamParams p = beam(1, 4);
  p.length_penalty = std::numeric_limits<float>::infinity();
  EXPECT_THROW(search(model, p), Error);
  EXPECT_THROW(beam_search(model, {}, beam(1, 4)), Error);
  try {
    search(model, beam(2, 0));
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "max_new_tokens must be >= 1, got 0");
  }
}

}  // namespace
}  // namespace pdbench
