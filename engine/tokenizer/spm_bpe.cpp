#include "engine/tokenizer/spm_bpe.h"

#include <algorithm>
#include <utility>

#include "engine/tokenizer/pair_merge.h"
#include "engine/util/error.h"

namespace pdbench {
namespace {

bool is_continuation(char c) { return (static_cast<uint8_t>(c) & 0xC0) == 0x80; }

// run.c only merges pairs that beat its initial best score of -1e10.
constexpr float kMinMergeScore = -1e10f;

std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = text.find(from, pos)) != std::string_view::npos; pos = hit + from.size()) {
    out.append(text, pos, hit - pos);
    out += to;
  }
  out.append(text, pos);
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

int byte_piece_value(std::string_view piece) {
  if (piece.size() != 6 || !piece.starts_with("<0x") || piece[5] != '>') return -1;
  const int high = hex_digit(piece[3]);
  const int low = hex_digit(piece[4]);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

SpmBpeTokenizer::SpmBpeTokenizer(SpmVocab vocab) : vocab_(std::move(vocab)) {
  const size_t n = vocab_.pieces.size();
  const auto fail = [&](const std::string& what) { fail_file(vocab_.source, what); };
  if (vocab_.scores.size() != n || vocab_.kinds.size() != n) {
    fail(std::to_string(n) + " pieces but " + std::to_string(vocab_.scores.size()) + " scores and " +
         std::to_string(vocab_.kinds.size()) + " token kinds");
  }
  for (const int32_t id : vocab_.byte_fallback) {
    if (id < 0 || static_cast<size_t>(id) >= n) fail("byte fallback token " + std::to_string(id) + " out of range");
  }
  for (const int32_t id : {vocab_.bos, vocab_.eos}) {
    if (id < -1 || id >= static_cast<int64_t>(n)) fail("special token " + std::to_string(id) + " out of range");
  }
  decoded_.resize(n);
  for (size_t id = 0; id < n; ++id) {
    const std::string& piece = vocab_.pieces[id];
    if (vocab_.kinds[id] == SpmTokenKind::byte && byte_piece_value(piece) < 0) {
      fail("token " + std::to_string(id) + " is a byte token but its piece \"" + piece + "\" is not <0xXX>");
    }
    switch (vocab_.kinds[id]) {
      case SpmTokenKind::control:
        break;
      case SpmTokenKind::byte:
        decoded_[id] = std::string(1, static_cast<char>(byte_piece_value(piece)));
        break;
      default:
        decoded_[id] = vocab_.space == " " ? piece : replace_all(piece, vocab_.space, " ");
    }
    if (vocab_.match_all_pieces || vocab_.kinds[id] == SpmTokenKind::normal) {
      piece_ids_.emplace(piece, static_cast<int32_t>(id));
    }
  }
  if (vocab_.eos >= 0) vocab_.end_of_generation.push_back(vocab_.eos);
}

void SpmBpeTokenizer::check_id(int32_t id) const {
  if (id < 0 || id >= n_vocab()) {
    fail_file(vocab_.source, "token id " + std::to_string(id) + " is outside the vocabulary (" +
                                 std::to_string(n_vocab()) + " tokens)");
  }
}

std::string SpmBpeTokenizer::token_bytes(int32_t id, int32_t prev) const {
  check_id(id);
  const std::string& text = decoded_[static_cast<size_t>(id)];
  // The dummy prefix is not part of the text: drop it at the start (as
  // SentencePiece) and after BOS (as run.c). Byte tokens are never stripped.
  const bool at_start = prev == -1 || prev == vocab_.bos;
  if (at_start && vocab_.add_space_prefix && vocab_.kinds[static_cast<size_t>(id)] != SpmTokenKind::byte &&
      text.starts_with(' ')) {
    return text.substr(1);
  }
  return text;
}

std::string_view SpmBpeTokenizer::piece(int32_t id) const {
  check_id(id);
  return vocab_.pieces[static_cast<size_t>(id)];
}

bool SpmBpeTokenizer::is_end_of_generation(int32_t id) const {
  const auto& eog = vocab_.end_of_generation;
  return std::find(eog.begin(), eog.end(), id) != eog.end();
}

int32_t SpmBpeTokenizer::lookup(const std::string& text) const {
  const auto it = piece_ids_.find(text);
  return it == piece_ids_.end() ? -1 : it->second;
}

std::string SpmBpeTokenizer::normalize(std::string_view text) const {
  std::string collapsed;
  if (vocab_.remove_extra_whitespaces) {
    for (const char c : text) {
      if (c == ' ' && (collapsed.empty() || collapsed.back() == ' ')) continue;
      collapsed += c;
    }
    if (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
    text = collapsed;
  }
  if (text.empty()) return {};
  std::string out = vocab_.add_space_prefix ? vocab_.space : std::string();
  out += vocab_.space == " " ? std::string(text) : replace_all(text, " ", vocab_.space);
  return out;
}

std::vector<int32_t> SpmBpeTokenizer::encode(std::string_view raw_text, bool add_bos) const {
  std::vector<int32_t> ids;
  if (add_bos && vocab_.bos >= 0) ids.push_back(vocab_.bos);
  const std::string text = normalize(raw_text);
  if (text.empty()) return ids;

  // One symbol per character as run.c splits them: a byte and the (at most
  // three) continuation bytes after it; the bytes of a character no piece
  // matches become byte tokens.
  std::vector<int32_t> symbols;
  symbols.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    size_t length = 1;
    while (length < 4 && pos + length < text.size() && is_continuation(text[pos + length])) ++length;
    const std::string character = text.substr(pos, length);
    if (const int32_t id = lookup(character); id >= 0) {
      symbols.push_back(id);
    } else {
      for (const char c : character) symbols.push_back(vocab_.byte_fallback[static_cast<uint8_t>(c)]);
    }
    pos += length;
  }

  // Best score first, leftmost on ties: the pair run.c's scan picks.
  const std::vector<int32_t> merged =
      merge_pairs<float>(symbols, [this](int32_t left, int32_t right) -> std::optional<PairMerge<float>> {
        const int32_t id = lookup(vocab_.pieces[static_cast<size_t>(left)] + vocab_.pieces[static_cast<size_t>(right)]);
        if (id < 0) return std::nullopt;
        const float score = vocab_.scores[static_cast<size_t>(id)];
        if (!(score > kMinMergeScore)) return std::nullopt;  // also rejects NaN
        return PairMerge<float>{score, id};
      });
  ids.insert(ids.end(), merged.begin(), merged.end());
  return ids;
}

}  // namespace pdbench
