#include "engine/model/model.h"

#include <array>
#include <cstring>
#include <fstream>

#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

Model Model::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot open model file");
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  // llama2.c checkpoints have no magic: the first int32 is the model width.
  Model m = in.gcount() == 4 && std::memcmp(magic.data(), "GGUF", 4) == 0 ? load_gguf(path) : load_llama2c(path);
  // Weights are used in place from the map: every step reads them all, so
  // a model that cannot stay resident would be read from disk at each one.
  require_memory(m.weight_bytes(), path + ": model weights");
  return m;
}

size_t Model::weight_bytes() const {
  size_t total = 0;
  for (const NamedTensor& t : tensors_) total += t.bytes.size();
  return total;
}

}  // namespace pdbench
