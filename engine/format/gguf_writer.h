#pragma once
// GGUF v3 writer. Tensor data is produced by callbacks at write time, so a
// multi-gigabyte synthetic model streams to disk without being held in memory.
// The file appears under its final name only when complete (temp + rename).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/format/gguf.h"

namespace pdbench::gguf {

class GgufWriter {
 public:
  // Called with a buffer of exactly the tensor's byte size (or, for large
  // tensors, successive chunks of whole rows; `first_row` says where a chunk starts).
  using FillRows = std::function<void(uint64_t first_row, std::span<std::byte> rows)>;

  explicit GgufWriter(uint64_t alignment = 32) : alignment_(alignment) {}

  void set(std::string key, Value value);  // replaces an existing key
  void add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape, FillRows fill);
  // Convenience for small tensors held in memory (tests).
  void add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape,
                  std::vector<std::byte> data);

  void write(const std::string& path) const;

 private:
  struct PendingTensor {
    std::string name;
    TensorType type;
    std::vector<uint64_t> shape;
    FillRows fill;
  };
  uint64_t alignment_;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::vector<PendingTensor> tensors_;
};

}  // namespace pdbench::gguf
