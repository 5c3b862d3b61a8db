// Hugging Face tokenizer.json reader (engine/tokenizer/tokenizer_json.cpp,
// gzip_file.*): loads the file, plain or gzip-compressed, then encodes and
// decodes a sample text with the tokenizer it describes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/tokenizer/tokenizer.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/tokenizer_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  const std::string path = fuzz::write_scratch_file("tokenizer.json", fuzz::as_text(data, size));
  fuzz::allow_errors([&] {
    const auto tokenizer = load_tokenizer_json(path);
    fuzz::round_trip(*tokenizer, fuzz::kSampleText, false);
  });
  return 0;
}
