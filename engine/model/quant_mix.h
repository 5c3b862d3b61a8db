#pragma once
// The per-tensor weight types of a GGUF file as llama.cpp's llama-quantize
// chooses them. A file type ("Q4_K_M", "Q4_0", ...) names a default type
// and a rule that moves some tensors to others (the LM head to Q6_K, some
// layers' attn_v and ffn_down to more bits); a --pure file keeps every
// matrix in the default type. make-model writes synthetic files with a
// download's per-tensor types, so they have its bytes per token.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/format/tensor_type.h"
#include "engine/model/config.h"

namespace pdbench {

// llama.cpp's llama_ftype (include/llama.h), what GGUF stores as
// general.file_type; only the ones whose tensor types the engine loads.
enum class LlamaFileType : uint32_t {
  AllF32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q8_0 = 7,
  Q5_0 = 8,
  Q5_1 = 9,
  Q2_K = 10,
  Q3_K_S = 11,
  Q3_K_M = 12,
  Q3_K_L = 13,
  Q4_K_S = 14,
  Q4_K_M = 15,
  Q5_K_S = 16,
  Q5_K_M = 17,
  Q6_K = 18,
  Q2_K_S = 21,
  IQ4_NL = 25,
  IQ4_XS = 30,
  BF16 = 32,
};

// A file's weight types: llama-quantize's file type, or --pure of it.
struct QuantMix {
  // One type for every matrix (a float type, or a quantized one as
  // --pure writes it), named by the type, or by the type plus "-pure"
  // where the bare name is a mix (q4_0-pure). Implicit: a single type is
  // the simplest mix.
  QuantMix(TensorType type);  // NOLINT(google-explicit-constructor)
  QuantMix(std::string name, LlamaFileType file_type, TensorType base, bool pure);

  std::string name;  // make-model's --type value: "q4_k_m", "q4_0-pure", "f16"
  LlamaFileType file_type;
  TensorType base;  // llama_ftype_get_default_type: every matrix no rule moves
  bool pure;        // llama-quantize --pure: no rules, only the shape fallback
};

// The --type values in table order: the mixes, the single types no mix is
// named after (q3_k, q4_k, q5_k), then the pure ones of the mixes' names.
std::vector<std::string> quant_mix_names();
// Throws pdbench::Error listing the names when `name` is none of them.
QuantMix quant_mix(std::string_view name);

class Model;
// What results call a model's weights: its one matrix type ("q8_0"), or
// for a file of several, the llama-quantize mix its general.file_type names
// ("q4_k_m"), else its types by bytes ("q4_k+q6_k"). Types under 1% of
// the bytes (the f32 norms) are left out.
std::string weight_types_label(const Model& model);

// What the rules read of the model.
struct MixModel {
  size_t n_layers = 0;
  size_t n_gqa = 1;          // query heads per KV head
  bool tied_output = false;  // no output.weight: the token embedding is the LM head
  bool is_70b = false;       // llama.cpp's LLM_TYPE_70B, which gives attn_v more bits
};
MixModel mix_model(const ModelConfig& config);

// The type llama-quantize gives the weight matrix `name` (llama.cpp's
// tensor name, "blk.3.attn_v.weight") whose rows hold `cols` values.
// Norms, biases and other 1-D tensors stay f32 and are not asked about.
TensorType mix_tensor_type(const QuantMix& mix, const MixModel& model, std::string_view name, size_t cols);

}  // namespace pdbench
