#pragma once
// Options several subcommands share, registered on a CLI11 subcommand.
#include <CLI/CLI.hpp>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/runner/axis.h"

#include "engine/runtime/generator.h"

namespace pdbench::cli {

struct ModelOptions {
  std::string model;
  std::string tokenizer;
  int threads = 0;
  std::string forward = "fast";
  std::string cache_type_k = "f32";
  std::string cache_type_v = "f32";
  GeneratorOptions generator;  // filled from the strings above by generator_options()
};

// The generator settings the options name (parses the type names).
GeneratorOptions generator_options(const ModelOptions& opts);

// Checks an option's text is a decimal uint64 before CLI11 converts it, which
// would wrap "-1" and saturate "18446744073709551616".
CLI::Validator whole_number_u64();
// A whole number of at least 1, with a message a person can read (CLI11's
// PositiveNumber prints its range to 300 digits).
CLI::Validator counting_number();

// A comma-separated option of whole numbers of at least `min` into values,
// each item a number or llama-bench's range FIRST-LAST[+STEP|*MULT]
// (128-1024*2 is 128,256,512,1024); a bad item is an Error naming the flag.
void add_number_list(CLI::App& cmd, const std::string& names, std::vector<size_t>& values, uint64_t min,
                     const std::string& help);

// A comma-separated option of real numbers into values, each above `min`
// (or at least it, when min_inclusive) and at most `max`, or "inf" where
// infinite allows it; a bad item is an Error naming the flag.
struct RealRange {
  double min = 0;
  bool min_inclusive = false;
  double max = 1e12;
  bool infinite = false;
};
void add_real_list(CLI::App& cmd, const std::string& names, std::vector<double>& values, RealRange range,
                   const std::string& help);

// A number as short as %g writes it: 0.5, 2, 1e+06.
std::string short_number(double v);

// A command-line list in place of a scenario axis (none given: the axis stays).
template <class T>
void override_axis(runner::Axis<T>& axis, const std::vector<T>& values) {
  if (values.empty()) return;
  axis.values = values;
  axis.line = 0;  // errors then name the command line
}

// A list as its flag takes it: 128,512 (inf for an infinite number).
template <class T>
std::string list(const std::vector<T>& values) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out += ",";
    if constexpr (std::is_same_v<T, std::string>)
      out += v;
    else if constexpr (std::is_floating_point_v<T>)
      out += std::isinf(v) ? std::string("inf") : short_number(v);
    else
      out += std::to_string(v);
  }
  return out;
}

// -m, --tokenizer, -t and --forward: the model and how it runs.
void add_model_file_options(CLI::App& cmd, ModelOptions& opts);
// A forward pass's name (fast, reference) under the option `name`; `what`
// opens its help ("Forward pass").
void add_forward_option(CLI::App& cmd, const std::string& name, std::string& forward, const std::string& what);
// The model file options and the KV cache's: -c, cache types, block size.
void add_model_options(CLI::App& cmd, ModelOptions& opts);
void add_sampling_options(CLI::App& cmd, GenerateRequest& request);
// Applies --threads (OpenMP) before any work starts.
void apply_threads(const ModelOptions& opts);

// -p/--prompt and -f/--file (mutually exclusive).
void add_prompt_options(CLI::App& cmd, std::string& prompt, std::string& prompt_file);
// The inline text, or the contents of `file` when one is named.
std::string read_text(const std::string& text, const std::string& file);

}  // namespace pdbench::cli
