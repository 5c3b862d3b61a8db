#include "engine/sampling/sampling_params.h"

#include <cmath>

#include "engine/sampling/setting_check.h"

namespace pdbench {

bool SamplingParams::penalties_active() const {
  return penalty_last_n != 0 &&
         (repeat_penalty != 1.0f || frequency_penalty != 0.0f || presence_penalty != 0.0f);
}

void SamplingParams::validate() const {
  require_setting(std::isfinite(temperature), "temperature", "a finite number (<= 0 = greedy)",
                  temperature);
  require_setting(top_k >= 0, "top_k", ">= 0 (0 = off)", top_k);
  require_setting(top_p > 0.0f && top_p <= 1.0f, "top_p", "in (0, 1]", top_p);
  require_setting(min_p >= 0.0f && min_p <= 1.0f, "min_p", "in [0, 1]", min_p);
  require_setting(std::isfinite(repeat_penalty) && repeat_penalty > 0.0f, "repeat_penalty",
                  "a finite number > 0 (1 = off)", repeat_penalty);
  require_setting(std::isfinite(frequency_penalty), "frequency_penalty",
                  "a finite number (0 = off)", frequency_penalty);
  require_setting(std::isfinite(presence_penalty), "presence_penalty", "a finite number (0 = off)",
                  presence_penalty);
  require_setting(penalty_last_n >= -1, "penalty_last_n", ">= -1 (-1 = whole history, 0 = off)",
                  penalty_last_n);
}

}  // namespace pdbench
