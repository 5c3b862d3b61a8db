#include "engine/model/synthetic_vocab.h"

#include <cstdio>
#include <string_view>

#include "engine/util/error.h"

namespace pdbench {

namespace {

// tokenizer.ggml.token_type values, as llama.cpp numbers them.
constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kByte = 6;
constexpr size_t kFixedTokens = 3 + 256;  // <unk> <s> </s> and the byte tokens
constexpr std::string_view kSpace = "\u2581";

}  // namespace

SyntheticVocab synthetic_vocab(size_t n_vocab, const std::vector<std::string>& added_control) {
  if (n_vocab < kFixedTokens + added_control.size())
    throw Error("synthetic vocabulary: " + std::to_string(n_vocab) + " tokens is too few (at least " +
                std::to_string(kFixedTokens + added_control.size()) + ": <unk>, <s>, </s>, 256 byte tokens and " +
                std::to_string(added_control.size()) + " added)");
  SyntheticVocab v;
  v.pieces.reserve(n_vocab);
  v.scores.reserve(n_vocab);
  v.types.reserve(n_vocab);
  const auto add = [&](std::string piece, float score, int32_t type) {
    v.pieces.push_back(std::move(piece));
    v.scores.push_back(score);
    v.types.push_back(type);
  };
  add("<unk>", 0.0f, kUnknown);
  add("<s>", 0.0f, kControl);
  add("</s>", 0.0f, kControl);
  for (unsigned b = 0; b < 256; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    add(piece, 0.0f, kByte);
  }

  const size_t n_generated = n_vocab - added_control.size();
  // Level L holds "▁" + each word of L-1 letters, then each word of L letters.
  float score = 0.0f;
  const auto add_normal = [&](std::string piece) {
    score -= 1.0f;
    add(std::move(piece), score, kNormal);
    return v.pieces.size() < n_generated;
  };
  const auto add_levels = [&] {
    std::vector<std::string> words{""};  // the words one letter shorter than this level's
    while (v.pieces.size() < n_generated) {
      for (const auto& w : words)
        if (!add_normal(std::string(kSpace) + w)) return;
      std::vector<std::string> longer;
      longer.reserve(words.size() * 26);
      for (const auto& w : words)
        for (char c = 'a'; c <= 'z'; ++c) {
          longer.push_back(w + c);
          if (!add_normal(longer.back())) return;
        }
      words = std::move(longer);
    }
  };
  add_levels();
  for (const std::string& piece : added_control) add(piece, 0.0f, kControl);
  return v;
}

}  // namespace pdbench
