#pragma once
// Copies of GGUF files with metadata replaced and tensor bytes patched: the
// hostile model files of the tests. A test binary that includes this links
// pdbench_format.
#include <cstddef>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/format/gguf.h"
#include "engine/format/gguf_writer.h"

namespace pdbench::test {

struct GgufEdits {
  std::vector<std::pair<std::string, gguf::Value>> metadata;  // set, replacing any value there
  // Called with each tensor's name and a copy of its bytes, which it may change.
  std::function<void(const std::string& tensor, std::span<std::byte> bytes)> patch;
};

inline void rewrite_gguf(const std::string& from, const std::string& to, const GgufEdits& edits) {
  const gguf::GgufFile in = gguf::GgufFile::open(from);
  gguf::GgufWriter out(in.alignment());
  for (const auto& [key, value] : in.metadata()) out.set(key, value);
  for (const auto& [key, value] : edits.metadata) out.set(key, value);
  for (const gguf::TensorInfo& t : in.tensors()) {
    std::vector<std::byte> bytes(t.data, t.data + t.size_bytes);
    if (edits.patch) edits.patch(t.name, bytes);
    out.add_tensor(t.name, t.type, t.shape, std::move(bytes));
  }
  out.write(to);
}

// Stores `value`'s bytes at byte `offset`: a float, or an f16 scale's bits.
template <class T>
void poke(std::span<std::byte> bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

}  // namespace pdbench::test
