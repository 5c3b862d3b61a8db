#pragma once
// Byte-level BPE (GPT-2, Llama 3, Qwen): added tokens are cut out of the text,
// the rest is split into pre-tokens by regex, each pre-token's bytes are
// spelled as byte-level characters and adjacent pieces are merged, lowest
// merge rank first.
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/tokenizer/added_tokens.h"
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"

namespace pdbench {

struct SplitPattern {
  std::string pattern;
  bool literal = false;  // plain text, not a regex
};

struct ByteBpeConfig {
  std::string source;                                       // the file it came from, for error messages
  std::vector<std::pair<std::string, int32_t>> vocab;       // byte-level spelling, id
  std::vector<std::pair<std::string, std::string>> merges;  // highest priority first
  std::vector<std::pair<std::string, int32_t>> added;       // raw text, id
  std::vector<SplitPattern> pre_tokenizer;                  // applied one after another
  bool ignore_merges = false;  // a pre-token that is a vocabulary piece stays whole (Llama 3)
  bool nfc = false;            // NFC-normalize the text outside added tokens (Qwen)
  int32_t bos = -1;
  int32_t eos = -1;
  std::vector<int32_t> end_of_generation;  // besides eos
};

class ByteBpeTokenizer final : public Tokenizer {
 public:
  // Throws pdbench::Error naming config.source when the vocabulary, merges or
  // special ids do not fit together.
  explicit ByteBpeTokenizer(const ByteBpeConfig& config);

  std::vector<int32_t> encode(std::string_view text, bool add_bos) const override;
  std::string token_bytes(int32_t id, int32_t prev) const override;
  std::string_view piece(int32_t id) const override;
  int32_t n_vocab() const override { return static_cast<int32_t>(pieces_.size()); }
  int32_t bos() const override { return bos_; }
  int32_t eos() const override { return eos_; }
  bool is_end_of_generation(int32_t id) const override;

 private:
  struct Merge {
    int32_t rank;
    int32_t result;
  };

  void check_id(int32_t id) const;
  void encode_text(std::string_view text, std::vector<int32_t>& ids) const;
  void encode_valid_text(std::string_view text, std::vector<int32_t>& ids) const;
  void encode_pre_token(std::string_view bytes, std::vector<int32_t>& ids) const;
  std::vector<int32_t> merge(std::string_view bytes) const;

  std::string source_;
  std::vector<std::string> pieces_;  // as stored, by id
  std::vector<std::string> bytes_;   // what each id decodes to
  std::unordered_map<std::string, int32_t> piece_ids_;
  std::unordered_map<uint64_t, Merge> merges_;  // by (left id, right id)
  std::array<int32_t, 256> byte_ids_{};
  AddedTokenMatcher added_;
  std::vector<RegexSplitter> splitters_;
  bool ignore_merges_;
  bool nfc_;
  int32_t bos_;
  int32_t eos_;
  std::vector<int32_t> end_of_generation_;

  // Text repeats words, so each pre-token's ids are remembered. encode() is
  // const and may run on several threads, hence the mutex.
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

// A merge rule as "left right" (tokenizer.json strings, GGUF tokenizer.ggml.merges):
// split at the first space after the first byte, as llama.cpp does; nullopt
// when there is none.
std::optional<std::pair<std::string, std::string>> split_merge(std::string_view rule);

}  // namespace pdbench
