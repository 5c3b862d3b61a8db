// GGUF parsing and validation. Every count, length and size read from the
// file is checked against the bytes that remain before anything is allocated
// or dereferenced, with overflow-checked arithmetic.
#include "engine/format/gguf.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "engine/format/byte_reader.h"
#include "engine/format/checked_math.h"
#include "engine/util/error.h"

namespace pdbench::gguf {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr uint64_t kDefaultAlignment = 32;
constexpr uint32_t kMaxDims = 4;
constexpr uint32_t kLastValueType = static_cast<uint32_t>(ValueType::FLOAT64);
// Smallest possible encodings, so a claimed count can be rejected before
// anything is allocated: key length + type + 1-byte value; name length +
// n_dims + one dim + type + offset.
constexpr uint64_t kMinKvBytes = 8 + 4 + 1;
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;

std::string hex(uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x00000000";
  for (int i = 9; i >= 2; --i, v >>= 4) s[static_cast<size_t>(i)] = kDigits[v & 0xfu];
  return s;
}

uint64_t min_encoded_bytes(ValueType t) {
  switch (t) {
    case ValueType::UINT8: case ValueType::INT8: case ValueType::BOOL: return 1;
    case ValueType::UINT16: case ValueType::INT16: return 2;
    case ValueType::UINT32: case ValueType::INT32: case ValueType::FLOAT32: return 4;
    case ValueType::UINT64: case ValueType::INT64: case ValueType::FLOAT64: case ValueType::STRING: return 8;
    case ValueType::ARRAY: return 4 + 8;
  }
  return 1;
}

ValueType read_value_type(ByteReader& r, std::string_view what) {
  const auto t = r.read<uint32_t>(what);
  if (t > kLastValueType)
    r.fail("expected a " + std::string(what) + " in 0.." + std::to_string(kLastValueType) + ", found " +
           std::to_string(t));
  return static_cast<ValueType>(t);
}

Value::Scalar read_scalar(ByteReader& r, ValueType t) {
  switch (t) {
    case ValueType::UINT8: return uint64_t{r.read<uint8_t>("uint8 value")};
    case ValueType::INT8: return int64_t{r.read<int8_t>("int8 value")};
    case ValueType::UINT16: return uint64_t{r.read<uint16_t>("uint16 value")};
    case ValueType::INT16: return int64_t{r.read<int16_t>("int16 value")};
    case ValueType::UINT32: return uint64_t{r.read<uint32_t>("uint32 value")};
    case ValueType::INT32: return int64_t{r.read<int32_t>("int32 value")};
    case ValueType::UINT64: return r.read<uint64_t>("uint64 value");
    case ValueType::INT64: return r.read<int64_t>("int64 value");
    case ValueType::FLOAT32: return double{r.read<float>("float32 value")};
    case ValueType::FLOAT64: return r.read<double>("float64 value");
    case ValueType::STRING: return std::string(r.string("string value"));
    case ValueType::BOOL: {
      const auto b = r.read<uint8_t>("bool value");
      if (b > 1) r.fail("expected a bool value of 0 or 1, found " + std::to_string(b));
      return b == 1;
    }
    case ValueType::ARRAY: break;
  }
  r.fail("an array cannot be read as a single value");
}

Value read_value(ByteReader& r) {
  Value v;
  v.type = read_value_type(r, "value type");
  if (v.type != ValueType::ARRAY) {
    v.scalar = read_scalar(r, v.type);
    return v;
  }
  v.array_type = read_value_type(r, "array element type");
  if (v.array_type == ValueType::ARRAY) r.fail("arrays of arrays are not supported");
  const auto count = r.read<uint64_t>("array element count");
  const uint64_t min_bytes = min_encoded_bytes(v.array_type);
  if (count > r.remaining() / min_bytes)
    r.fail("array claims " + std::to_string(count) + " " + std::string(value_type_name(v.array_type)) +
           " elements of at least " + std::to_string(min_bytes) + " bytes each, but only " +
           std::to_string(r.remaining()) + " bytes remain in the file");
  v.array.reserve(count);
  for (uint64_t i = 0; i < count; ++i) v.array.push_back(read_scalar(r, v.array_type));
  return v;
}

void check_counts(ByteReader& r, uint64_t tensor_count, uint64_t kv_count) {
  const uint64_t max_kvs = r.remaining() / kMinKvBytes;
  if (kv_count > max_kvs)
    r.fail("expected at most " + std::to_string(max_kvs) + " metadata entries in the " +
           std::to_string(r.remaining()) + " bytes after the header, found a count of " + std::to_string(kv_count));
  const uint64_t max_tensors = (r.remaining() - kv_count * kMinKvBytes) / kMinTensorInfoBytes;
  if (tensor_count > max_tensors)
    r.fail("expected at most " + std::to_string(max_tensors) + " tensor infos in the " +
           std::to_string(r.remaining()) + " bytes after the header and its " + std::to_string(kv_count) +
           " metadata entries, found a count of " + std::to_string(tensor_count));
}

uint64_t read_alignment(const GgufFile& file) {
  if (!file.has("general.alignment")) return kDefaultAlignment;
  const uint64_t alignment = file.get_uint("general.alignment");
  if (!is_power_of_two(alignment))
    fail_file(file.path(), "metadata general.alignment: expected a non-zero power of two, found " +
                               std::to_string(alignment));
  return alignment;
}

std::string shape_string(const std::vector<uint64_t>& shape) {
  std::string s = "{";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "}";
}

// Reads one tensor info and checks everything that does not depend on where
// the data section starts.
TensorInfo read_tensor_info(ByteReader& r, uint64_t alignment) {
  TensorInfo t;
  t.name = std::string(r.string("tensor name"));
  r.set_context("tensor " + t.name);
  const auto n_dims = r.read<uint32_t>("dimension count");
  if (n_dims < 1 || n_dims > kMaxDims)
    r.fail("expected 1 to " + std::to_string(kMaxDims) + " dimensions, found " + std::to_string(n_dims));
  t.shape.resize(n_dims);
  for (uint32_t i = 0; i < n_dims; ++i) {
    t.shape[i] = r.read<uint64_t>("dimension");
    if (t.shape[i] == 0) r.fail("expected non-zero dimensions, found shape[" + std::to_string(i) + "] = 0");
  }
  const auto type = r.read<uint32_t>("type");
  const auto traits = tensor_type_traits(type);
  if (!traits)
    r.fail("type " + ggml_type_name(type) + " is not supported (supported: " + supported_tensor_type_names() + ")");
  t.type = static_cast<TensorType>(type);
  t.offset = r.read<uint64_t>("data offset");

  if (t.shape[0] % traits->block_size != 0)
    r.fail("row length (shape[0]) " + std::to_string(t.shape[0]) + " is not a multiple of the " +
           std::string(traits->name) + " block size " + std::to_string(traits->block_size));
  std::optional<uint64_t> elements = 1;
  for (uint64_t d : t.shape)
    if (elements) elements = checked_mul(*elements, d);
  const auto bytes = elements ? checked_mul(*elements / traits->block_size, traits->block_bytes) : std::nullopt;
  if (!bytes) r.fail("shape " + shape_string(t.shape) + " is too large: its byte size overflows 64 bits");
  t.size_bytes = *bytes;
  if (t.offset % alignment != 0)
    r.fail("data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
           std::to_string(alignment));
  return t;
}

// Places every tensor inside the data section and rejects overlaps.
void locate_tensors(const std::string& path, std::span<const std::byte> file, uint64_t data_offset,
                    std::vector<TensorInfo>& tensors) {
  if (tensors.empty()) return;
  if (data_offset > file.size())
    fail_file(path, "data section should start at offset " + std::to_string(data_offset) +
                        ", but the file has only " + std::to_string(file.size()) + " bytes");
  const uint64_t data_bytes = file.size() - data_offset;
  for (auto& t : tensors) {
    const auto end = checked_add(t.offset, t.size_bytes);
    if (!end || *end > data_bytes)
      fail_file(path, "tensor " + t.name + ": expected its " + std::to_string(t.size_bytes) + " bytes (shape " +
                          shape_string(t.shape) + ", " + std::string(traits(t.type).name) + ") at data offset " +
                          std::to_string(t.offset) + ", but the data section has only " +
                          std::to_string(data_bytes) + " bytes");
    t.data = file.data() + data_offset + t.offset;
  }
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tensors[a].offset < tensors[b].offset; });
  for (size_t i = 1; i < order.size(); ++i) {
    const auto& prev = tensors[order[i - 1]];
    const auto& next = tensors[order[i]];
    if (next.offset < prev.offset + prev.size_bytes)
      fail_file(path, "tensor " + next.name + ": expected data at or after offset " +
                          std::to_string(prev.offset + prev.size_bytes) + " (the end of tensor " + prev.name +
                          "), found offset " + std::to_string(next.offset) + ": the tensors overlap");
  }
}

}  // namespace

