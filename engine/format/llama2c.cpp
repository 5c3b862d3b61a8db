#include "engine/format/llama2c.h"

#include <array>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>

#include "engine/format/checked_math.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

constexpr size_t kHeaderFields = 7;
constexpr size_t kHeaderBytes = kHeaderFields * sizeof(int32_t);
// Magics that can stand where dim should be, for a clearer error.
constexpr int32_t kVersionedExportMagic = 0x616b3432;  // "ak42": llama2.c's later export formats
constexpr int32_t kGgufMagic = 0x46554747;             // "GGUF"

struct Field {
  const char* name;
  int64_t max;  // generous bounds: they only reject nonsense before sizes are computed
};
constexpr std::array<Field, kHeaderFields> kFields{{
    {"dim", int64_t{1} << 16},
    {"hidden_dim", int64_t{1} << 20},
    {"n_layers", int64_t{1} << 10},
    {"n_heads", int64_t{1} << 12},
    {"n_kv_heads", int64_t{1} << 12},
    {"vocab_size", int64_t{1} << 24},
    {"seq_len", int64_t{1} << 24},
}};

Llama2cConfig read_config(const MappedFile& file) {
  const auto fail = [&](const std::string& what) { fail_file(file.path(), "llama2.c checkpoint: " + what); };
  if (file.size() < kHeaderBytes)
    fail("expected at least the " + std::to_string(kHeaderBytes) + "-byte header, found a file of " +
         std::to_string(file.size()) + " bytes");
  std::array<int32_t, kHeaderFields> raw{};
  std::memcpy(raw.data(), file.bytes().data(), kHeaderBytes);
  if (raw[0] == kVersionedExportMagic)
    fail("expected a legacy (version 0) checkpoint, found the \"ak42\" magic of a later llama2.c export format");
  if (raw[0] == kGgufMagic) fail("expected a legacy (version 0) checkpoint, found a GGUF file");

  std::array<size_t, kHeaderFields> v{};
  for (size_t i = 0; i < kHeaderFields; ++i) {
    // A negative vocab_size is how llama2.c marks an unshared classifier.
    const int64_t value = i == 5 ? (raw[i] < 0 ? -int64_t{raw[i]} : raw[i]) : raw[i];
    if (value <= 0 || value > kFields[i].max)
      fail("header " + std::string(kFields[i].name) + " = " + std::to_string(raw[i]) +
           ": expected a positive value of at most " + std::to_string(kFields[i].max));
    v[i] = static_cast<size_t>(value);
  }
  Llama2cConfig c{v[0], v[1], v[2], v[3], v[4], v[5], v[6], raw[5] > 0};
  if (c.dim % c.n_heads != 0)
    fail("header dim = " + std::to_string(c.dim) + ": expected a multiple of n_heads = " + std::to_string(c.n_heads));
  if (c.n_heads % c.n_kv_heads != 0)
    fail("header n_heads = " + std::to_string(c.n_heads) + ": expected a multiple of n_kv_heads = " +
         std::to_string(c.n_kv_heads));
  if (c.head_size() % 2 != 0)
    fail("head size dim / n_heads = " + std::to_string(c.head_size()) +
         ": expected an even value (RoPE rotates pairs)");
  return c;
}

std::string describe(const Llama2cConfig& c) {
  return "dim " + std::to_string(c.dim) + ", hidden_dim " + std::to_string(c.hidden_dim) + ", n_layers " +
         std::to_string(c.n_layers) + ", n_heads " + std::to_string(c.n_heads) + ", n_kv_heads " +
         std::to_string(c.n_kv_heads) + ", vocab_size " + std::to_string(c.vocab_size) +
         (c.shared_classifier ? " (shared classifier)" : " (separate classifier)") + ", seq_len " +
         std::to_string(c.seq_len);
}

// Lays the arrays out one after another, in floats, overflow-checked.
class LayoutBuilder {
 public:
  explicit LayoutBuilder(const std::string& path) : path_(path) {}

  size_t take(std::initializer_list<size_t> dims) {
    std::optional<uint64_t> count = 1;
    for (size_t d : dims)
      if (count) count = checked_mul(*count, d);
    const auto end = count ? checked_add(floats_, *count) : std::nullopt;
    if (!end) fail_file(path_, "llama2.c checkpoint: header implies a size that overflows 64 bits");
    const size_t start = floats_;
    floats_ = *end;
    return start;
  }
  uint64_t floats() const { return floats_; }

 private:
  const std::string& path_;
  uint64_t floats_ = 0;
};

}  // namespace

