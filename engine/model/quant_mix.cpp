// The rules are llama.cpp's llama_tensor_get_type, llama_tensor_get_type_impl
// and tensor_type_fallback (src/llama-quant.cpp, the September 2026 source,
// commit 80fb11ac), restricted to what the engine loads: file types whose
// tensor types it reads, no importance matrix, no experts, no Falcon. Keep
// them in step with that function when llama.cpp changes its mixes; the
// fixture test (tests/model/quant_mix_test.cpp) compares them with
// llama-quantize's own files.
#include "engine/model/quant_mix.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <utility>

#include "engine/format/gguf.h"
#include "engine/model/model.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

using F = LlamaFileType;
using T = TensorType;

// A llama-quantize file type: make-model's name for it and its default type
// (llama_ftype_get_default_type).
struct MixRow {
  std::string_view name;
  LlamaFileType file_type;
  TensorType base;
};
constexpr std::array<MixRow, 20> kMixes{{
    {"f32", F::AllF32, T::F32},     {"f16", F::F16, T::F16},          {"bf16", F::BF16, T::BF16},
    {"q8_0", F::Q8_0, T::Q8_0},     {"q4_0", F::Q4_0, T::Q4_0},       {"q4_1", F::Q4_1, T::Q4_1},
    {"q5_0", F::Q5_0, T::Q5_0},     {"q5_1", F::Q5_1, T::Q5_1},       {"q2_k_s", F::Q2_K_S, T::Q2_K},
    {"q2_k", F::Q2_K, T::Q2_K},     {"q3_k_s", F::Q3_K_S, T::Q3_K},   {"q3_k_m", F::Q3_K_M, T::Q3_K},
    {"q3_k_l", F::Q3_K_L, T::Q3_K}, {"q4_k_s", F::Q4_K_S, T::Q4_K},   {"q4_k_m", F::Q4_K_M, T::Q4_K},
    {"q5_k_s", F::Q5_K_S, T::Q5_K}, {"q5_k_m", F::Q5_K_M, T::Q5_K},   {"q6_k", F::Q6_K, T::Q6_K},
    {"iq4_nl", F::IQ4_NL, T::IQ4_NL}, {"iq4_xs", F::IQ4_XS, T::IQ4_XS},
}};

// The file type a pure file of each type records: its own, or for the
// K-quants that name none, the _S mix (mostly that type).
struct PureRow {
  TensorType type;
  LlamaFileType file_type;
};
constexpr std::array<PureRow, 15> kPure{{
    {T::F32, F::AllF32}, {T::F16, F::F16},       {T::BF16, F::BF16},     {T::Q8_0, F::Q8_0},
    {T::Q4_0, F::Q4_0},  {T::Q4_1, F::Q4_1},     {T::Q5_0, F::Q5_0},     {T::Q5_1, F::Q5_1},
    {T::Q2_K, F::Q2_K},  {T::Q3_K, F::Q3_K_S},   {T::Q4_K, F::Q4_K_S},   {T::Q5_K, F::Q5_K_S},
    {T::Q6_K, F::Q6_K},  {T::IQ4_NL, F::IQ4_NL}, {T::IQ4_XS, F::IQ4_XS},
}};

bool is_quantized(TensorType type) { return traits(type).block_size > 1; }