uint64_t TensorInfo::n_elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;  // validated not to overflow when the file was opened
  return n;
}

uint64_t TensorInfo::n_rows() const { return shape.empty() ? 0 : n_elements() / shape[0]; }

GgufFile GgufFile::open(const std::string& path) {
  GgufFile f{MappedFile(path)};
  ByteReader r(f.path(), f.file_.bytes());
  r.set_context("header");

  const auto magic = r.read<uint32_t>("magic");
  if (magic != kMagic)
    r.fail("not a GGUF file: expected magic \"GGUF\" (" + hex(kMagic) + "), found " + hex(magic));
  f.version_ = r.read<uint32_t>("version");
  if (f.version_ != 2 && f.version_ != 3)
    r.fail("expected GGUF version 2 or 3, found version " + std::to_string(f.version_) +
           (f.version_ == 1 ? " (re-convert the model with a current llama.cpp)" : ""));
  const auto tensor_count = r.read<uint64_t>("tensor count");
  const auto kv_count = r.read<uint64_t>("metadata entry count");
  check_counts(r, tensor_count, kv_count);

  f.metadata_.reserve(kv_count);
  for (uint64_t i = 0; i < kv_count; ++i) {
    r.set_context("metadata entry " + std::to_string(i));
    std::string key(r.string("key"));
    r.set_context("metadata " + key);
    if (f.metadata_index_.count(key) != 0) r.fail("duplicate key");
    Value value = read_value(r);
    f.metadata_index_.emplace(key, f.metadata_.size());
    f.metadata_.emplace_back(std::move(key), std::move(value));
  }
  f.alignment_ = read_alignment(f);

  f.tensors_.reserve(tensor_count);
  for (uint64_t i = 0; i < tensor_count; ++i) {
    r.set_context("tensor info " + std::to_string(i));
    TensorInfo t = read_tensor_info(r, f.alignment_);
    if (f.tensor_index_.count(t.name) != 0) fail_file(f.path(), "tensor " + t.name + ": duplicate tensor name");
    f.tensor_index_.emplace(t.name, f.tensors_.size());
    f.tensors_.push_back(std::move(t));
  }

  const auto data_offset = checked_align_up(r.offset(), f.alignment_);
  if (!data_offset) fail_file(f.path(), "data section offset overflows 64 bits");
  locate_tensors(f.path(), f.file_.bytes(), *data_offset, f.tensors_);
  return f;
}

}  // namespace pdbench::gguf
