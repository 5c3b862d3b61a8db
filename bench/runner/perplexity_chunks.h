#pragma once
// A text cut for perplexity the way llama.cpp's llama-perplexity cuts it,
// so the figures compare: tokenized once with BOS, cut into
// n_tokens / chunk chunks (the tail is dropped), each chunk run as a fresh
// context with its first token replaced by BOS, and scored on its second
// half only, where every prediction has at least chunk/2 tokens of context:
// the logits at positions chunk/2 .. chunk-2 predict tokens chunk/2+1 ..
// chunk-1, chunk/2 - 1 of them per chunk.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pdbench::runner {

struct PerplexityChunks {
  size_t chunk = 0;        // tokens per chunk
  size_t text_tokens = 0;  // the whole text's, BOS included
  std::vector<std::vector<int32_t>> chunks;

  size_t first_scored() const { return chunk / 2; }  // the first position whose logits count
  size_t scored_per_chunk() const { return chunk - 1 - first_scored(); }
};

// llama-perplexity's default -c, capped at the model's context (and even).
size_t default_chunk_size(size_t model_context);

// Throws Error unless `chunk` is even, at least 4 and at most the model's
// context; `name` is where the size came from ("-c").
void check_chunk_size(size_t chunk, size_t model_context, const std::string& name);

// Cuts the text's tokens (BOS first, when the vocabulary has one) into
// chunks; bos < 0: no BOS to put first. Throws Error naming `source` when
// the text has fewer than two chunks' tokens, as llama-perplexity does.
PerplexityChunks cut_chunks(std::span<const int32_t> tokens, size_t chunk, int32_t bos, const std::string& source);

}  // namespace pdbench::runner
