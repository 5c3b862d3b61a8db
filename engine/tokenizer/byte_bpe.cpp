#include "engine/tokenizer/byte_bpe.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/pair_merge.h"
#include "engine/tokenizer/utf8.h"
#include "engine/util/error.h"

namespace pdbench {
namespace {

constexpr size_t kCacheLimit = size_t{1} << 16;  // entries; the cache starts over when full

uint64_t pair_key(int32_t left, int32_t right) {
  return (uint64_t{static_cast<uint32_t>(left)} << 32) | static_cast<uint32_t>(right);
}

std::string hex_byte(int b) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  return std::string("0x") + kDigits[b >> 4] + kDigits[b & 15];
}

std::string nfc(std::string_view text, const std::string& source) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()),
                   &out, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) fail_file(source, std::string("NFC normalization failed: ") + utf8proc_errmsg(n));
  std::string result(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
  return result;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> split_merge(std::string_view rule) {
  const size_t space = rule.find(' ', 1);
  if (space == std::string_view::npos) return std::nullopt;
  return std::pair{std::string(rule.substr(0, space)), std::string(rule.substr(space + 1))};
}

ByteBpeTokenizer::ByteBpeTokenizer(const ByteBpeConfig& config)
    : source_(config.source),
      added_(config.added),
      ignore_merges_(config.ignore_merges),
      nfc_(config.nfc),
      bos_(config.bos),
      eos_(config.eos) {
  // Ids may leave holes, but not more than there are entries: a lying id must
  // not make us allocate gigabytes.
  const size_t id_limit = config.vocab.size() + config.added.size();
  int32_t max_id = -1;
  const auto check_entry = [&](const std::pair<std::string, int32_t>& entry) {
    if (entry.second < 0 || static_cast<size_t>(entry.second) >= id_limit) {
      fail_file(source_, "token \"" + entry.first + "\" has id " + std::to_string(entry.second) + ", outside 0.." +
                             std::to_string(id_limit - 1));
    }
    max_id = std::max(max_id, entry.second);
  };
  for (const auto& entry : config.vocab) check_entry(entry);
  for (const auto& entry : config.added) check_entry(entry);
  pieces_.resize(static_cast<size_t>(max_id + 1));
  bytes_.resize(pieces_.size());

  for (const auto& [piece, id] : config.vocab) {
    pieces_[id] = piece;
    bytes_[id] = byte_level::decode(piece).value_or(piece);
    piece_ids_.emplace(piece, id);
  }
  // Added tokens are raw text, not byte-level spellings.
  for (const auto& [content, id] : config.added) pieces_[id] = bytes_[id] = content;

  for (int b = 0; b < 256; ++b) {
    const std::string spelling = byte_level::encode(std::string(1, static_cast<char>(b)));
    const auto it = piece_ids_.find(spelling);
    if (it == piece_ids_.end()) {
      fail_file(source_, "the vocabulary has no token for byte " + hex_byte(b) + " (\"" + spelling + "\")");
    }
    byte_ids_[static_cast<size_t>(b)] = it->second;
  }

  merges_.reserve(config.merges.size());
  for (size_t rank = 0; rank < config.merges.size(); ++rank) {
    // Named references, not a structured binding: clang before 16 cannot
    // capture a binding in the lambda below.
    const std::string& left = config.merges[rank].first;
    const std::string& right = config.merges[rank].second;
    const auto id_of = [&](const std::string& piece) {
      const auto it = piece_ids_.find(piece);
      if (it == piece_ids_.end()) {
        fail_file(source_, "merge " + std::to_string(rank) + " \"" + left + " " + right + "\": \"" + piece +
                               "\" is not in the vocabulary");
      }
      return it->second;
    };
    const int32_t left_id = id_of(left);
    const int32_t right_id = id_of(right);
    merges_.emplace(pair_key(left_id, right_id), Merge{static_cast<int32_t>(rank), id_of(left + right)});
  }

  const auto check_special = [&](int32_t id, const char* what) {
    if (id < -1 || id >= n_vocab()) {
      fail_file(source_, std::string(what) + " id " + std::to_string(id) + " is outside the vocabulary (" +
                             std::to_string(n_vocab()) + " tokens)");
    }
  };
  check_special(bos_, "BOS");
  check_special(eos_, "EOS");
  if (eos_ >= 0) end_of_generation_.push_back(eos_);
  for (const int32_t id : config.end_of_generation) {
    check_special(id, "end-of-generation");
    end_of_generation_.push_back(id);
  }

  splitters_.reserve(config.pre_tokenizer.size());
  for (const auto& split : config.pre_tokenizer) splitters_.emplace_back(source_, split.pattern, split.literal);
}

void ByteBpeTokenizer::check_id(int32_t id) const {
  if (id < 0 || id >= n_vocab()) {
    fail_file(source_, "token id " + std::to_string(id) + " is outside the vocabulary (" + std::to_string(n_vocab()) +
                           " tokens)");
  }
}

std::string ByteBpeTokenizer::token_bytes(int32_t id, int32_t /*prev*/) const {
  check_id(id);
  return bytes_[static_cast<size_t>(id)];
}

std::string_view ByteBpeTokenizer::piece(int32_t id) const {
  check_id(id);
  return pieces_[static_cast<size_t>(id)];
}

bool ByteBpeTokenizer::is_end_of_generation(int32_t id) const {
  return std::find(end_of_generation_.begin(), end_of_generation_.end(), id) != end_of_generation_.end();
}

std::vector<int32_t> ByteBpeTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int32_t> ids;
  if (add_bos && bos_ >= 0) ids.push_back(bos_);
  for (size_t pos = 0; pos < text.size();) {
    const auto match = added_.find(text, pos);
    const size_t end = match ? match->begin : text.size();
    encode_text(text.substr(pos, end - pos), ids);
    if (!match) break;
    ids.push_back(match->id);
    pos = match->begin + match->length;
  }
  return ids;
}

