#pragma once
// Pre-tokenization for byte-level BPE: PCRE2 patterns with Unicode
// properties split text into the pieces BPE runs on (merges never cross them).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct pcre2_real_code_8;

namespace pdbench {

// Hugging Face's Split pre-tokenizer with behavior "Isolated": every match is
// a piece and so is every stretch of text between matches.
class RegexSplitter {
 public:
  // `literal` takes the pattern as plain text (tokenizer.json {"String": ...}).
  // Throws pdbench::Error naming `source` when the pattern does not compile.
  RegexSplitter(const std::string& source, const std::string& pattern, bool literal);

  // Appends the pieces of `text`, which must be valid UTF-8.
  void split(std::string_view text, std::vector<std::string_view>& pieces) const;

 private:
  struct CodeDeleter {
    void operator()(pcre2_real_code_8* code) const;
  };
  std::string source_;
  std::unique_ptr<pcre2_real_code_8, CodeDeleter> code_;
};

// The pattern for a GGUF tokenizer.ggml.pre value ("gpt2", "default",
// "llama-bpe", "qwen2"), as in those models' tokenizer.json; empty when unknown.
std::string_view known_pre_tokenizer_pattern(std::string_view pre);

}  // namespace pdbench
