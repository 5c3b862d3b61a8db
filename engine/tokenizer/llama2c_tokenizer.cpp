#include "engine/tokenizer/llama2c_tokenizer.h"

#include <algorithm>

#include "engine/format/byte_reader.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/util/error.h"
#include "engine/util/mapped_file.h"

namespace pdbench {
namespace {

constexpr int32_t kBos = 1;
constexpr int32_t kEos = 2;
constexpr int32_t kFirstByteToken = 3;  // run.c: byte fallback id = byte + 3
constexpr size_t kMinVocab = kFirstByteToken + 256;

}  // namespace

SpmVocab read_llama2c_vocab(const std::string& path, int32_t vocab_size) {
  if (vocab_size < 0) fail_file(path, "vocab_size " + std::to_string(vocab_size) + " is negative");
  const MappedFile file(path);
  ByteReader reader(path, file.bytes());
  const auto max_token_length = reader.read<int32_t>("max_token_length");
  if (max_token_length <= 0) {
    fail_file(path, "max_token_length " + std::to_string(max_token_length) + " is not positive");
  }

  SpmVocab vocab;
  vocab.source = path;
  // Each entry takes at least 8 bytes, which bounds what a lying vocab_size
  // can make us reserve.
  vocab.pieces.reserve(std::min<uint64_t>(static_cast<uint64_t>(vocab_size), reader.remaining() / 8));
  for (int32_t id = 0; vocab_size == 0 ? reader.remaining() > 0 : id < vocab_size; ++id) {
    reader.set_context("token " + std::to_string(id));
    vocab.scores.push_back(reader.read<float>("score"));
    const auto length = reader.read<int32_t>("length");
    if (length < 0 || length > max_token_length) {
      reader.fail("length " + std::to_string(length) + " is outside 0..max_token_length (" +
                  std::to_string(max_token_length) + ")");
    }
    reader.need(static_cast<uint64_t>(length), "piece");
    std::string piece(static_cast<size_t>(length), '\0');
    for (char& c : piece) c = reader.read<char>("piece");
    vocab.pieces.push_back(std::move(piece));
  }
  if (vocab.pieces.size() < kMinVocab) {
    fail_file(path, "has " + std::to_string(vocab.pieces.size()) + " tokens; expected at least " +
                        std::to_string(kMinVocab) + " (unk, BOS, EOS and 256 byte tokens)");
  }

  vocab.kinds.resize(vocab.pieces.size(), SpmTokenKind::normal);
  for (size_t id = 0; id < vocab.pieces.size(); ++id) {
    if (byte_piece_value(vocab.pieces[id]) >= 0) vocab.kinds[id] = SpmTokenKind::byte;
  }
  vocab.kinds[0] = SpmTokenKind::unmatched;
  vocab.kinds[kBos] = vocab.kinds[kEos] = SpmTokenKind::control;
  for (int b = 0; b < 256; ++b) vocab.byte_fallback[static_cast<size_t>(b)] = kFirstByteToken + b;
  vocab.match_all_pieces = true;
  vocab.bos = kBos;
  vocab.eos = kEos;
  // run.c stops when the model samples BOS: llama2.c models separate stories with it.
  vocab.end_of_generation = {kBos};
  return vocab;
}

std::unique_ptr<Tokenizer> load_tokenizer_llama2c(const std::string& path, int32_t vocab_size) {
  return std::make_unique<SpmBpeTokenizer>(read_llama2c_vocab(path, vocab_size));
}

}  // namespace pdbench
