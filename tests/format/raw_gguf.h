#pragma once
// Hand-assembled GGUF files, so tests can produce the malformed files that
// GgufWriter refuses to write. Every field the reader checks can be set.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdbench::test {

// Appends little-endian values.
class Bytes {
 public:
  template <typename T>
  Bytes& put(T v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    data.insert(data.end(), p, p + sizeof(T));
    return *this;
  }
  Bytes& str(std::string_view s) {
    put<uint64_t>(s.size());
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    data.insert(data.end(), p, p + s.size());
    return *this;
  }
  std::vector<std::byte> data;
};

inline std::vector<std::byte> kv_u32(std::string_view key, uint32_t v) {
  return Bytes().str(key).put<uint32_t>(4).put(v).data;
}
inline std::vector<std::byte> kv_string(std::string_view key, std::string_view v) {
  return Bytes().str(key).put<uint32_t>(8).str(v).data;
}

struct RawTensor {
  std::string name;
  std::vector<uint64_t> dims;
  uint32_t type = 0;  // f32
  uint64_t offset = 0;
  std::optional<uint32_t> n_dims;  // written instead of dims.size() when set
};

struct RawGguf {
  uint32_t magic = 0x46554747;
  uint32_t version = 3;
  std::optional<uint64_t> tensor_count;  // written instead of tensors.size() when set
  std::optional<uint64_t> kv_count;      // written instead of kvs.size() when set
  std::vector<std::vector<std::byte>> kvs;
  std::vector<RawTensor> tensors;
  uint64_t padding_alignment = 32;  // pads the header to this before `data`
  std::vector<std::byte> data;

  std::vector<std::byte> bytes() const {
    Bytes b;
    b.put(magic).put(version);
    b.put<uint64_t>(tensor_count.value_or(tensors.size()));
    b.put<uint64_t>(kv_count.value_or(kvs.size()));
    for (const auto& kv : kvs) b.data.insert(b.data.end(), kv.begin(), kv.end());
    for (const auto& t : tensors) {
      b.str(t.name).put<uint32_t>(t.n_dims.value_or(static_cast<uint32_t>(t.dims.size())));
      for (uint64_t d : t.dims) b.put(d);
      b.put(t.type).put(t.offset);
    }
    b.data.resize((b.data.size() + padding_alignment - 1) / padding_alignment * padding_alignment);
    b.data.insert(b.data.end(), data.begin(), data.end());
    return b.data;
  }
};

// A valid file: two metadata entries and two f32 tensors, "a" {4, 2} at
// offset 0 and "b" {8} at offset 32, with 64 bytes of data.
inline RawGguf small_raw_gguf() {
  RawGguf g;
  g.kvs = {kv_string("general.architecture", "llama"), kv_u32("llama.block_count", 1)};
  g.tensors = {{"a", {4, 2}, 0, 0, {}}, {"b", {8}, 0, 32, {}}};
  g.data.resize(64, std::byte{0x11});
  return g;
}

}  // namespace pdbench::test
