#include "engine/model/model.h"

#include <array>
#include <cstring>
#include <fstream>

#include "engine/util/error.h"

namespace pdbench {

Model Model::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot open model file");
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  if (in.gcount() == 4 && std::memcmp(magic.data(), "GGUF", 4) == 0) return load_gguf(path);
  // llama2.c checkpoints have no magic: the first int32 is the model width.
  return load_llama2c(path);
}

size_t Model::weight_bytes() const {
  size_t total = weights_.token_embedding.bytes() + weights_.output_norm.size_bytes();
  if (!config_.tied_output) total += weights_.output.bytes();
  for (const auto& l : weights_.layers) {
    total += l.attn_norm.size_bytes() + l.ffn_norm.size_bytes() + l.bq.size_bytes() +
             l.bk.size_bytes() + l.bv.size_bytes();
    for (const MatrixView* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
      total += m->bytes();
  }
  return total;
}

}  // namespace pdbench
