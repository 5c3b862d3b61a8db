// The tokenizers on arbitrary text: the first byte picks one of the
// project's vocabularies (both SentencePiece-style spellings, both
// byte-level BPE ones), the rest is the text. Encode and decode must not
// throw, must keep the tokenizer_checks.h properties, and byte-level BPE
// must give the text back: exactly for GPT-2, which spells any bytes, and
// as a fixed point for Qwen3, whose NFC normalizer may recompose it once.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/format/gguf.h"
#include "engine/tokenizer/tokenizer.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/tokenizer_checks.h"

namespace {

using namespace pdbench;

const std::string kSourceDir = PDBENCH_SOURCE_DIR;

enum Vocab : uint8_t { kTok512Bin, kTok512Gguf, kGpt2, kQwen3, kVocabCount };

using Tokenizers = std::array<std::unique_ptr<Tokenizer>, kVocabCount>;

Tokenizers load_all() {
  Tokenizers t;
  t[kTok512Bin] = load_tokenizer_llama2c(kSourceDir + "/models/tok512.bin", 0);
  t[kTok512Gguf] = load_tokenizer_from_gguf(gguf::GgufFile::open(kSourceDir + "/models/stories260K.gguf"));
  t[kGpt2] = load_tokenizer_json(kSourceDir + "/tests/data/tokenizers/gpt2/tokenizer.json.gz");
  t[kQwen3] = load_tokenizer_json(kSourceDir + "/tests/data/tokenizers/qwen3/tokenizer.json.gz");
  return t;
}

const Tokenizers& tokenizers() {
  static const Tokenizers loaded = load_all();
  return loaded;
}

}  // namespace

// Loads the vocabularies before fuzzing starts, outside the per-input timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tokenizers();
  return 0;
}

// The first byte: vocabulary (low bits) and BOS (high bit).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto vocab = static_cast<Vocab>(data[0] % kVocabCount);
  const bool add_bos = (data[0] & 0x80) != 0;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  const Tokenizer& tokenizer = *tokenizers()[vocab];
  const std::string decoded = fuzz::round_trip(tokenizer, text, add_bos);
  if (vocab == kGpt2) fuzz::require(decoded == text, "GPT-2 byte-level BPE gives the text back");
  if (vocab == kQwen3)
    fuzz::require(fuzz::round_trip(tokenizer, decoded, add_bos) == decoded, "Qwen3 gives its own decode back");
  return 0;
}
