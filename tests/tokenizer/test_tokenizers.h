#pragma once
// The project's tokenizers, each loaded once per test binary (the big
// tokenizer.json files take a while to parse). Shared-folder vocabularies
// return nullptr when that folder is absent; the test then skips.
#include <map>
#include <memory>
#include <string>

#include "engine/format/gguf.h"
#include "engine/tokenizer/llama2c_tokenizer.h"
#include "engine/tokenizer/spm_bpe.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/test_paths.h"

namespace pdbench::test {

enum class Vocab { gpt2, qwen3, llama3, llama2, tok512_bin, tok512_gguf, tok512_sentencepiece };

// Where the vocabulary's file is; "" when it is in the absent shared folder.
inline std::string vocab_path(Vocab vocab) {
  switch (vocab) {
    case Vocab::gpt2:
      return data_path("tokenizers/gpt2/tokenizer.json.gz");
    case Vocab::qwen3:
      return data_path("tokenizers/qwen3/tokenizer.json.gz");
    case Vocab::llama3:
      return shared_path("models/tokenizers/llama3/tokenizer.json.gz");
    case Vocab::llama2:
      return shared_path("models/tokenizers/llama2/tokenizer.bin");
    case Vocab::tok512_gguf:
      return model_path("stories260K.gguf");
    case Vocab::tok512_bin:
    case Vocab::tok512_sentencepiece:
      return model_path("tok512.bin");
  }
  return {};
}

inline std::unique_ptr<Tokenizer> load_vocab(Vocab vocab, const std::string& path) {
  switch (vocab) {
    case Vocab::gpt2:
    case Vocab::qwen3:
    case Vocab::llama3:
      return load_tokenizer_json(path);
    case Vocab::llama2:
    case Vocab::tok512_bin:
      return load_tokenizer_llama2c(path, 0);
    case Vocab::tok512_gguf:
      return load_tokenizer_from_gguf(gguf::GgufFile::open(path));
    case Vocab::tok512_sentencepiece: {
      // tok512.model's normalizer setting, which run.c does not apply.
      SpmVocab spm = read_llama2c_vocab(path, 0);
      spm.remove_extra_whitespaces = true;
      return std::make_unique<SpmBpeTokenizer>(std::move(spm));
    }
  }
  return nullptr;
}

inline const Tokenizer* cached_tokenizer(Vocab vocab) {
  static std::map<Vocab, std::unique_ptr<Tokenizer>> loaded;
  auto& slot = loaded[vocab];
  if (!slot) {
    const std::string path = vocab_path(vocab);
    if (path.empty()) return nullptr;
    slot = load_vocab(vocab, path);
  }
  return slot.get();
}

}  // namespace pdbench::test
