// pdbench make-model: a random-weight GGUF shaped like a published model.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "bench/pdbench/commands.h"
#include "engine/model/synthetic_model.h"

namespace pdbench::cli {

namespace {

struct MakeModelArgs {
  std::string like;
  std::string type;
  uint64_t seed = 0;
  std::string statistics = "random";
  std::string output;
};

void run(const MakeModelArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  SyntheticSpec spec{args.like, preset_config(args.like), quant_mix(args.type), args.seed,
                     parse_weight_statistics(args.statistics)};
  write_synthetic_model(spec, args.output);
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  std::printf("wrote %s: synthetic %s %s, %.1fM parameters, %.2f GB in %.1f s\n", args.output.c_str(),
              args.like.c_str(), args.type.c_str(), static_cast<double>(parameter_count(spec.config)) / 1e6,
              static_cast<double>(std::filesystem::file_size(args.output)) / 1e9, seconds.count());
}

}  // namespace

void register_make_model(CLI::App& app) {
  auto args = std::make_shared<MakeModelArgs>();
  CLI::App* cmd = app.add_subcommand(
      "make-model", "Write a GGUF with random weights and the shapes and metadata of a published model");
  cmd->footer(
      "Weights are normal with std 0.02 (norms 1, biases 0); the vocabulary is synthetic but valid.\n"
      "A file type gives each tensor the type llama-quantize would (without an importance matrix): q4_k_m\n"
      "keeps the LM head and some layers' attn_v and ffn_down in q6_K, q4_0 the LM head; a row that is no\n"
      "whole number of a type's blocks falls back to a 32-block type, as there. NAME-pure is one type.\n"
      "Example: pdbench make-model --like llama-3.2-1b --type q4_k_m -o /tmp/llama-1b-q4_k_m.gguf");
  cmd->add_option("--like", args->like, "Model whose shapes to copy")
      ->required()
      ->check(CLI::IsMember(synthetic_model_names()));
  cmd->add_option("--type", args->type,
                  "Weight types: a llama-quantize file type (q4_k_m, q4_0, ...: its per-tensor mix), a single "
                  "type for every matrix (q4_k, q4_0-pure, f16, ...); norms and biases stay f32")
      ->required()
      ->check(CLI::IsMember(quant_mix_names()));
  cmd->add_option("--seed", args->seed, "Random seed: same seed, same file")->capture_default_str();
  cmd->add_option("--statistics", args->statistics,
                  "random: every matrix normal, flat next-token distributions (speed does not depend on values); "
                  "trained: peaked distributions and a few massive residual channels, for accuracy tests")
      ->capture_default_str()
      ->check(CLI::IsMember(weight_statistics_names()));
  cmd->add_option("-o,--output", args->output, "GGUF file to write")->required();
  cmd->callback([args] { run(*args); });
}

}  // namespace pdbench::cli
