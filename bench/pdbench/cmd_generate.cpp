// pdbench generate: text in, streamed text out, with timings.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/options.h"

namespace pdbench::cli {

namespace {

struct GenerateArgs {
  ModelOptions model;
  GenerateRequest request;
  std::string prompt_file;
  bool json = false;
};

nlohmann::json to_json(const GenerationResult& r) {
  const Timings& t = r.timings;
  return {
      {"prompt_ids", r.prompt_ids},
      {"ids", r.ids},
      {"text", r.text},
      {"stop_reason", r.stop_reason},
      {"timings",
       {{"tokenize_ms", t.tokenize_ms},
        {"prefill_ms", t.prefill_ms},
        {"ttft_ms", t.ttft_ms},
        {"decode_ms", t.decode_ms},
        {"e2e_ms", t.e2e_ms},
        {"tokens", r.ids.size()},
        {"prompt_tokens", r.prompt_ids.size()}}},
  };
}

void run(const GenerateArgs& args) {
  apply_threads(args.model);
  GenerateRequest request = args.request;
  request.prompt = read_text(request.prompt, args.prompt_file);
  const Engine engine = Engine::load(args.model.model, args.model.tokenizer);
  Generator generator(engine, generator_options(args.model));
  if (args.json) {
    std::cout << to_json(generator.generate(request)).dump() << "\n";
    return;
  }
  // Text streams to stdout as it is decoded; the summary goes to stderr so
  // stdout stays exactly the text.
  const GenerationResult r = generator.generate(request, [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  });
  std::fputc('\n', stdout);
  std::fflush(stdout);
  const Timings& t = r.timings;
  const double decode_tps = r.ids.size() > 1 ? 1000.0 * static_cast<double>(r.ids.size() - 1) / t.decode_ms : 0.0;
  std::fprintf(stderr,
               "prompt %zu tokens, generated %zu (%s); tokenize %.3f ms, prefill %.3f ms, TTFT %.3f ms, "
               "decode %.1f tok/s\n",
               r.prompt_ids.size(), r.ids.size(), r.stop_reason.c_str(), t.tokenize_ms, t.prefill_ms,
               t.ttft_ms, decode_tps);
}

}  // namespace

void register_generate(CLI::App& app) {
  auto args = std::make_shared<GenerateArgs>();
  SamplingParams& s = args->request.sampling;
  // llama.cpp's defaults, so numbers compare; --temp 0 for greedy.
  s.temperature = 0.8f;
  s.top_k = 40;
  s.top_p = 0.95f;
  s.min_p = 0.05f;
  s.seed = 42;
  CLI::App* cmd = app.add_subcommand("generate", "Generate text from a prompt, streaming it to stdout");
  cmd->footer(
      "Sampling applies, in order: penalties, temperature, top-k, top-p, min-p, then a seeded draw.\n"
      "Example: pdbench generate -m models/stories260K.gguf -p \"Once upon a time\" -n 124 --temp 0");
  add_model_options(*cmd, args->model);
  add_prompt_options(*cmd, args->request.prompt, args->prompt_file);
  add_sampling_options(*cmd, args->request);
  cmd->add_flag("--json", args->json,
                "Print one JSON object (prompt_ids, ids, text, stop_reason, timings) instead of streaming");
  cmd->callback([args] { run(*args); });
}

}  // namespace pdbench::cli
