// llama2.c checkpoint reader (engine/format/llama2c.*): opens the file, then
// reads every weight array it hands out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/format/llama2c.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  const std::string path = fuzz::write_scratch_file("model.bin", fuzz::as_text(data, size));
  fuzz::allow_errors([&] {
    const auto checkpoint = Llama2cCheckpoint::open(path);
    fuzz::touch(checkpoint.token_embedding());
    for (size_t layer = 0; layer < checkpoint.config().n_layers; ++layer) {
      for (const auto& weights :
           {checkpoint.rms_att(layer), checkpoint.wq(layer), checkpoint.wk(layer), checkpoint.wv(layer),
            checkpoint.wo(layer), checkpoint.rms_ffn(layer), checkpoint.w1(layer), checkpoint.w2(layer),
            checkpoint.w3(layer)})
        fuzz::touch(weights);
    }
    fuzz::touch(checkpoint.rms_final());
    fuzz::touch(checkpoint.wcls());
  });
  return 0;
}
