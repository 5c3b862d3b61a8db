// llama2.c tokenizer.bin reader (engine/tokenizer/llama2c_tokenizer.*): loads
// the vocabulary as a model without a vocab_size (read to the end of the
// file) and as stories260K's header sets it, then encodes and decodes a
// sample text with it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/tokenizer/tokenizer.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/tokenizer_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  const std::string path = fuzz::write_scratch_file("tokenizer.bin", fuzz::as_text(data, size));
  for (const int32_t vocab_size : {0, 512}) {
    fuzz::allow_errors([&] {
      const auto tokenizer = load_tokenizer_llama2c(path, vocab_size);
      fuzz::round_trip(*tokenizer, fuzz::kSampleText, true);
    });
  }
  return 0;
}
