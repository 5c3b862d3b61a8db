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

std::vector<int32_t> PromptMaker::window(size_t n, size_t offset) const {
  std::vector<int32_t> ids;
  ids.reserve(n + 1);
  if (tokenizer_.bos() >= 0) ids.push_back(tokenizer_.bos());
  for (size_t i = offset; ids.size() < n; ++i) ids.push_back(stream_[i % stream_.size()]);
  ids.resize(n);
  return ids;
}

size_t PromptMaker::body(size_t n) const { return n - (tokenizer_.bos() >= 0 && n > 0 ? 1 : 0); }

// FNV-1a of the series' bytes: the same start in every session and build (--resume).
size_t PromptMaker::series_start(std::string_view series) const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : series) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return static_cast<size_t>(h % stream_.size());
}

PromptInput PromptMaker::prompt(size_t n_tokens, std::string_view series, size_t variant) const {
  const size_t offset = series_start(series) + variant * body(n_tokens);
  std::vector<int32_t> ids = window(n_tokens, offset);
  if (source_ == PromptSource::Corpus) {
    // Decoding a cut and re-encoding it need not give the same ids (merges
    // across the cut); try cuts near n for one that gives exactly n tokens.
    for (size_t delta = 0; delta <= 6; ++delta)
      for (int sign : {-1, 1}) {
        if (sign > 0 && delta == 0) continue;
        if (sign < 0 && delta > body(n_tokens)) continue;
        const size_t cut = sign < 0 ? body(n_tokens) - delta : body(n_tokens) + delta;
        std::vector<int32_t> piece;
        for (size_t i = 0; i < cut; ++i) piece.push_back(stream_[(offset + i) % stream_.size()]);
        std::string text = piece.empty() ? "" : tokenizer_.decode(piece);
        if (!text.empty() && text.front() == ' ') text.erase(0, 1);  // the encoder adds the dummy prefix back
        if (tokenizer_.encode(text, true).size() == n_tokens) return {std::move(text), {}};
      }
  }
  return {"", std::move(ids)};
}

PromptInput PromptMaker::prompt_variant(size_t n_tokens, size_t shared, std::string_view series,
                                        size_t variant) const {
  std::vector<int32_t> ids = window(shared, 0);
  // Each variant's rest is the next window of the stream after the prefix and the series' start.
  const size_t rest = n_tokens - shared;
  const size_t start = body(shared) + series_start(series) + variant * rest;
  for (size_t i = 0; i < rest; ++i) ids.push_back(stream_[(start + i) % stream_.size()]);
  return {"", std::move(ids)};
}

std::vector<int32_t> PromptMaker::context(size_t n_tokens) const {
  return n_tokens == 0 ? std::vector<int32_t>{} : window(n_tokens, 0);
}

}  // namespace pdbench::runner
