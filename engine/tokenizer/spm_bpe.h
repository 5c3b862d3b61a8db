#pragma once
// SentencePiece-style BPE over scored pieces (llama2.c run.c encode(),
// llama.cpp's "llama" vocabulary): the text becomes one symbol per UTF-8
// character (bytes as <0xXX> tokens when no piece matches), then the adjacent
// pair whose concatenation is the best-scoring piece is merged until none is.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/tokenizer/tokenizer.h"

namespace pdbench {

enum class SpmTokenKind : uint8_t {
  normal,     // text; the only kind matched against the input (unless match_all_pieces)
  unmatched,  // unknown and unused tokens: decode as their piece, never come from text
  control,    // BOS, EOS and the like: decode as nothing
  byte,       // <0xXX>: decodes as that raw byte
};

struct SpmVocab {
  std::string source;  // the file it came from, for error messages
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::vector<SpmTokenKind> kinds;
  std::array<int32_t, 256> byte_fallback{};  // token for each byte of a character no piece covers
  std::string space = " ";                   // how pieces spell a space: " " (llama2.c) or "▁" (SentencePiece)
  bool add_space_prefix = true;              // the dummy prefix: text starts with a space
  // SentencePiece normalizer option: collapse runs of spaces, strip leading
  // and trailing ones (llama2.c run.c does not).
  bool remove_extra_whitespaces = false;
  // run.c looks every piece up, even <0xXX> and control pieces.
  bool match_all_pieces = false;
  int32_t bos = -1;
  int32_t eos = -1;
  std::vector<int32_t> end_of_generation;  // besides eos
};

class SpmBpeTokenizer final : public Tokenizer {
 public:
  // Throws pdbench::Error naming vocab.source when its parts do not fit together.
  explicit SpmBpeTokenizer(SpmVocab vocab);

  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string token_bytes(int32_t id, int32_t prev) const override;
  std::string_view piece(int32_t id) const override;
  int32_t n_vocab() const override { return static_cast<int32_t>(vocab_.pieces.size()); }
  int32_t bos() const override { return vocab_.bos; }
  int32_t eos() const override { return vocab_.eos; }
  bool is_end_of_generation(int32_t id) const override;

 private:
  void check_id(int32_t id) const;
  std::string normalize(std::string_view text) const;
  int32_t lookup(const std::string& text) const;  // -1 when no piece matches

  SpmVocab vocab_;
  std::vector<std::string> decoded_;  // by id, spaces restored
  std::unordered_map<std::string, int32_t> piece_ids_;
};

// The byte a "<0xXX>" piece stands for, or -1.
int byte_piece_value(std::string_view piece);

}  // namespace pdbench