// The make-model name of a type ("q4_K" is ggml's; names here are lower case).
std::string lower_name(TensorType type) {
  std::string s(traits(type).name);
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

bool names_a_mix(const std::string& name) {
  for (const auto& m : kMixes)
    if (m.name == name) return true;
  return false;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// llama.cpp's tensor_get_category, by the same name matches.
enum class Category { Output, TokenEmbd, AttnQkv, AttnKvB, AttnV, AttnK, AttnQ, AttnOutput, FfnUp, FfnGate, FfnDown, Other };

Category category(std::string_view name) {
  const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (name == "output.weight") return Category::Output;
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return Category::TokenEmbd;
  if (has("attn_qkv.weight")) return Category::AttnQkv;
  if (has("attn_kv_b.weight")) return Category::AttnKvB;
  if (has("attn_v.weight")) return Category::AttnV;
  if (has("attn_k.weight")) return Category::AttnK;
  if (has("attn_q.weight")) return Category::AttnQ;
  if (has("attn_output.weight")) return Category::AttnOutput;
  if (has("ffn_up")) return Category::FfnUp;
  if (has("ffn_gate")) return Category::FfnGate;
  if (has("ffn_down")) return Category::FfnDown;
  return Category::Other;
}

// The N of "blk.N.": llama.cpp counts attn_v and ffn_down tensors as it
// meets them in (layer, name) order, which is the layer index when each
// layer has one of each, as in every architecture here.
size_t layer_of(std::string_view name) {
  int layer = 0;
  if (std::sscanf(std::string(name).c_str(), "blk.%d.", &layer) != 1 || layer < 0) return 0;
  return static_cast<size_t>(layer);
}

// Layers that get more bits: the first and last eighth, every third between.
bool use_more_bits(size_t i, size_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

// The LM head, and the token embedding when it is the LM head.
TensorType output_type(TensorType base, size_t cols) {
  if (cols % traits(base).block_size != 0) return T::Q8_0;
  return base == T::Q8_0 ? base : T::Q6_K;
}

// attn_v, or a fused QKV (llama.cpp tests attn_v-like first, so its own
// attn_qkv branch never runs).
TensorType attn_v_type(F f, TensorType base, const MixModel& m, size_t i) {
  TensorType t = base;
  if (f == F::Q2_K) t = m.n_gqa >= 4 ? T::Q4_K : T::Q3_K;
  else if (f == F::Q2_K_S && m.n_gqa >= 4) t = T::Q4_K;
  else if (f == F::Q3_K_M) t = i < 2 ? T::Q5_K : T::Q4_K;
  else if (f == F::Q3_K_L) t = T::Q5_K;
  else if ((f == F::IQ4_NL || f == F::IQ4_XS) && m.n_gqa >= 4) t = T::Q5_K;
  else if ((f == F::Q4_K_M || f == F::Q5_K_M) && use_more_bits(i, m.n_layers)) t = T::Q6_K;
  else if (f == F::Q4_K_S && i < 4) t = T::Q5_K;
  // 8 query heads share each V head there: its attn_v is small.
  if (m.is_70b && (t == T::Q3_K || t == T::Q4_K)) t = T::Q5_K;
  return t;
}

TensorType ffn_down_type(F f, TensorType base, size_t i, size_t n) {
  if (f == F::Q2_K) return T::Q3_K;
  if (f == F::Q2_K_S) return i < n / 8 ? T::Q4_K : base;
  if (f == F::Q3_K_M) return i < n / 16 ? T::Q5_K : T::Q4_K;
  if (f == F::Q3_K_L) return T::Q5_K;
  if (f == F::Q4_K_M) return use_more_bits(i, n) ? T::Q6_K : base;
  if ((f == F::IQ4_NL || f == F::IQ4_XS) && i < n / 8) return T::Q5_K;
  if (f == F::Q5_K_M && use_more_bits(i, n)) return T::Q6_K;
  if (f == F::Q4_K_S && i < n / 8) return T::Q5_K;
  return base;
}

TensorType attn_output_type(F f, TensorType base) {
  if (f == F::Q2_K) return T::Q3_K;
  if (f == F::Q3_K_M) return T::Q4_K;
  if (f == F::Q3_K_L) return T::Q5_K;
  return base;
}

// llama_tensor_get_type_impl for a quantized file type.
TensorType rule_type(const QuantMix& mix, const MixModel& m, std::string_view name, size_t cols) {
  const Category c = category(name);
  if (c == Category::Output || (m.tied_output && c == Category::TokenEmbd)) return output_type(mix.base, cols);
  const size_t i = layer_of(name);
  switch (c) {
    case Category::AttnV:
    case Category::AttnQkv:
    case Category::AttnKvB: return attn_v_type(mix.file_type, mix.base, m, i);
    case Category::FfnDown: return ffn_down_type(mix.file_type, mix.base, i, m.n_layers);
    case Category::AttnOutput: return attn_output_type(mix.file_type, mix.base);
    default: return mix.base;  // the token embedding, Q, K, gate and up keep the default
  }
}

// tensor_type_fallback: a row that is no whole number of the type's blocks
// takes a 32-block type of about its bits, or F16 if even that does not fit.
TensorType shape_fallback(TensorType t, size_t cols) {
  if (cols % traits(t).block_size == 0) return t;
  TensorType fallback = t;
  switch (t) {
    case T::IQ4_XS: fallback = T::IQ4_NL; break;
    case T::Q2_K:
    case T::Q3_K: fallback = T::Q4_0; break;
    case T::Q4_K: fallback = T::Q5_0; break;
    case T::Q5_K: fallback = T::Q5_1; break;
    case T::Q6_K: fallback = T::Q8_0; break;
    default: break;  // already a 32-block type
  }
  return cols % traits(fallback).block_size == 0 ? fallback : T::F16;
}

}  // namespace

QuantMix::QuantMix(TensorType type) : QuantMix(lower_name(type), F::AllF32, type, true) {
  for (const auto& p : kPure)
    if (p.type == type) file_type = p.file_type;
  if (is_quantized(type) && names_a_mix(name)) name += "-pure";
}

QuantMix::QuantMix(std::string name_, LlamaFileType file_type_, TensorType base_, bool pure_)
    : name(std::move(name_)), file_type(file_type_), base(base_), pure(pure_) {}

std::vector<std::string> quant_mix_names() {
  std::vector<std::string> names;
  for (const auto& m : kMixes) names.emplace_back(m.name);
  for (const auto& p : kPure)
    if (!names_a_mix(lower_name(p.type))) names.push_back(lower_name(p.type));
  for (const auto& p : kPure)
    if (is_quantized(p.type) && names_a_mix(lower_name(p.type))) names.push_back(lower_name(p.type) + "-pure");
  return names;
}

QuantMix quant_mix(std::string_view name) {
  for (const auto& m : kMixes)
    if (m.name == name) return {std::string(m.name), m.file_type, m.base, false};
  for (const auto& p : kPure) {
    const QuantMix pure(p.type);
    if (pure.name == name) return pure;
  }
  throw Error("unknown weight type '" + std::string(name) + "' (choices: " + joined(quant_mix_names()) + ")");
}

std::string weight_types_label(const Model& model) {
  std::map<TensorType, size_t> bytes;
  size_t total = 0;
  for (const NamedTensor& t : model.tensors()) {
    bytes[t.type] += t.bytes.size();
    total += t.bytes.size();
  }
  std::vector<std::pair<size_t, TensorType>> kept;
  for (const auto& [type, n] : bytes)
    if (n * 100 >= total) kept.push_back({n, type});
  if (kept.empty()) return "none";
  if (kept.size() == 1) return lower_name(kept.front().second);
  if (model.gguf() != nullptr) {
    const auto file_type = model.gguf()->get_uint("general.file_type", ~uint64_t{0});
    for (const auto& m : kMixes)
      if (static_cast<uint64_t>(m.file_type) == file_type) return std::string(m.name);
  }
  std::sort(kept.rbegin(), kept.rend());
  std::string label;
  for (const auto& [n, type] : kept) label += (label.empty() ? "" : "+") + lower_name(type);
  return label;
}

MixModel mix_model(const ModelConfig& c) {
  // llama.cpp's model types from the layer count (src/models/llama.cpp,
  // qwen2.cpp): 80 layers is 70B, for llama only with grouped KV heads.
  const bool is_70b = c.n_layers == 80 && ((c.arch == Architecture::Llama && c.n_heads != c.n_kv_heads) ||
                                            c.arch == Architecture::Qwen2);
  return {c.n_layers, c.n_heads / c.n_kv_heads, c.tied_output, is_70b};
}

TensorType mix_tensor_type(const QuantMix& mix, const MixModel& model, std::string_view name, size_t cols) {
  if (!is_quantized(mix.base)) return mix.base;
  return shape_fallback(mix.pure ? mix.base : rule_type(mix, model, name, cols), cols);
}

}  // namespace pdbench
