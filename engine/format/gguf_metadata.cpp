// Lookups and typed getters over an opened GGUF file's metadata and tensors.
#include <limits>
#include <optional>
#include <string>
#include <variant>

#include "engine/format/gguf.h"
#include "engine/util/error.h"

namespace pdbench::gguf {

namespace {

bool is_integer(ValueType t) {
  switch (t) {
    case ValueType::UINT8: case ValueType::INT8: case ValueType::UINT16: case ValueType::INT16:
    case ValueType::UINT32: case ValueType::INT32: case ValueType::UINT64: case ValueType::INT64:
      return true;
    default:
      return false;
  }
}

bool is_float(ValueType t) { return t == ValueType::FLOAT32 || t == ValueType::FLOAT64; }

std::string type_string(const Value& v) {
  if (v.type != ValueType::ARRAY) return std::string(value_type_name(v.type));
  return "array of " + std::string(value_type_name(v.array_type));
}

// Reads one key's value, failing with "PATH: metadata KEY: ..." messages.
class KeyReader {
 public:
  KeyReader(const GgufFile& file, std::string_view key) : file_(file), key_(key) {}

  [[noreturn]] void fail(const std::string& what) const {
    fail_file(file_.path(), "metadata " + std::string(key_) + ": " + what);
  }

  const Value& require() const {
    const Value* v = file_.find(key_);
    if (v == nullptr) fail("missing");
    return *v;
  }

  uint64_t to_uint(const Value& v) const {
    if (!is_integer(v.type)) fail("expected an unsigned integer, found " + type_string(v));
    if (const auto* i = std::get_if<int64_t>(&v.scalar)) {
      if (*i < 0) fail("expected a non-negative integer, found " + std::to_string(*i));
      return static_cast<uint64_t>(*i);
    }
    return std::get<uint64_t>(v.scalar);
  }

  float to_float(const Value& v) const {
    if (!is_float(v.type)) fail("expected a float32 or float64, found " + type_string(v));
    return static_cast<float>(std::get<double>(v.scalar));
  }

  bool to_bool(const Value& v) const {
    if (v.type != ValueType::BOOL) fail("expected a bool, found " + type_string(v));
    return std::get<bool>(v.scalar);
  }

  std::string to_string(const Value& v) const {
    if (v.type != ValueType::STRING) fail("expected a string, found " + type_string(v));
    return std::get<std::string>(v.scalar);
  }

  const std::vector<Value::Scalar>& array_of(bool (*element_ok)(ValueType), std::string_view expected) const {
    const Value& v = require();
    if (v.type != ValueType::ARRAY || !element_ok(v.array_type))
      fail("expected an array of " + std::string(expected) + ", found " + type_string(v));
    return v.array;
  }

 private:
  const GgufFile& file_;
  std::string_view key_;
};

bool is_string(ValueType t) { return t == ValueType::STRING; }
bool is_bool(ValueType t) { return t == ValueType::BOOL; }

// Integer array elements are held as uint64_t or int64_t.
std::optional<int32_t> as_int32(const Value::Scalar& s) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (const auto* u = std::get_if<uint64_t>(&s))
    return *u <= static_cast<uint64_t>(kMax) ? std::optional(static_cast<int32_t>(*u)) : std::nullopt;
  const int64_t i = std::get<int64_t>(s);
  return i >= kMin && i <= kMax ? std::optional(static_cast<int32_t>(i)) : std::nullopt;
}

std::string integer_string(const Value::Scalar& s) {
  if (const auto* u = std::get_if<uint64_t>(&s)) return std::to_string(*u);
  return std::to_string(std::get<int64_t>(s));
}

}  // namespace

const Value* GgufFile::find(std::string_view key) const {
  const auto it = metadata_index_.find(std::string(key));
  return it == metadata_index_.end() ? nullptr : &metadata_[it->second].second;
}

uint64_t GgufFile::get_uint(std::string_view key) const {
  const KeyReader k(*this, key);
  return k.to_uint(k.require());
}

uint64_t GgufFile::get_uint(std::string_view key, uint64_t fallback) const {
  const Value* v = find(key);
  return v == nullptr ? fallback : KeyReader(*this, key).to_uint(*v);
}

float GgufFile::get_float(std::string_view key) const {
  const KeyReader k(*this, key);
  return k.to_float(k.require());
}

float GgufFile::get_float(std::string_view key, float fallback) const {
  const Value* v = find(key);
  return v == nullptr ? fallback : KeyReader(*this, key).to_float(*v);
}

bool GgufFile::get_bool(std::string_view key, bool fallback) const {
  const Value* v = find(key);
  return v == nullptr ? fallback : KeyReader(*this, key).to_bool(*v);
}

std::string GgufFile::get_string(std::string_view key) const {
  const KeyReader k(*this, key);
  return k.to_string(k.require());
}

std::string GgufFile::get_string(std::string_view key, std::string fallback) const {
  const Value* v = find(key);
  return v == nullptr ? fallback : KeyReader(*this, key).to_string(*v);
}

std::vector<std::string> GgufFile::get_string_array(std::string_view key) const {
  const auto& array = KeyReader(*this, key).array_of(is_string, "strings");
  std::vector<std::string> out;
  out.reserve(array.size());
  for (const auto& s : array) out.push_back(std::get<std::string>(s));
  return out;
}

std::vector<float> GgufFile::get_float_array(std::string_view key) const {
  const auto& array = KeyReader(*this, key).array_of(is_float, "float32 or float64");
  std::vector<float> out;
  out.reserve(array.size());
  for (const auto& f : array) out.push_back(static_cast<float>(std::get<double>(f)));
  return out;
}

std::vector<int32_t> GgufFile::get_int_array(std::string_view key) const {
  const KeyReader k(*this, key);
  const auto& array = k.array_of(is_integer, "integers");
  std::vector<int32_t> out;
  out.reserve(array.size());
  for (size_t i = 0; i < array.size(); ++i) {
    const auto v = as_int32(array[i]);
    if (!v) k.fail("element " + std::to_string(i) + " = " + integer_string(array[i]) + " does not fit an int32");
    out.push_back(*v);
  }
  return out;
}

std::vector<bool> GgufFile::get_bool_array(std::string_view key) const {
  const auto& array = KeyReader(*this, key).array_of(is_bool, "bools");
  std::vector<bool> out;
  out.reserve(array.size());
  for (const auto& b : array) out.push_back(std::get<bool>(b));
  return out;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  const auto it = tensor_index_.find(std::string(name));
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& GgufFile::tensor(std::string_view name) const {
  const TensorInfo* t = find_tensor(name);
  if (t == nullptr) fail_file(path(), "tensor " + std::string(name) + ": missing");
  return *t;
}

}  // namespace pdbench::gguf
