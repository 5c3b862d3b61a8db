#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"

namespace pdbench {
namespace {

// Removes the decodable front of `pending` and returns it as valid UTF-8:
// complete characters as they are, ill-formed bytes as U+FFFD. A character
// cut off at the end stays pending unless `at_end` (then it is ill-formed).
std::string take_decodable(std::string& pending, bool at_end) {
  std::string out;
  size_t pos = 0;
  while (pos < pending.size()) {
    const utf8::Step step = utf8::next(pending, pos);
    if (step.status == utf8::Status::incomplete && !at_end) break;
    if (step.status == utf8::Status::complete) {
      out.append(pending, pos, step.length);
    } else {
      out += utf8::replacement_character;
    }
    pos += step.length;
  }
  pending.erase(0, pos);
  return out;
}

}  // namespace

std::string StreamingDecoder::push(int32_t id) {
  pending_ += tokenizer_.token_bytes(id, prev_);
  prev_ = id;
  return take_decodable(pending_, false);
}

std::string StreamingDecoder::flush() { return take_decodable(pending_, true); }

}  // namespace pdbench
