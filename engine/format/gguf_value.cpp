#include <string>
#include <vector>

#include "engine/format/gguf.h"

namespace pdbench::gguf {

std::string_view value_type_name(ValueType t) {
  switch (t) {
    case ValueType::UINT8: return "uint8";
    case ValueType::INT8: return "int8";
    case ValueType::UINT16: return "uint16";
    case ValueType::INT16: return "int16";
    case ValueType::UINT32: return "uint32";
    case ValueType::INT32: return "int32";
    case ValueType::FLOAT32: return "float32";
    case ValueType::BOOL: return "bool";
    case ValueType::STRING: return "string";
    case ValueType::ARRAY: return "array";
    case ValueType::UINT64: return "uint64";
    case ValueType::INT64: return "int64";
    case ValueType::FLOAT64: return "float64";
  }
  return "unknown";
}

Value Value::strings(std::vector<std::string> v) {
  Value out{ValueType::ARRAY, uint64_t{0}, ValueType::STRING, {}};
  out.array.reserve(v.size());
  for (auto& s : v) out.array.emplace_back(std::move(s));
  return out;
}

Value Value::f32s(const std::vector<float>& v) {
  Value out{ValueType::ARRAY, uint64_t{0}, ValueType::FLOAT32, {}};
  out.array.reserve(v.size());
  for (float f : v) out.array.emplace_back(double{f});
  return out;
}

Value Value::i32s(const std::vector<int32_t>& v) {
  Value out{ValueType::ARRAY, uint64_t{0}, ValueType::INT32, {}};
  out.array.reserve(v.size());
  for (int32_t i : v) out.array.emplace_back(int64_t{i});
  return out;
}

Value Value::bools(const std::vector<bool>& v) {
  Value out{ValueType::ARRAY, uint64_t{0}, ValueType::BOOL, {}};
  out.array.reserve(v.size());
  for (bool b : v) out.array.emplace_back(b);
  return out;
}

}  // namespace pdbench::gguf
