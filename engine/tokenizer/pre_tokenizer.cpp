#include "engine/tokenizer/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "engine/tokenizer/utf8.h"
#include "engine/util/error.h"

namespace pdbench {
namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof buffer) < 0) return "PCRE2 error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

}  // namespace

void RegexSplitter::CodeDeleter::operator()(pcre2_real_code_8* code) const { pcre2_code_free(code); }

RegexSplitter::RegexSplitter(const std::string& source, const std::string& pattern, bool literal) : source_(source) {
  // PCRE2_LITERAL refuses PCRE2_UCP, which only matters to regex classes anyway.
  const uint32_t options = PCRE2_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP);
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  code_.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &error,
                            &error_offset, nullptr));
  if (!code_) {
    fail_file(source, "pre-tokenizer pattern " + pattern + ": " + pcre2_message(error) + " at offset " +
                          std::to_string(error_offset));
  }
  // Without JIT (unsupported platform) matching still works, only slower.
  pcre2_jit_compile(code_.get(), PCRE2_JIT_COMPLETE);
}

void RegexSplitter::split(std::string_view text, std::vector<std::string_view>& pieces) const {
  const std::unique_ptr<pcre2_match_data, MatchDataDeleter> match(
      pcre2_match_data_create_from_pattern(code_.get(), nullptr));
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t gap_start = 0;  // text from here up to the next match is a piece too
  size_t pos = 0;
  while (pos < text.size()) {
    // The caller validated the UTF-8; checking it again on every call would
    // make splitting quadratic in the text length.
    const int rc = pcre2_match(code_.get(), subject, text.size(), pos, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) fail_file(source_, "pre-tokenizer pattern failed on the input: " + pcre2_message(rc));
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
    const size_t begin = ovector[0];
    const size_t end = ovector[1];
    if (end == begin) {  // an empty match makes no piece; move past one character
      if (begin == text.size()) break;
      pos = begin + utf8::next(text, begin).length;
      continue;
    }
    if (begin > gap_start) pieces.push_back(text.substr(gap_start, begin - gap_start));
    pieces.push_back(text.substr(begin, end - begin));
    gap_start = pos = end;
  }
  if (gap_start < text.size()) pieces.push_back(text.substr(gap_start));
}

std::string_view known_pre_tokenizer_pattern(std::string_view pre) {
  if (pre == "gpt2" || pre == "default") return kGpt2Pattern;
  if (pre == "llama-bpe") return kLlama3Pattern;
  if (pre == "qwen2") return kQwen2Pattern;
  return {};
}

}  // namespace pdbench
