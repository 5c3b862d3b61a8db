#include "bench/runner/prompts.h"

#include <fstream>
#include <random>
#include <sstream>

#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench::runner {

namespace {

// Random prompts draw from this many ids before cycling: enough that no
// realistic prompt repeats.
constexpr size_t kRandomBlock = 1 << 16;

}  // namespace

PromptMaker::PromptMaker(const Scenario& scenario, const Tokenizer& tokenizer, const std::string& default_corpus)
    : tokenizer_(tokenizer), source_(scenario.prompt_source) {
  if (source_ == PromptSource::Random) {
    std::mt19937_64 rng(scenario.prompt_seed);
    const auto vocab = static_cast<uint64_t>(tokenizer.n_vocab());
    while (stream_.size() < kRandomBlock) {
      const auto id = static_cast<int32_t>(rng() % vocab);
      if (id != tokenizer.bos() && id != tokenizer.eos()) stream_.push_back(id);
    }
    return;
  }
  const std::string path = scenario.corpus.empty() ? default_corpus : scenario.corpus;
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot read the prompt corpus");
  std::ostringstream text;
  text << in.rdbuf();
  stream_ = tokenizer.encode(text.str(), false);
  if (stream_.empty()) fail_file(path, "the prompt corpus has no tokens");
}

std::vector<int32_t> PromptMaker::stream(size_t n) const {
  std::vector<int32_t> ids;
  ids.reserve(n + 1);
  if (tokenizer_.bos() >= 0) ids.push_back(tokenizer_.bos());
  for (size_t i = 0; ids.size() < n; ++i) ids.push_back(stream_[i % stream_.size()]);
  ids.resize(n);
  return ids;
}

PromptInput PromptMaker::prompt(size_t n_tokens) const {
  std::vector<int32_t> ids = stream(n_tokens);
  if (source_ == PromptSource::Corpus) {
    // Decoding a cut and re-encoding it need not give the same ids (merges
    // across the cut); try cuts near n for one that gives exactly n tokens.
    const size_t body = ids.size() - (tokenizer_.bos() >= 0 && !ids.empty() ? 1 : 0);
    for (size_t delta = 0; delta <= 6; ++delta)
      for (int sign : {-1, 1}) {
        if (sign > 0 && delta == 0) continue;
        if (sign < 0 && delta > body) continue;
        const size_t cut = sign < 0 ? body - delta : body + delta;
        std::vector<int32_t> piece;
        for (size_t i = 0; i < cut; ++i) piece.push_back(stream_[i % stream_.size()]);
        std::string text = piece.empty() ? "" : tokenizer_.decode(piece);
        if (!text.empty() && text.front() == ' ') text.erase(0, 1);  // the encoder adds the dummy prefix back
        if (tokenizer_.encode(text, true).size() == n_tokens) return {std::move(text), {}};
      }
  }
  return {"", std::move(ids)};
}

PromptInput PromptMaker::prompt_variant(size_t n_tokens, size_t shared, size_t variant) const {
  std::vector<int32_t> ids = stream(shared);
  // Each variant's rest is the next window of the stream after the prefix.
  const size_t rest = n_tokens - shared;
  const size_t start = shared - (tokenizer_.bos() >= 0 && shared > 0 ? 1 : 0) + variant * rest;
  for (size_t i = 0; i < rest; ++i) ids.push_back(stream_[(start + i) % stream_.size()]);
  return {"", std::move(ids)};
}

std::vector<int32_t> PromptMaker::context(size_t n_tokens) const { return n_tokens == 0 ? std::vector<int32_t>{} : stream(n_tokens); }

}  // namespace pdbench::runner
