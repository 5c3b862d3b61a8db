#include "bench/pdbench/options.h"

#include <omp.h>

#include <charconv>
#include <cstdio>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench::cli {

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

CLI::Validator whole_number_u64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
          return "expected a whole number from 0 to 18446744073709551615, got '" + text + "'";
        return "";
      },
      "UINT64");
}

CLI::Validator counting_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (!text.empty() && ec == std::errc{} && end == text.data() + text.size() && v >= 1) return "";
        return "expected a whole number of at least 1, got '" + text + "'";
      },
      "N>=1");
}

namespace {

// The whole number at the front of `text`, advancing past it.
std::optional<uint64_t> leading_number(std::string_view& text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{}) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return v;
}

// One value of a list: N, or llama-bench's FIRST-LAST, FIRST-LAST+STEP,
// FIRST-LAST*MULT (every value from FIRST up to LAST), appended to out.
void expand_value(std::string_view item, const std::string& flag, uint64_t min, std::vector<size_t>& out) {
  constexpr size_t kMostValues = 4096;
  const std::string what = flag + ": '" + std::string(item) + "'";
  std::string_view rest = item;
  const std::optional<uint64_t> first = leading_number(rest);
  if (!first) throw Error(what + ": expected a whole number or a range FIRST-LAST[+STEP|*MULT]");
  uint64_t last = *first, step = 1;
  char op = '+';
  if (!rest.empty() && rest[0] == '-') {
    rest.remove_prefix(1);
    const std::optional<uint64_t> end = leading_number(rest);
    if (!end) throw Error(what + ": a range needs its last value, as in 128-1024");
    last = *end;
    if (!rest.empty() && (rest[0] == '+' || rest[0] == '*')) {
      op = rest[0];
      rest.remove_prefix(1);
      const std::optional<uint64_t> by = leading_number(rest);
      if (!by || *by < (op == '*' ? 2 : 1)) throw Error(what + ": the step must be at least 1, the factor at least 2");
      step = *by;
    }
  }
  if (!rest.empty()) throw Error(what + ": expected a whole number or a range FIRST-LAST[+STEP|*MULT]");
  if (*first < min) throw Error(what + ": values start at " + std::to_string(min));
  if (last < *first) throw Error(what + ": the range ends below its start");
  if (op == '*' && *first == 0) throw Error(what + ": a range that multiplies cannot start at 0");
  for (uint64_t v = *first; v <= last; v = op == '*' ? v * step : v + step) {
    if (out.size() == kMostValues) throw Error(flag + ": more than " + std::to_string(kMostValues) + " values");
    out.push_back(static_cast<size_t>(v));
    if (last - v < (op == '*' ? v * (step - 1) : step)) break;  // the next value passes LAST (or overflows)
  }
}

}  // namespace

namespace {

// A comma-separated option: every item through `append(item, flag, values)`.
template <class T, class Append>
void add_list_option(CLI::App& cmd, const std::string& names, std::vector<T>& values, const std::string& help,
                     Append append) {
  const std::string flag = names.substr(names.rfind(',') + 1);
  cmd.add_option_function<std::vector<std::string>>(
         names,
         [&values, flag, append](const std::vector<std::string>& items) {
           values.clear();
           for (const std::string& item : items) append(item, flag, values);
         },
         help)
      ->delimiter(',');
}

// One real number of a list, in `range`.
void append_real(const std::string& item, const std::string& flag, RealRange range, std::vector<double>& out) {
  if (range.infinite && item == "inf") {
    out.push_back(std::numeric_limits<double>::infinity());
    return;
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
  const bool number = !item.empty() && ec == std::errc{} && end == item.data() + item.size() && std::isfinite(v);
  if (!number || v < range.min || (!range.min_inclusive && v == range.min) || v > range.max)
    throw Error(flag + ": '" + item + "': expected a number " + (range.min_inclusive ? "at least " : "above ") +
                short_number(range.min) + " and at most " + short_number(range.max) + (range.infinite ? ", or inf" : ""));
  out.push_back(v);
}

}  // namespace

void add_number_list(CLI::App& cmd, const std::string& names, std::vector<size_t>& values, uint64_t min,
                     const std::string& help) {
  add_list_option(cmd, names, values, help + " (a list: 128,512, or llama-bench's ranges: 128-1024*2, 64-256+64)",
                  [min](const std::string& item, const std::string& flag, std::vector<size_t>& out) {
                    expand_value(item, flag, min, out);
                  });
}

void add_real_list(CLI::App& cmd, const std::string& names, std::vector<double>& values, RealRange range,
                   const std::string& help) {
  add_list_option(cmd, names, values, help, [range](const std::string& item, const std::string& flag, std::vector<double>& out) {
    append_real(item, flag, range, out);
  });
}

void add_model_file_options(CLI::App& cmd, ModelOptions& opts) {
  cmd.add_option("-m,--model", opts.model, "Model file: GGUF (v3) or llama2.c checkpoint (.bin)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--tokenizer", opts.tokenizer,
                 "Tokenizer file (llama2.c tokenizer.bin, tokenizer.json[.gz]); default: the GGUF's own")
      ->check(CLI::ExistingFile);
  cmd.add_option("-t,--threads", opts.threads, "OpenMP threads (0, the default: all cores, as run -t 0)")
      ->check(CLI::Range(0, 4096));
  add_forward_option(cmd, "--forward", opts.forward, "Forward pass");
}

void add_forward_option(CLI::App& cmd, const std::string& name, std::string& forward, const std::string& what) {
  cmd.add_option(name, forward, what + ": fast (oneDNN prefill, SIMD decode) or reference (plain f32, the oracle)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fast", "reference"}));
}

