#pragma once
// Perplexity of a model over a text and, against a base model, the KL
// divergence of its next-token distributions: llama-perplexity's figures
// (and its --kl-divergence ones), per forward path.
#include <functional>
#include <span>
#include <vector>

#include "bench/runner/accuracy_totals.h"
#include "bench/runner/chunk_logits.h"
#include "bench/runner/perplexity_chunks.h"

namespace pdbench::runner {

// Throws Error naming both files unless the two models have the same
// vocabulary (size and every token's piece): KL divergence compares
// distributions over the same tokens.
void require_same_vocabulary(const Engine& a, const Engine& b);

// Called after each chunk with the totals so far, one per path.
using ChunkDone = std::function<void(size_t chunks_done, std::span<const AccuracyTotals> totals)>;

// Scores every chunk of `text` on each of `paths` of `model`, against the
// base's prefill logits at the same positions when `base` is not null (the
// base runs each chunk once for all paths). One AccuracyTotals per path.
std::vector<AccuracyTotals> score_chunks(const PerplexityChunks& text, ChunkLogits& model, ChunkLogits* base,
                                         std::span<const LogitsPath> paths, const ChunkDone& on_chunk = {});

}  // namespace pdbench::runner
