// Tokenizer from GGUF metadata (tokenizer.ggml.*), as llama.cpp reads it.
#include <cstdint>
#include <cstdio>
#include <limits>

#include "engine/format/gguf.h"
#include "engine/tokenizer/byte_bpe.h"
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/spm_bpe.h"
#include "engine/tokenizer/token_names.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/util/error.h"

namespace pdbench {
namespace {

// tokenizer.ggml.token_type values.
enum TokenType : int32_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

constexpr uint64_t kNoToken = 0xFFFFFFFF;  // what converters write for "none"

struct Tokens {
  std::vector<std::string> pieces;
  std::vector<int32_t> types;
};

Tokens read_tokens(const gguf::GgufFile& file) {
  Tokens tokens{file.get_string_array("tokenizer.ggml.tokens"), file.get_int_array("tokenizer.ggml.token_type")};
  if (tokens.pieces.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    fail_file(file.path(), "tokenizer.ggml.tokens has more than 2^31-1 entries");
  }
  if (tokens.types.size() != tokens.pieces.size()) {
    fail_file(file.path(), "tokenizer.ggml.token_type has " + std::to_string(tokens.types.size()) +
                               " entries but tokenizer.ggml.tokens has " + std::to_string(tokens.pieces.size()));
  }
  for (size_t i = 0; i < tokens.types.size(); ++i) {
    if (tokens.types[i] < kNormal || tokens.types[i] > kByte) {
      fail_file(file.path(), "tokenizer.ggml.token_type[" + std::to_string(i) +
                                 "] = " + std::to_string(tokens.types[i]) + " is not a token type (1..6)");
    }
  }
  return tokens;
}

int32_t token_id(const gguf::GgufFile& file, std::string_view key, int32_t fallback, size_t n_vocab) {
  if (!file.has(key)) return static_cast<size_t>(fallback) < n_vocab ? fallback : -1;
  const uint64_t id = file.get_uint(key);
  if (id == kNoToken) return -1;
  if (id >= n_vocab) {
    fail_file(file.path(), "metadata " + std::string(key) + " = " + std::to_string(id) +
                               " is outside the vocabulary (" + std::to_string(n_vocab) + " tokens)");
  }
  return static_cast<int32_t>(id);
}

// BOS only when the model wants one (tokenizer.ggml.add_bos_token, e.g. false for Qwen).
int32_t bos_id(const gguf::GgufFile& file, int32_t fallback, size_t n_vocab) {
  const int32_t id = token_id(file, "tokenizer.ggml.bos_token_id", fallback, n_vocab);
  return file.get_bool("tokenizer.ggml.add_bos_token", true) ? id : -1;
}

// Besides EOS: the end-of-turn keys llama.cpp reads, and control tokens named
// like end-of-turn markers (files often lack the keys).
std::vector<int32_t> end_of_generation(const gguf::GgufFile& file, const Tokens& tokens) {
  std::vector<int32_t> ids;
  for (const char* key : {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"}) {
    if (const int32_t id = token_id(file, key, -1, tokens.pieces.size()); id >= 0) ids.push_back(id);
  }
  for (size_t i = 0; i < tokens.pieces.size(); ++i) {
    if (tokens.types[i] == kControl && is_end_of_turn_name(tokens.pieces[i])) ids.push_back(static_cast<int32_t>(i));
  }
  return ids;
}

SpmTokenKind spm_kind(int32_t type) {
  switch (type) {
    case kUnknown:
    case kUnused:
      return SpmTokenKind::unmatched;
    case kControl:
      return SpmTokenKind::control;
    case kByte:
      return SpmTokenKind::byte;
    default:
      return SpmTokenKind::normal;  // normal, user-defined
  }
}

SpmVocab spm_vocab(const gguf::GgufFile& file) {
  Tokens tokens = read_tokens(file);
  const size_t n = tokens.pieces.size();
  SpmVocab vocab;
  vocab.source = file.path();
  vocab.scores = file.get_float_array("tokenizer.ggml.scores");
  if (vocab.scores.size() != n) {
    fail_file(file.path(), "tokenizer.ggml.scores has " + std::to_string(vocab.scores.size()) +
                               " entries but tokenizer.ggml.tokens has " + std::to_string(n));
  }
  vocab.byte_fallback.fill(-1);
  for (size_t id = 0; id < n; ++id) {
    vocab.kinds.push_back(spm_kind(tokens.types[id]));
    if (tokens.types[id] != kByte) continue;
    const int b = byte_piece_value(tokens.pieces[id]);
    if (b < 0) continue;  // SpmBpeTokenizer rejects the vocabulary
    auto& slot = vocab.byte_fallback[static_cast<size_t>(b)];
    if (slot < 0) slot = static_cast<int32_t>(id);
  }
  const int32_t unk = token_id(file, "tokenizer.ggml.unknown_token_id", 0, n);
  for (size_t b = 0; b < 256; ++b) {
    if (vocab.byte_fallback[b] >= 0) continue;
    if (unk < 0) {
      char piece[8];
      std::snprintf(piece, sizeof piece, "<0x%02zX>", b);
      fail_file(file.path(), std::string("no byte token ") + piece + " and no unknown token to use instead");
    }
    vocab.byte_fallback[b] = unk;
  }
  vocab.space = "\u2581";
  vocab.add_space_prefix = file.get_bool("tokenizer.ggml.add_space_prefix", true);
  vocab.bos = bos_id(file, 1, n);
  vocab.eos = token_id(file, "tokenizer.ggml.eos_token_id", 2, n);
  vocab.end_of_generation = end_of_generation(file, tokens);
  vocab.pieces = std::move(tokens.pieces);
  return vocab;
}

ByteBpeConfig byte_bpe_config(const gguf::GgufFile& file) {
  Tokens tokens = read_tokens(file);
  const size_t n = tokens.pieces.size();
  ByteBpeConfig config;
  config.source = file.path();
  for (size_t id = 0; id < n; ++id) {
    // Control and user-defined tokens are stored as raw text and matched in it.
    const bool added = tokens.types[id] == kControl || tokens.types[id] == kUserDefined;
    (added ? config.added : config.vocab).emplace_back(tokens.pieces[id], static_cast<int32_t>(id));
  }
  const std::vector<std::string> merges = file.get_string_array("tokenizer.ggml.merges");
  config.merges.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    auto merge = split_merge(merges[i]);
    if (!merge) {
      fail_file(file.path(), "tokenizer.ggml.merges[" + std::to_string(i) + "] = \"" + merges[i] +
                                 "\" is not two tokens separated by a space");
    }
    config.merges.push_back(std::move(*merge));
  }
  const std::string pre = file.get_string("tokenizer.ggml.pre", "default");
  const std::string_view pattern = known_pre_tokenizer_pattern(pre);
  if (pattern.empty()) {
    fail_file(file.path(),
              "tokenizer.ggml.pre \"" + pre + "\" is not supported (supported: gpt2, default, llama-bpe, qwen2)");
  }
  config.pre_tokenizer.push_back({std::string(pattern), false});
  config.ignore_merges = pre == "llama-bpe";
  config.nfc = pre == "qwen2";  // Qwen's tokenizer.json normalizer
  config.bos = bos_id(file, -1, n);
  config.eos = token_id(file, "tokenizer.ggml.eos_token_id", -1, n);
  config.end_of_generation = end_of_generation(file, tokens);
  return config;
}

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer_from_gguf(const gguf::GgufFile& file) {
  const std::string model = file.get_string("tokenizer.ggml.model");
  if (model == "llama") return std::make_unique<SpmBpeTokenizer>(spm_vocab(file));
  if (model == "gpt2") return std::make_unique<ByteBpeTokenizer>(byte_bpe_config(file));
  fail_file(file.path(), "tokenizer.ggml.model \"" + model + "\" is not supported (expected \"llama\" or \"gpt2\")");
}

}  // namespace pdbench
