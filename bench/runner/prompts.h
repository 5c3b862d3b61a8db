#pragma once
// Prompt and context-filler tokens for a case: real text from a corpus
// (cycled to the length asked) or seeded random token ids.
#include <cstdint>
#include <string>
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

  PromptInput prompt(size_t n_tokens) const;               // BOS first
  // n_tokens whose first `shared` >= 1 (BOS first) are the same in every variant
  // and whose rest differs from one variant to the next: a fixed system
  // prompt before each run's own request. Given as ids, so the shared part
  // is exactly those tokens.
  PromptInput prompt_variant(size_t n_tokens, size_t shared, size_t variant) const;
  std::vector<int32_t> context(size_t n_tokens) const;     // BOS first; empty for 0

 private:
  std::vector<int32_t> stream(size_t n) const;  // the token stream cycled to n ids
  const Tokenizer& tokenizer_;
  PromptSource source_;
  std::vector<int32_t> stream_;  // the corpus ids, or a random block
};

}  // namespace pdbench::runner