void ByteBpeTokenizer::encode_text(std::string_view text, std::vector<int32_t>& ids) const {
  // The regexes need valid UTF-8; a run of ill-formed bytes is a pre-token of
  // its own (byte-level BPE can spell any bytes).
  for (size_t pos = 0; pos < text.size();) {
    size_t valid_end = pos;
    while (valid_end < text.size()) {
      const utf8::Step step = utf8::next(text, valid_end);
      if (step.status != utf8::Status::complete) break;
      valid_end += step.length;
    }
    if (valid_end > pos) encode_valid_text(text.substr(pos, valid_end - pos), ids);
    size_t invalid_end = valid_end;
    while (invalid_end < text.size()) {
      const utf8::Step step = utf8::next(text, invalid_end);
      if (step.status == utf8::Status::complete) break;
      invalid_end += step.length;
    }
    if (invalid_end > valid_end) encode_pre_token(text.substr(valid_end, invalid_end - valid_end), ids);
    pos = invalid_end;
  }
}

void ByteBpeTokenizer::encode_valid_text(std::string_view text, std::vector<int32_t>& ids) const {
  std::string normalized;
  if (nfc_) {
    normalized = nfc(text, source_);
    text = normalized;
  }
  std::vector<std::string_view> pieces{text};
  std::vector<std::string_view> split;
  for (const RegexSplitter& splitter : splitters_) {
    split.clear();
    for (const std::string_view p : pieces) splitter.split(p, split);
    pieces.swap(split);
  }
  for (const std::string_view p : pieces) encode_pre_token(p, ids);
}

void ByteBpeTokenizer::encode_pre_token(std::string_view bytes, std::vector<int32_t>& ids) const {
  const std::string key(bytes);
  {
    const std::lock_guard lock(cache_mutex_);
    if (const auto it = cache_.find(key); it != cache_.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> merged = merge(bytes);
  ids.insert(ids.end(), merged.begin(), merged.end());
  const std::lock_guard lock(cache_mutex_);
  if (cache_.size() >= kCacheLimit) cache_.clear();
  cache_.emplace(key, std::move(merged));
}

std::vector<int32_t> ByteBpeTokenizer::merge(std::string_view bytes) const {
  if (bytes.empty()) return {};
  if (ignore_merges_) {
    if (const auto it = piece_ids_.find(byte_level::encode(bytes)); it != piece_ids_.end()) return {it->second};
  }

  std::vector<int32_t> initial(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) initial[i] = byte_ids_[static_cast<uint8_t>(bytes[i])];
  // Lowest rank first, leftmost on ties, as Hugging Face's BPE.
  return merge_pairs<int32_t>(initial, [this](int32_t left, int32_t right) -> std::optional<PairMerge<int32_t>> {
    const auto it = merges_.find(pair_key(left, right));
    if (it == merges_.end()) return std::nullopt;
    return PairMerge<int32_t>{-it->second.rank, it->second.result};
  });
}

}  // namespace pdbench
