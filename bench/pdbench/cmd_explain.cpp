// pdbench explain: one request traced stage by stage, for learning where the
// time goes and why a token was chosen.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/options.h"
#include "engine/sampling/sampler.h"

namespace pdbench::cli {

namespace {

struct ExplainArgs {
  ModelOptions model;
  GenerateRequest request;
  std::string prompt_file;
  int top = 5;
};

double ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// Attention-block and FFN-block milliseconds of one layer.
std::pair<double, double> block_ms(const OpProfile& p, int layer) {
  double attn = 0, ffn = 0;
  for (size_t i = 0; i < kOpCount; ++i) {
    const auto op = static_cast<Op>(i);
    if (is_attention_block(op)) attn += ms(p.at(op, layer).ns);
    if (is_ffn_block(op)) ffn += ms(p.at(op, layer).ns);
  }
  return {attn, ffn};
}

// "q4_K x32, f32 x11, q6_K x5": how many of the model's tensors have each
// type, most first, since a quantized file mixes them.
std::string weight_types(const Model& model) {
  std::map<TensorType, size_t> count;
  for (const NamedTensor& t : model.tensors()) ++count[t.type];
  std::vector<std::pair<TensorType, size_t>> most_first(count.begin(), count.end());
  std::stable_sort(most_first.begin(), most_first.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (const auto& [type, n] : most_first)
    s += (s.empty() ? "" : ", ") + std::string(traits(type).name) + " x" + std::to_string(n);
  return s;
}

std::string shown(const Tokenizer& tok, int32_t id) {
  std::string piece(tok.piece(id));
  std::string out;
  for (char ch : piece) out += ch == '\n' ? std::string("\\n") : std::string(1, ch);
  return "'" + out + "'";
}

void print_candidates(const Tokenizer& tok, const StepTrace& s, int top, const std::string& strategy) {
  std::printf("    next token, top %d by probability (softmax of the logits):\n", top);
  for (const Candidate& c : top_candidates(s.logits, top))
    std::printf("      %6.4f  %6d  %s%s\n", c.prob, c.id, shown(tok, c.id).c_str(),
                c.id == s.chosen ? "   <- chosen" : "");
  std::printf("    chosen: %d %s by %s%s\n", s.chosen, shown(tok, s.chosen).c_str(), strategy.c_str(),
              tok.is_end_of_generation(s.chosen) || s.chosen == tok.bos() ? " (ends generation)" : "");
  std::printf("    KV cache: %zu bytes used\n", s.kv_bytes_used);
}

void run(const ExplainArgs& args) {
  apply_threads(args.model);
  GenerateRequest request = args.request;
  request.prompt = read_text(request.prompt, args.prompt_file);
  const Engine engine = Engine::load(args.model.model, args.model.tokenizer);
  const Model& model = engine.model();
  const ModelConfig& c = model.config();
  const Tokenizer& tok = engine.tokenizer();
  Generator generator(engine, generator_options(args.model));

  std::printf("model: %s\n  %s, %zu layers, dim %zu, %zu heads (%zu KV heads) of %zu, FFN %zu, vocab %zu, "
              "%s weights, %.2f MB; KV capacity %zu tokens\n\n",
              model.path().c_str(), architecture_name(c.arch).c_str(), c.n_layers, c.dim, c.n_heads,
              c.n_kv_heads, c.head_dim, c.ffn_dim, c.vocab,
              weight_types(model).c_str(),
              static_cast<double>(model.weight_bytes()) / 1e6, generator.context());

  const std::string strategy = Sampler(request.sampling).describe();
  const auto on_step = [&](const StepTrace& s) {
    if (s.step == 0) {
      std::printf("[1] tokenize: %zu bytes of text -> %zu tokens\n", request.prompt.size(), s.tokens.size());
      std::printf("    pos      id  piece\n");
      for (size_t i = 0; i < s.tokens.size(); ++i)
        std::printf("    %3zu  %6d  %s\n", i, s.tokens[i], shown(tok, s.tokens[i]).c_str());
      std::printf("\n[2] embed: rows of token_embd [%zu x %zu] (%s) -> activations [%zu x %zu] f32\n\n", c.vocab,
                  c.dim, std::string(traits(model.weights().token_embedding.type).name).c_str(), s.tokens.size(),
                  c.dim);
      std::printf("[3] prefill: %zu tokens through %zu layers in %.3f ms\n", s.tokens.size(), c.n_layers,
                  s.forward_ms);
      std::printf("    layer  attention ms     ffn ms\n");
      for (size_t l = 0; l < c.n_layers; ++l) {
        const auto [attn, ffn] = block_ms(s.profile, static_cast<int>(l));
        std::printf("    %5zu  %12.4f  %9.4f\n", l, attn, ffn);
      }
      std::printf("    lm_head (last position only): %.4f ms\n", ms(s.profile.at(Op::LmHead, -1).ns));
      print_candidates(tok, s, args.top, strategy);
      std::printf("\n[4] decode, one token per step:\n");
      return;
    }
    double attn = 0, ffn = 0;
    for (size_t l = 0; l < c.n_layers; ++l) {
      const auto [a, f] = block_ms(s.profile, static_cast<int>(l));
      attn += a;
      ffn += f;
    }
    std::printf("  step %zu (position %zu): %.3f ms = attention %.4f + ffn %.4f + lm_head %.4f + other\n", s.step,
                s.kv_length - 1, s.forward_ms, attn, ffn, ms(s.profile.at(Op::LmHead, -1).ns));
    print_candidates(tok, s, args.top, strategy);
  };

  std::string generated;
  bool prompt_seen = false;
  const auto on_text = [&](std::string_view text) {
    if (prompt_seen) generated += text;
    prompt_seen = true;
  };
  const GenerationResult r = generator.generate(request, on_text, on_step);
  const Timings& t = r.timings;
  std::printf("\n[5] detokenize: %zu tokens -> \"%s\"\n", r.ids.size(), generated.c_str());
  std::vector<double> steps = t.step_ms;
  std::sort(steps.begin(), steps.end());
  std::printf("\nsummary: tokenize %.3f ms, prefill %.3f ms, TTFT %.3f ms, %zu decode steps, median step %.3f ms, "
              "stop: %s\n",
              t.tokenize_ms, t.prefill_ms, t.ttft_ms, steps.size(), steps.empty() ? 0.0 : steps[steps.size() / 2],
              r.stop_reason.c_str());
}

}  // namespace

void register_explain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  args->request.sampling.temperature = 0.0f;
  args->request.max_new_tokens = 8;
  CLI::App* cmd = app.add_subcommand("explain", "Trace one request stage by stage: tokens, layers, timings, choices");
  cmd->footer(
      "Stages: [1] tokenize, [2] embed, [3] prefill (per-layer attention and FFN time), [4] each decode\n"
      "step with the top next tokens and the one chosen, [5] detokenize. Greedy unless --temp is given.\n"
      "Example: pdbench explain -m models/stories260K.gguf -p \"Once upon a time\" -n 8");
  add_model_options(*cmd, args->model);
  add_prompt_options(*cmd, args->request.prompt, args->prompt_file);
  add_sampling_options(*cmd, args->request);
  cmd->add_option("--top", args->top, "Candidates to show per step")->capture_default_str()->check(CLI::Range(1, 100));
  cmd->callback([args] { run(*args); });
}

}  // namespace pdbench::cli
