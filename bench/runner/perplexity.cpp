#include "bench/runner/perplexity.h"

#include <array>
#include <string>

#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

// The logits' rows, and the tokenizer's entries (which may be fewer).
std::array<size_t, 2> vocab_sizes(const Engine& e) {
  return {e.model().config().vocab, static_cast<size_t>(e.tokenizer().n_vocab())};
}

}  // namespace

void require_same_vocabulary(const Engine& a, const Engine& b) {
  const std::string files = a.model().path() + " and " + b.model().path() + " have different vocabularies: ";
  const auto sizes_a = vocab_sizes(a), sizes_b = vocab_sizes(b);
  for (size_t i = 0; i < sizes_a.size(); ++i)
    if (sizes_a[i] != sizes_b[i])
      throw Error(files + std::to_string(sizes_a[i]) + " and " + std::to_string(sizes_b[i]) + " tokens");
  for (int32_t id = 0; id < a.tokenizer().n_vocab(); ++id)
    if (a.tokenizer().piece(id) != b.tokenizer().piece(id))
      throw Error(files + "token " + std::to_string(id) + " is '" + std::string(a.tokenizer().piece(id)) +
                  "' in the first and '" + std::string(b.tokenizer().piece(id)) + "' in the second");
}

std::vector<AccuracyTotals> score_chunks(const PerplexityChunks& text, ChunkLogits& model, ChunkLogits* base,
                                         std::span<const LogitsPath> paths, const ChunkDone& on_chunk) {
  const size_t vocab = model.vocab(), first = text.first_scored();
  if (base && base->vocab() != vocab)
    throw Error("perplexity: the base's vocabulary has " + std::to_string(base->vocab()) + " tokens, the model's " +
                std::to_string(vocab));
  std::vector<AccuracyTotals> totals(paths.size());
  for (size_t c = 0; c < text.chunks.size(); ++c) {
    const std::vector<int32_t>& chunk = text.chunks[c];
    const std::span<const float> base_rows =
        base ? base->run(chunk, LogitsPath::Prefill, first) : std::span<const float>{};
    for (size_t p = 0; p < paths.size(); ++p) {
      const std::span<const float> rows = model.run(chunk, paths[p], first);
      for (size_t i = 0; i < text.scored_per_chunk(); ++i) {
        const auto base_row = base ? base_rows.subspan(i * vocab, vocab) : base_rows;
        totals[p].add(rows.subspan(i * vocab, vocab), base_row, chunk[first + i + 1]);
      }
    }
    if (on_chunk) on_chunk(c + 1, totals);
  }
  return totals;
}

}  // namespace pdbench::runner
