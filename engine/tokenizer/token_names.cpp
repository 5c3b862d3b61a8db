#include "engine/tokenizer/token_names.h"

#include <algorithm>
#include <array>

namespace pdbench {

bool is_end_of_turn_name(std::string_view piece) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "<|end_of_text|>", "<|endoftext|>", "</s>", "<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>"};
  return std::find(kNames.begin(), kNames.end(), piece) != kNames.end();
}

}  // namespace pdbench
