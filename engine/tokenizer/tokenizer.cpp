#include "engine/tokenizer/tokenizer.h"

namespace pdbench {

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  int32_t prev = -1;
  for (const int32_t id : ids) {
    text += token_bytes(id, prev);
    prev = id;
  }
  return text;
}

}  // namespace pdbench