Llama2cCheckpoint Llama2cCheckpoint::open(const std::string& path) {
  Llama2cCheckpoint ckpt{MappedFile(path)};
  const Llama2cConfig c = read_config(ckpt.file_);
  const size_t layers = c.n_layers;
  LayoutBuilder b(ckpt.path());
  Layout& l = ckpt.layout_;
  l.token_embedding = b.take({c.vocab_size, c.dim});
  l.rms_att = b.take({layers, c.dim});
  l.wq = b.take({layers, c.dim, c.dim});
  l.wk = b.take({layers, c.dim, c.kv_dim()});
  l.wv = b.take({layers, c.dim, c.kv_dim()});
  l.wo = b.take({layers, c.dim, c.dim});
  l.rms_ffn = b.take({layers, c.dim});
  l.w1 = b.take({layers, c.hidden_dim, c.dim});
  l.w2 = b.take({layers, c.dim, c.hidden_dim});
  l.w3 = b.take({layers, c.hidden_dim, c.dim});
  l.rms_final = b.take({c.dim});
  b.take({c.seq_len, c.head_size() / 2});  // freq_cis_real: RoPE tables, recomputed by the engine
  b.take({c.seq_len, c.head_size() / 2});  // freq_cis_imag
  l.wcls = c.shared_classifier ? l.token_embedding : b.take({c.vocab_size, c.dim});

  const auto data_bytes = checked_mul(b.floats(), sizeof(float));
  const auto expected = data_bytes ? checked_add(*data_bytes, kHeaderBytes) : std::nullopt;
  if (!expected) fail_file(path, "llama2.c checkpoint: header implies a size that overflows 64 bits");
  if (ckpt.file_.size() != *expected)
    fail_file(path, "llama2.c checkpoint: expected " + std::to_string(*expected) + " bytes for a header of " +
                        describe(c) + ", found " + std::to_string(ckpt.file_.size()) + " bytes");
  ckpt.config_ = c;
  return ckpt;
}

std::span<const float> Llama2cCheckpoint::floats(size_t offset, size_t count) const {
  // The map is page-aligned and the header is 28 bytes, so the floats are 4-byte aligned.
  const auto* base = reinterpret_cast<const float*>(file_.bytes().data() + kHeaderBytes);
  return {base + offset, count};
}

std::span<const float> Llama2cCheckpoint::layer_slice(size_t offset, size_t layer, size_t per_layer) const {
  if (layer >= config_.n_layers)
    fail_file(path(), "llama2.c checkpoint: layer " + std::to_string(layer) + " requested, but it has " +
                          std::to_string(config_.n_layers) + " layers");
  return floats(offset + layer * per_layer, per_layer);
}

std::span<const float> Llama2cCheckpoint::token_embedding() const {
  return floats(layout_.token_embedding, config_.vocab_size * config_.dim);
}
std::span<const float> Llama2cCheckpoint::rms_att(size_t layer) const {
  return layer_slice(layout_.rms_att, layer, config_.dim);
}
std::span<const float> Llama2cCheckpoint::wq(size_t layer) const {
  return layer_slice(layout_.wq, layer, config_.dim * config_.dim);
}
std::span<const float> Llama2cCheckpoint::wk(size_t layer) const {
  return layer_slice(layout_.wk, layer, config_.kv_dim() * config_.dim);
}
std::span<const float> Llama2cCheckpoint::wv(size_t layer) const {
  return layer_slice(layout_.wv, layer, config_.kv_dim() * config_.dim);
}
std::span<const float> Llama2cCheckpoint::wo(size_t layer) const {
  return layer_slice(layout_.wo, layer, config_.dim * config_.dim);
}
std::span<const float> Llama2cCheckpoint::rms_ffn(size_t layer) const {
  return layer_slice(layout_.rms_ffn, layer, config_.dim);
}
std::span<const float> Llama2cCheckpoint::w1(size_t layer) const {
  return layer_slice(layout_.w1, layer, config_.hidden_dim * config_.dim);
}
std::span<const float> Llama2cCheckpoint::w2(size_t layer) const {
  return layer_slice(layout_.w2, layer, config_.dim * config_.hidden_dim);
}
std::span<const float> Llama2cCheckpoint::w3(size_t layer) const {
  return layer_slice(layout_.w3, layer, config_.hidden_dim * config_.dim);
}
std::span<const float> Llama2cCheckpoint::rms_final() const { return floats(layout_.rms_final, config_.dim); }
std::span<const float> Llama2cCheckpoint::wcls() const {
  return floats(layout_.wcls, config_.vocab_size * config_.dim);
}

}  // namespace pdbench
