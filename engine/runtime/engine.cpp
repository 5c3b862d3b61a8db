#include "engine/runtime/engine.h"

#include <array>
#include <fstream>
#include <string_view>

#include "engine/format/gguf.h"
#include "engine/model/finite_weights.h"
#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench {

namespace {

enum class TokenizerFile { Json, Gguf, Llama2c };

TokenizerFile sniff(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot open tokenizer file");
  std::array<char, 64> head{};
  in.read(head.data(), head.size());
  const std::string_view bytes(head.data(), static_cast<size_t>(in.gcount()));
  if (bytes.empty()) fail_file(path, "empty tokenizer file");
  if (bytes.starts_with("\x1f\x8b")) return TokenizerFile::Json;  // gzip: tokenizer.json.gz
  if (bytes.starts_with("GGUF")) return TokenizerFile::Gguf;
  // JSON opens with '{' after optional whitespace; a tokenizer.bin opens
  // with a small int32 (max token length), whose bytes may look like '\n'.
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') return TokenizerFile::Json;
  return TokenizerFile::Llama2c;
}

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer_file(const std::string& path, int32_t vocab_size) {
  switch (sniff(path)) {
    case TokenizerFile::Json:
      return load_tokenizer_json(path);
    case TokenizerFile::Gguf:
      return load_tokenizer_from_gguf(gguf::GgufFile::open(path));
    case TokenizerFile::Llama2c:
      break;
  }
  return load_tokenizer_llama2c(path, vocab_size);
}

Forward& Engine::forward(ForwardKind kind) const {
  if (!weights_checked_) {
    require_finite_weights(*model_);
    weights_checked_ = true;
  }
  auto& slot = forwards_[static_cast<size_t>(kind)];
  if (!slot) slot = make_forward(*model_, kind);
  return *slot;
}

Engine Engine::load(const std::string& model_path, const std::string& tokenizer_path) {
  Engine e;
  e.model_ = std::make_unique<Model>(Model::load(model_path));
  const Model& m = *e.model_;
  if (!tokenizer_path.empty()) {
    e.tokenizer_ = load_tokenizer_file(tokenizer_path, static_cast<int32_t>(m.config().vocab));
  } else if (m.gguf() != nullptr) {
    e.tokenizer_ = load_tokenizer_from_gguf(*m.gguf());
  } else {
    fail_file(model_path, "a llama2.c checkpoint has no tokenizer: pass one with --tokenizer (tokenizer.bin)");
  }
  if (static_cast<size_t>(e.tokenizer_->n_vocab()) > m.config().vocab)
    throw Error("tokenizer has " + std::to_string(e.tokenizer_->n_vocab()) + " tokens but model " + model_path +
                " has a vocabulary of " + std::to_string(m.config().vocab));
  return e;
}

}  // namespace pdbench
