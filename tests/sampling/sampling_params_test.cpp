#include "engine/sampling/sampling_params.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "engine/util/error.h"

namespace pdbench {
namespace {

std::string validate_error(const std::function<void(SamplingParams&)>& change) {
  SamplingParams p;
  change(p);
  try {
    p.validate();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SamplingParams, DefaultsAreValid) { EXPECT_NO_THROW(SamplingParams{}.validate()); }

TEST(SamplingParams, ErrorsNameTheSettingAndItsRange) {
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.top_p = 1.5f; }),
            "top_p must be in (0, 1], got 1.5");
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.top_p = 0.0f; }),
            "top_p must be in (0, 1], got 0");
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.top_k = -1; }),
            "top_k must be >= 0 (0 = off), got -1");
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.min_p = 2.0f; }),
            "min_p must be in [0, 1], got 2");
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.repeat_penalty = 0.0f; }),
            "repeat_penalty must be a finite number > 0 (1 = off), got 0");
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.penalty_last_n = -2; }),
            "penalty_last_n must be >= -1 (-1 = whole history, 0 = off), got -2");
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.temperature = std::nanf(""); }),
            "temperature must be a finite number (<= 0 = greedy), got nan");
  EXPECT_EQ(validate_error([](SamplingParams& p) {
              p.frequency_penalty = std::numeric_limits<float>::infinity();
            }),
            "frequency_penalty must be a finite number (0 = off), got inf");
  EXPECT_EQ(validate_error([](SamplingParams& p) { p.presence_penalty = std::nanf(""); }),
            "presence_penalty must be a finite number (0 = off), got nan");
}

TEST(SamplingParams, BoundaryValuesAreValid) {
  SamplingParams p;
  p.temperature = -1.0f;
  p.top_p = 1.0f;
  p.min_p = 1.0f;
  p.penalty_last_n = -1;
  p.frequency_penalty = -0.5f;  // negative penalties encourage repeats
  EXPECT_NO_THROW(p.validate());
}

TEST(SamplingParams, GreedyAtZeroOrNegativeTemperature) {
  SamplingParams p;
  p.temperature = 0.0f;
  EXPECT_TRUE(p.greedy());
  p.temperature = -0.5f;
  EXPECT_TRUE(p.greedy());
  p.temperature = 1e-6f;
  EXPECT_FALSE(p.greedy());
}

TEST(SamplingParams, PenaltiesActiveOnlyWithAPenaltyAndAWindow) {
  SamplingParams p;
  EXPECT_FALSE(p.penalties_active());
  p.presence_penalty = 0.1f;
  EXPECT_TRUE(p.penalties_active());
  p.penalty_last_n = 0;
  EXPECT_FALSE(p.penalties_active());
}

}  // namespace
}  // namespace pdbench
