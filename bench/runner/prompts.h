#pragma once
// Prompt and context-filler tokens for a case: real text from a corpus
// (cycled to the length asked) or seeded random token ids.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/runner/scenario.h"
#include "engine/tokenizer/tokenizer.h"

namespace pdbench::runner {

// What a run feeds the generator: text when a corpus cut re-encodes to
// exactly the asked token count (so TTFT includes real tokenizing), else ids.
struct PromptInput {
  std::string text;
  std::vector<int32_t> ids;  // used when text is empty
  bool is_text() const { return ids.empty(); }
};

class PromptMaker {
 public:
  // corpus_path: the scenario's corpus, or the bundled default when empty.
  PromptMaker(const Scenario& scenario, const Tokenizer& tokenizer, const std::string& default_corpus);

  // n_tokens, BOS first, from the variant'th window of the stream after the
  // series' own start (a case id: each case starts elsewhere): each run and
  // each request its own prompt, so no server's prompt cache serves one from
  // another's.
  PromptInput prompt(size_t n_tokens, std::string_view series, size_t variant) const;
  // n_tokens whose first `shared` >= 1 (BOS first) are the same in every variant
  // and series, and whose rest differs from one to the next: a fixed system
  // prompt before each run's own request. Given as ids, so the shared part
  // is exactly those tokens.
  PromptInput prompt_variant(size_t n_tokens, size_t shared, std::string_view series, size_t variant) const;
  std::vector<int32_t> context(size_t n_tokens) const;     // BOS first; empty for 0

 private:
  // BOS, then the token stream from `offset`, cycled: n ids in all.
  std::vector<int32_t> window(size_t n, size_t offset) const;
  size_t body(size_t n) const;  // n less the BOS
  size_t series_start(std::string_view series) const;
  const Tokenizer& tokenizer_;
  PromptSource source_;
  std::vector<int32_t> stream_;  // the corpus ids, or a random block
};

}  // namespace pdbench::runner
