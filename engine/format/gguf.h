#pragma once
// GGUF v3 reader over a memory map. Everything the header claims is checked
// against the file before it is used; any violation throws pdbench::Error with
// the file's path and what was wrong.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "engine/format/tensor_type.h"
#include "engine/util/mapped_file.h"

namespace pdbench::gguf {

enum class ValueType : uint32_t {
  UINT8 = 0, INT8 = 1, UINT16 = 2, INT16 = 3, UINT32 = 4, INT32 = 5, FLOAT32 = 6,
  BOOL = 7, STRING = 8, ARRAY = 9, UINT64 = 10, INT64 = 11, FLOAT64 = 12,
};
std::string_view value_type_name(ValueType t);

// One metadata value. Integers of every width are held widened; `type` keeps
// the declared type so a writer can round-trip it.
struct Value {
  using Scalar = std::variant<uint64_t, int64_t, double, bool, std::string>;
  ValueType type = ValueType::UINT32;
  Scalar scalar;                     // when type != ARRAY
  ValueType array_type = ValueType::UINT8;
  std::vector<Scalar> array;         // when type == ARRAY

  static Value u32(uint32_t v) { return {ValueType::UINT32, uint64_t{v}, {}, {}}; }
  static Value i32(int32_t v) { return {ValueType::INT32, int64_t{v}, {}, {}}; }
  static Value u64(uint64_t v) { return {ValueType::UINT64, v, {}, {}}; }
  static Value f32(float v) { return {ValueType::FLOAT32, double{v}, {}, {}}; }
  static Value boolean(bool v) { return {ValueType::BOOL, v, {}, {}}; }
  static Value str(std::string v) { return {ValueType::STRING, std::move(v), {}, {}}; }
  static Value strings(std::vector<std::string> v);
  static Value f32s(const std::vector<float>& v);
  static Value i32s(const std::vector<int32_t>& v);
  static Value bools(const std::vector<bool>& v);

  bool operator==(const Value&) const = default;
};

struct TensorInfo {
  std::string name;
  std::vector<uint64_t> shape;  // ggml order: shape[0] is the row length (contiguous)
  TensorType type = TensorType::F32;
  uint64_t offset = 0;          // from the start of the tensor data section
  uint64_t size_bytes = 0;
  const std::byte* data = nullptr;  // into the map; valid while the GgufFile lives

  uint64_t n_elements() const;
  uint64_t n_rows() const;  // product of shape[1..]
};

class GgufFile {
 public:
  // Maps and fully validates the file (see the checks in gguf.cpp).
  static GgufFile open(const std::string& path);

  const std::string& path() const { return file_.path(); }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }

  // Metadata in file order; lookups by key.
  const std::vector<std::pair<std::string, Value>>& metadata() const { return metadata_; }
  const Value* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }

  // Typed getters: throw "PATH: metadata KEY: ..." when the key is missing or
  // holds another type. Integer getters accept any integer type whose value fits.
  uint64_t get_uint(std::string_view key) const;
  uint64_t get_uint(std::string_view key, uint64_t fallback) const;
  float get_float(std::string_view key) const;
  float get_float(std::string_view key, float fallback) const;
  bool get_bool(std::string_view key, bool fallback) const;
  std::string get_string(std::string_view key) const;
  std::string get_string(std::string_view key, std::string fallback) const;
  std::vector<std::string> get_string_array(std::string_view key) const;
  std::vector<float> get_float_array(std::string_view key) const;
  std::vector<int32_t> get_int_array(std::string_view key) const;
  std::vector<bool> get_bool_array(std::string_view key) const;

  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;
  // Throws "PATH: tensor NAME: missing" when absent.
  const TensorInfo& tensor(std::string_view name) const;

 private:
  explicit GgufFile(MappedFile file) : file_(std::move(file)) {}

  MappedFile file_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::unordered_map<std::string, size_t> metadata_index_;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, size_t> tensor_index_;
};

}  // namespace pdbench::gguf
