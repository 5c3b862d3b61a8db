#include "engine/format/gguf_writer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "engine/util/atomic_file.h"
#include "engine/format/checked_math.h"
#include "engine/util/error.h"

namespace pdbench::gguf {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF"
constexpr uint32_t kVersion = 3;
constexpr uint64_t kDefaultAlignment = 32;
constexpr size_t kMaxDims = 4;
// Tensor data is produced and written in chunks of whole rows of about this
// size, so memory use does not grow with the model.
constexpr uint64_t kChunkBytes = uint64_t{16} << 20;
constexpr std::string_view kAlignmentKey = "general.alignment";

[[noreturn]] void fail_input(const std::string& what) { throw Error("GGUF writer: " + what); }

std::string type_text(ValueType t) { return std::string(value_type_name(t)); }

template <typename Int>
std::optional<std::string> integer_problem(ValueType t, const Value::Scalar& s) {
  using Held = std::conditional_t<std::is_signed_v<Int>, int64_t, uint64_t>;
  const auto* v = std::get_if<Held>(&s);
  if (v == nullptr)
    return type_text(t) + " value must hold " + (std::is_signed_v<Int> ? "an int64_t" : "a uint64_t");
  if (!std::in_range<Int>(*v)) return std::to_string(*v) + " does not fit in " + type_text(t);
  return std::nullopt;
}

template <typename Held>
std::optional<std::string> holds_problem(ValueType t, const Value::Scalar& s, const char* held) {
  if (std::holds_alternative<Held>(s)) return std::nullopt;
  return type_text(t) + " value must hold " + held;
}

// Why a scalar cannot be stored as `t`, or nullopt when it can.
std::optional<std::string> scalar_problem(ValueType t, const Value::Scalar& s) {
  switch (t) {
    case ValueType::UINT8: return integer_problem<uint8_t>(t, s);
    case ValueType::UINT16: return integer_problem<uint16_t>(t, s);
    case ValueType::UINT32: return integer_problem<uint32_t>(t, s);
    case ValueType::UINT64: return integer_problem<uint64_t>(t, s);
    case ValueType::INT8: return integer_problem<int8_t>(t, s);
    case ValueType::INT16: return integer_problem<int16_t>(t, s);
    case ValueType::INT32: return integer_problem<int32_t>(t, s);
    case ValueType::INT64: return integer_problem<int64_t>(t, s);
    case ValueType::FLOAT32: case ValueType::FLOAT64: return holds_problem<double>(t, s, "a double");
    case ValueType::BOOL: return holds_problem<bool>(t, s, "a bool");
    case ValueType::STRING: return holds_problem<std::string>(t, s, "a std::string");
    case ValueType::ARRAY: return "arrays of arrays are not supported";
  }
  return "unknown value type " + std::to_string(static_cast<uint32_t>(t));
}

void check_value(const std::string& key, const Value& v) {
  const auto fail = [&](const std::string& what) { fail_input("metadata " + key + ": " + what); };
  if (v.type != ValueType::ARRAY) {
    if (auto problem = scalar_problem(v.type, v.scalar)) fail(*problem);
    return;
  }
  if (v.array_type == ValueType::ARRAY) fail("arrays of arrays are not supported");
  if (v.array_type > ValueType::FLOAT64)
    fail("unknown array element type " + std::to_string(static_cast<uint32_t>(v.array_type)));
  for (size_t i = 0; i < v.array.size(); ++i)
    if (auto problem = scalar_problem(v.array_type, v.array[i])) fail("element " + std::to_string(i) + ": " + *problem);
}

// Appends little-endian GGUF encodings to a byte buffer.
class Encoder {
 public:
  template <typename T>
  void put(T v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void string(std::string_view s) {
    put<uint64_t>(s.size());
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    bytes_.insert(bytes_.end(), p, p + s.size());
  }
  // `s` was checked against `t` by check_value.
  void scalar(ValueType t, const Value::Scalar& s) {
    switch (t) {
      case ValueType::UINT8: put(static_cast<uint8_t>(std::get<uint64_t>(s))); break;
      case ValueType::UINT16: put(static_cast<uint16_t>(std::get<uint64_t>(s))); break;
      case ValueType::UINT32: put(static_cast<uint32_t>(std::get<uint64_t>(s))); break;
      case ValueType::UINT64: put(std::get<uint64_t>(s)); break;
      case ValueType::INT8: put(static_cast<int8_t>(std::get<int64_t>(s))); break;
      case ValueType::INT16: put(static_cast<int16_t>(std::get<int64_t>(s))); break;
      case ValueType::INT32: put(static_cast<int32_t>(std::get<int64_t>(s))); break;
      case ValueType::INT64: put(std::get<int64_t>(s)); break;
      case ValueType::FLOAT32: put(static_cast<float>(std::get<double>(s))); break;
      case ValueType::FLOAT64: put(std::get<double>(s)); break;
      case ValueType::BOOL: put(static_cast<uint8_t>(std::get<bool>(s) ? 1 : 0)); break;
      case ValueType::STRING: string(std::get<std::string>(s)); break;
      case ValueType::ARRAY: break;  // rejected by check_value
    }
  }
  void value(const Value& v) {
    put(static_cast<uint32_t>(v.type));
    if (v.type != ValueType::ARRAY) {
      scalar(v.type, v.scalar);
      return;
    }
    put(static_cast<uint32_t>(v.array_type));
    put<uint64_t>(v.array.size());
    for (const auto& s : v.array) scalar(v.array_type, s);
  }
  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

struct TensorLayout {
  uint64_t row_bytes;
  uint64_t n_rows;
  uint64_t offset;  // within the data section
};

TensorLayout shape_layout(const std::string& name, TensorType type, const std::vector<uint64_t>& shape) {
  const auto fail = [&](const std::string& what) { fail_input("tensor " + name + ": " + what); };
  const auto& t = traits(type);
  if (shape.empty() || shape.size() > kMaxDims)
    fail("expected 1 to " + std::to_string(kMaxDims) + " dimensions, found " + std::to_string(shape.size()));
  if (std::find(shape.begin(), shape.end(), uint64_t{0}) != shape.end()) fail("dimensions must be non-zero");
  if (shape[0] % t.block_size != 0)
    fail("row length (shape[0]) " + std::to_string(shape[0]) + " is not a multiple of the " + std::string(t.name) +
         " block size " + std::to_string(t.block_size));
  std::optional<uint64_t> rows = 1;
  for (size_t i = 1; i < shape.size(); ++i)
    if (rows) rows = checked_mul(*rows, shape[i]);
  const auto row_bytes = checked_mul(shape[0] / t.block_size, t.block_bytes);
  if (!rows || !row_bytes || !checked_mul(*rows, *row_bytes)) fail("byte size overflows 64 bits");
  return {*row_bytes, *rows, 0};
}

void write_zeros(AtomicFile& out, uint64_t n) {
  static constexpr std::array<std::byte, 4096> kZeros{};
  for (; n > 0; n -= std::min<uint64_t>(n, kZeros.size()))
    out.write(std::span(kZeros).first(std::min<uint64_t>(n, kZeros.size())));
}

// Writes one tensor's data, produced chunk by chunk into the reused `chunk`
// buffer, then the padding that aligns the next tensor.
void stream_tensor(AtomicFile& out, const GgufWriter::FillRows& fill, const TensorLayout& layout,
                   uint64_t alignment, std::vector<std::byte>& chunk) {
  const uint64_t rows_per_chunk = std::max<uint64_t>(1, kChunkBytes / layout.row_bytes);
  for (uint64_t first = 0; first < layout.n_rows; first += rows_per_chunk) {
    const uint64_t rows = std::min(rows_per_chunk, layout.n_rows - first);
    chunk.assign(rows * layout.row_bytes, std::byte{0});  // zeros wherever a callback writes nothing
    fill(first, chunk);
    out.write(chunk);
  }
  const uint64_t size = layout.n_rows * layout.row_bytes;
  write_zeros(out, *checked_align_up(size, alignment) - size);
}

}  // namespace

void GgufWriter::set(std::string key, Value value) {
  check_value(key, value);
  for (auto& [k, v] : metadata_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  metadata_.emplace_back(std::move(key), std::move(value));
}

void GgufWriter::add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape, FillRows fill) {
  for (const auto& t : tensors_)
    if (t.name == name) fail_input("tensor " + name + ": duplicate tensor name");
  if (!fill) fail_input("tensor " + name + ": no fill callback");
  shape_layout(name, type, shape);
  tensors_.push_back({std::move(name), type, std::move(shape), std::move(fill)});
}

void GgufWriter::add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape,
                            std::vector<std::byte> data) {
  const auto layout = shape_layout(name, type, shape);
  if (data.size() != layout.n_rows * layout.row_bytes)
    fail_input("tensor " + name + ": expected " + std::to_string(layout.n_rows * layout.row_bytes) +
               " bytes of data for its shape and type, found " + std::to_string(data.size()));
  const uint64_t row_bytes = layout.row_bytes;
  FillRows fill = [data = std::move(data), row_bytes](uint64_t first_row, std::span<std::byte> rows) {
    std::memcpy(rows.data(), data.data() + first_row * row_bytes, rows.size());
  };
  add_tensor(std::move(name), type, std::move(shape), std::move(fill));
}

void GgufWriter::write(const std::string& path) const {
  if (!is_power_of_two(alignment_) || alignment_ > std::numeric_limits<uint32_t>::max())
    fail_file(path, "GGUF writer: alignment " + std::to_string(alignment_) +
                        " is not a power of two that fits a uint32");
  const auto explicit_alignment = std::find_if(metadata_.begin(), metadata_.end(),
                                               [](const auto& kv) { return kv.first == kAlignmentKey; });
  const bool add_alignment_key = explicit_alignment == metadata_.end() && alignment_ != kDefaultAlignment;
  if (explicit_alignment != metadata_.end() &&
      explicit_alignment->second != Value::u32(static_cast<uint32_t>(alignment_)))
    fail_file(path, "GGUF writer: metadata general.alignment disagrees with the writer's alignment " +
                        std::to_string(alignment_) + " (expected a uint32 of that value)");

  std::vector<TensorLayout> layouts;
  uint64_t data_bytes = 0;
  for (const auto& t : tensors_) {
    auto layout = shape_layout(t.name, t.type, t.shape);
    layout.offset = data_bytes;
    const auto unpadded_end = checked_add(data_bytes, layout.n_rows * layout.row_bytes);
    const auto end = unpadded_end ? checked_align_up(*unpadded_end, alignment_) : std::nullopt;
    if (!end) fail_file(path, "GGUF writer: total tensor data size overflows 64 bits");
    data_bytes = *end;
    layouts.push_back(layout);
  }

  Encoder header;
  header.put(kMagic);
  header.put(kVersion);
  header.put<uint64_t>(tensors_.size());
  header.put<uint64_t>(metadata_.size() + (add_alignment_key ? 1 : 0));
  for (const auto& [key, value] : metadata_) {
    header.string(key);
    header.value(value);
  }
  if (add_alignment_key) {
    header.string(kAlignmentKey);
    header.value(Value::u32(static_cast<uint32_t>(alignment_)));
  }
  for (size_t i = 0; i < tensors_.size(); ++i) {
    header.string(tensors_[i].name);
    header.put(static_cast<uint32_t>(tensors_[i].shape.size()));
    for (uint64_t d : tensors_[i].shape) header.put(d);
    header.put(static_cast<uint32_t>(tensors_[i].type));
    header.put(layouts[i].offset);
  }

  AtomicFile out(path);
  out.write(header.bytes());
  write_zeros(out, *checked_align_up(header.bytes().size(), alignment_) - header.bytes().size());
  std::vector<std::byte> chunk;
  for (size_t i = 0; i < tensors_.size(); ++i) stream_tensor(out, tensors_[i].fill, layouts[i], alignment_, chunk);
  out.commit();
}

}  // namespace pdbench::gguf
