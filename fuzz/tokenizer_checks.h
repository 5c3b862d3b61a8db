#pragma once
// What holds for any tokenizer a loader accepts and any text: encode gives
// ids inside the vocabulary, and the streaming decoder emits valid UTF-8
// that is the plain decode whenever that is valid UTF-8.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "fuzz/fuzz_support.h"

namespace pdbench::fuzz {

// For loaders: words, a control-token spelling, a byte-token spelling, CJK,
// an emoji and ill-formed bytes.
inline constexpr std::string_view kSampleText =
    "Once upon a time <s> <0x41> \xE5\xA4\xA7\xE6\xA8\xA1 \xF0\x9F\xA6\x99 \xFF\xFE!";

inline bool is_valid_utf8(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    const utf8::Step step = utf8::next(text, pos);
    if (step.status != utf8::Status::complete) return false;
    pos += step.length;
  }
  return true;
}

// Encodes `text`, checks the ids, decodes them both ways; returns the plain decode.
inline std::string round_trip(const Tokenizer& tokenizer, std::string_view text, bool add_bos) {
  const std::vector<int32_t> ids = tokenizer.encode(text, add_bos);
  for (const int32_t id : ids)
    require(id >= 0 && id < tokenizer.n_vocab(), "encode gives ids inside the vocabulary");
  const std::string decoded = tokenizer.decode(ids);
  StreamingDecoder stream(tokenizer);
  std::string streamed;
  for (const int32_t id : ids) streamed += stream.push(id);
  streamed += stream.flush();
  require(is_valid_utf8(streamed), "the streaming decoder emits valid UTF-8");
  if (is_valid_utf8(decoded))
    require(streamed == decoded, "the streaming decoder emits the plain decode when that is valid UTF-8");
  return decoded;
}

}  // namespace pdbench::fuzz
