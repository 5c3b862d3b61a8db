#pragma once
// The trained stories260K-wide in llama-quantize's GGUF types
// (tests/data/stories260K-wide/, PROVENANCE-quant-types.md there), for the
// tests that hold the quant types to llama.cpp and run them.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"

namespace pdbench::test {

inline std::string stories_wide_path(const std::string& file) { return data_path("stories260K-wide/" + file); }

// Every quantized file, one per llama-quantize type (each a mix of types).
inline std::vector<std::string> stories_wide_quantized_files() {
  std::vector<std::string> files;
  for (const char* type : {"IQ4_NL", "IQ4_XS", "Q2_K", "Q3_K_M", "Q4_0", "Q4_0-pure", "Q4_1", "Q4_K_M", "Q4_K_S",
                           "Q5_0", "Q5_1", "Q5_K_M", "Q5_K_S", "Q6_K", "Q8_0"})
    files.push_back(std::string("stories260K-wide-") + type + ".gguf");
  return files;
}

// The f32, Q8_0 and Q4_0-pure files come with the perplexity work: true for
// one of them until it is here (a test skips it, saying so).
inline bool awaits_the_perplexity_work(const std::string& file) {
  const bool theirs =
      file.ends_with("-f32.gguf") || file.ends_with("-Q8_0.gguf") || file.ends_with("-Q4_0-pure.gguf");
  return theirs && !std::filesystem::exists(stories_wide_path(file));
}
inline constexpr const char* kAwaitsThePerplexityWork = " is not in tests/data yet (it comes with the perplexity work)";

// "Q4_K_M" for stories260K-wide-Q4_K_M.gguf: a test parameter's name.
inline std::string stories_wide_type(const std::string& file) {
  std::string type = file.substr(std::string("stories260K-wide-").size());
  type.resize(type.size() - std::string(".gguf").size());
  std::replace(type.begin(), type.end(), '-', '_');
  return type;
}

}  // namespace pdbench::test
