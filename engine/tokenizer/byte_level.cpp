#include "engine/tokenizer/byte_level.h"

#include <array>
#include <cstdint>

#include "engine/tokenizer/utf8.h"

namespace pdbench::byte_level {
namespace {

// Printable Latin-1 bytes stand for themselves; the others (controls, space,
// DEL, NBSP, soft hyphen) take the code points from U+0100 up, in byte order.
constexpr char32_t kFirstShifted = 0x100;
constexpr size_t kShiftedCount = 68;

struct Tables {
  std::array<std::string, 256> byte_to_text;
  std::array<int16_t, kFirstShifted + kShiftedCount> code_point_to_byte{};

  Tables() {
    code_point_to_byte.fill(-1);
    char32_t shifted = kFirstShifted;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      const char32_t cp = printable ? static_cast<char32_t>(b) : shifted++;
      utf8::append(byte_to_text[static_cast<size_t>(b)], cp);
      code_point_to_byte[cp] = static_cast<int16_t>(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

std::string encode(std::string_view bytes) {
  const Tables& t = tables();
  std::string text;
  text.reserve(bytes.size() * 2);
  for (const char c : bytes) text += t.byte_to_text[static_cast<uint8_t>(c)];
  return text;
}

std::optional<std::string> decode(std::string_view piece) {
  const Tables& t = tables();
  std::string bytes;
  for (size_t pos = 0; pos < piece.size();) {
    const utf8::Step step = utf8::next(piece, pos);
    if (step.status != utf8::Status::complete || step.code_point >= t.code_point_to_byte.size()) {
      return std::nullopt;
    }
    const int16_t b = t.code_point_to_byte[step.code_point];
    if (b < 0) return std::nullopt;
    bytes += static_cast<char>(b);
    pos += step.length;
  }
  return bytes;
}

}  // namespace pdbench::byte_level
