#include "engine/model/model.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <fstream>

#include "engine/util/available_memory.h"
#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench {

Model Model::load(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot open model file");
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  const bool gguf = in.gcount() == 4 && std::memcmp(magic.data(), "GGUF", 4) == 0;
  // llama2.c checkpoints have no magic: the first int32 is the model width,
  // whose high bytes are zero. Four letters are a magic, just not GGUF's.
  const auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  if (!gguf && in.gcount() == 4 && std::all_of(magic.begin(), magic.end(), letter))
    fail_file(path, "not a model file: magic '" + std::string(magic.data(), 4) +
                        "' is not GGUF's, and a llama2.c checkpoint starts with its model width");
  Model m = gguf ? load_gguf(path) : load_llama2c(path);
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