void add_model_options(CLI::App& cmd, ModelOptions& opts) {
  add_model_file_options(cmd, opts);
  cmd.add_option("-c,--ctx-size", opts.generator.context,
                 "KV cache capacity in tokens (default: the model's context length, at most 4096)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 24));
  cmd.add_option("--cache-type-k", opts.cache_type_k, "K cache element type: f32, f16, bf16, q8_0 (also -ctk)")
      ->capture_default_str();
  cmd.add_option("--cache-type-v", opts.cache_type_v, "V cache element type: f32, f16, bf16, q8_0 (also -ctv)")
      ->capture_default_str();
  cmd.add_option("--kv-block", opts.generator.block_tokens, "KV cache block size in tokens")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1} << 16));
  cmd.add_flag("!--no-kv-cache", opts.generator.kv_cache,
               "Recompute K/V of the whole context at every decode step (measures what the cache saves)");
}

void add_sampling_options(CLI::App& cmd, GenerateRequest& r) {
  SamplingParams& s = r.sampling;
  cmd.add_option("-n,--n-predict", r.max_new_tokens, "Tokens to generate (at most)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1} << 24));
  cmd.add_option("--temp", s.temperature, "Temperature; 0 = greedy (argmax, first max wins ties)")
      ->capture_default_str();
  cmd.add_option("--top-k", s.top_k, "Keep the k most likely tokens; 0 = off")->capture_default_str();
  cmd.add_option("--top-p", s.top_p, "Keep the smallest set reaching probability p; 1 = off")->capture_default_str();
  cmd.add_option("--min-p", s.min_p, "Drop tokens below min_p x the top probability; 0 = off")->capture_default_str();
  cmd.add_option("--repeat-penalty", s.repeat_penalty, "Penalize recent tokens (CTRL style); 1 = off")
      ->capture_default_str();
  cmd.add_option("--frequency-penalty", s.frequency_penalty, "Subtract this x count of each recent token")
      ->capture_default_str();
  cmd.add_option("--presence-penalty", s.presence_penalty, "Subtract this from every recent token")
      ->capture_default_str();
  cmd.add_option("--repeat-last-n", s.penalty_last_n, "Window of recent tokens the penalties see; -1 = all")
      ->capture_default_str();
  cmd.add_option("-s,--seed", s.seed, "Random seed: same seed, same tokens")
      ->capture_default_str()
      ->check(whole_number_u64());
  cmd.add_option("--beam", r.beam_width, "Beam search with this many beams instead of sampling; 0 = off")
      ->capture_default_str();
  cmd.add_option("--length-penalty", r.length_penalty, "Beam score = log-prob / length^this")
      ->capture_default_str();
  cmd.add_flag("!--no-bos", r.add_bos, "Do not start the prompt with BOS");
}

GeneratorOptions generator_options(const ModelOptions& opts) {
  GeneratorOptions g = opts.generator;
  g.forward = parse_forward_kind(opts.forward);
  g.k_type = parse_kv_type(opts.cache_type_k);
  g.v_type = parse_kv_type(opts.cache_type_v);
  return g;
}

void apply_threads(const ModelOptions& opts) {
  if (opts.threads > 0) omp_set_num_threads(opts.threads);
}

void add_prompt_options(CLI::App& cmd, std::string& prompt, std::string& prompt_file) {
  auto* p = cmd.add_option("-p,--prompt", prompt, "Prompt text");
  cmd.add_option("-f,--file", prompt_file, "Read the prompt from a file")->check(CLI::ExistingFile)->excludes(p);
}

std::string read_text(const std::string& text, const std::string& file) {
  return file.empty() ? text : read_regular_file(file);
}

}  // namespace pdbench::cli
