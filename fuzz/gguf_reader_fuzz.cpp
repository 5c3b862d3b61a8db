// GGUF reader (engine/format/gguf.*): opens and validates the file, then
// reads it as the loaders do: every metadata value through every typed
// getter, every tensor's bytes, and the tokenizer (tokenizer.ggml.*), which
// then encodes and decodes a sample text.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "engine/format/gguf.h"
#include "engine/tokenizer/tokenizer.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/tokenizer_checks.h"

namespace {

using namespace pdbench;

// Each getter throws for a value of another type, so each is tried alone.
void read_every_way(const gguf::GgufFile& file, const std::string& key) {
  fuzz::allow_errors([&] { file.get_uint(key); });
  fuzz::allow_errors([&] { file.get_float(key); });
  fuzz::allow_errors([&] { file.get_bool(key, false); });
  fuzz::allow_errors([&] { file.get_string(key); });
  fuzz::allow_errors([&] { file.get_string_array(key); });
  fuzz::allow_errors([&] { file.get_float_array(key); });
  fuzz::allow_errors([&] { file.get_int_array(key); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_scratch_file("model.gguf", fuzz::as_text(data, size));
  fuzz::allow_errors([&] {
    const auto file = gguf::GgufFile::open(path);
    for (const auto& entry : file.metadata()) read_every_way(file, entry.first);
    for (const gguf::TensorInfo& tensor : file.tensors()) {
      fuzz::require(tensor.n_rows() * tensor.shape[0] == tensor.n_elements(), "rows times row length is the size");
      fuzz::touch(std::span(tensor.data, tensor.size_bytes));
    }
    const auto tokenizer = load_tokenizer_from_gguf(file);
    fuzz::round_trip(*tokenizer, fuzz::kSampleText, true);
  });
  return 0;
}
