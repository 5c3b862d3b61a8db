#pragma once
// Strict UTF-8 decoding (no overlong forms, surrogates or code points above
// U+10FFFF), shared by the byte-level tokenizer and the streaming decoder.
#include <cstddef>
#include <string>
#include <string_view>

namespace pdbench::utf8 {

enum class Status { complete, incomplete, invalid };

struct Step {
  Status status;
  // complete: the character's length; invalid: the maximal ill-formed
  // subpart (>= 1 byte, replaced by one U+FFFD); incomplete: the bytes up to
  // the end of the text, a valid start that more bytes could complete.
  size_t length;
  char32_t code_point;  // when complete
};

// The character starting at text[pos]; pos < text.size().
Step next(std::string_view text, size_t pos);

void append(std::string& out, char32_t code_point);

inline constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

}  // namespace pdbench::utf8
