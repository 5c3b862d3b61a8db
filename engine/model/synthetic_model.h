#pragma once
// GGUF files with random weights and the exact shapes and metadata of
// published models. Speed does not depend on weight values, so these serve
// every benchmark without downloading (or licensing) real weights.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/format/tensor_type.h"
#include "engine/model/config.h"
#include "engine/model/quant_mix.h"

namespace pdbench {

// What the weights' values look like. Speed does not depend on them, but
// accuracy does: random weights give nearly flat next-token distributions,
// over which any rounding looks harmless.
enum class WeightStatistics {
  Random,   // every matrix normal with std 0.02, norms 1
  // As a trained model's: peaked next-token distributions (the final norm
  // scales the logits to a trained model's spread) and a few massive
  // residual-stream channels (LLM.int8's outliers, "massive activations":
  // kMassiveChannels columns of the token embedding 100x the rest), which
  // an activation quantized with one scale per token would let flatten
  // every other channel of that token.
  Trained,
};

struct SyntheticSpec {
  std::string like;  // preset name or a test's label; general.name is "synthetic <like> <type>"
  ModelConfig config;
  QuantMix mix = TensorType::F32;  // the matrices' types, the token embedding included
  uint64_t seed = 0;
  WeightStatistics statistics = WeightStatistics::Random;
};

// The residual-stream channels that WeightStatistics::Trained makes massive.
std::vector<size_t> massive_channels(const ModelConfig& config);

// The --like and --statistics values, in table order (--type's are
// quant_mix_names()).
std::vector<std::string> synthetic_model_names();
std::vector<std::string> weight_statistics_names();
WeightStatistics parse_weight_statistics(std::string_view name);

// The published hyperparameters of a named model; throws pdbench::Error
// listing the names when `like` is none of them.
ModelConfig preset_config(std::string_view like);

// Weights plus norms and biases, as model cards count parameters.
uint64_t parameter_count(const ModelConfig& config);

// Writes the model as llama.cpp names and lays it out: matrices normal with
// std 0.02 in the types spec.mix gives them, norms 1.0 and biases 0.0 in f32 (spec.statistics
// says what changes for Trained), a synthetic SentencePiece vocabulary. Each row's values depend only on (seed, tensor,
// row), so the file is the same however it is chunked or threaded.
void write_synthetic_model(const SyntheticSpec& spec, const std::string& path);

}  // namespace pdbench
