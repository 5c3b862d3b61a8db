#include "bench/runner/perplexity_chunks.h"

#include <algorithm>

#include "engine/util/error.h"

namespace pdbench::runner {

size_t default_chunk_size(size_t model_context) {
  constexpr size_t kLlamaPerplexityDefault = 512;
  return std::min(kLlamaPerplexityDefault, model_context) & ~size_t{1};
}

namespace {

std::string chunk_named(size_t chunk, const std::string& name) { return name + " " + std::to_string(chunk) + ": "; }

void check_chunk_shape(size_t chunk, const std::string& name) {
  if (chunk < 4 || chunk % 2 != 0)
    throw Error(chunk_named(chunk, name) +
                "a perplexity chunk must be an even number of tokens, at least 4 (its second half is scored)");
}

}  // namespace

void check_chunk_size(size_t chunk, size_t model_context, const std::string& name) {
  check_chunk_shape(chunk, name);
  if (chunk > model_context)
    throw Error(chunk_named(chunk, name) + "a perplexity chunk must fit the model's context of " +
                std::to_string(model_context) + " tokens");
}

PerplexityChunks cut_chunks(std::span<const int32_t> tokens, size_t chunk, int32_t bos, const std::string& source) {
  check_chunk_shape(chunk, "chunk size");
  if (tokens.size() < 2 * chunk)
    throw Error(source + ": the text is " + std::to_string(tokens.size()) + " tokens, but perplexity in chunks of " +
                std::to_string(chunk) + " needs at least " + std::to_string(2 * chunk) + " (two chunks)");
  PerplexityChunks out{chunk, tokens.size(), {}};
  for (size_t start = 0; start + chunk <= tokens.size(); start += chunk) {
    std::vector<int32_t>& c = out.chunks.emplace_back(tokens.begin() + start, tokens.begin() + start + chunk);
    if (bos >= 0) c.front() = bos;
  }
  return out;
}

}  // namespace pdbench::runner
