#include "bench/runner/chunk_logits.h"

#include <string>

#include "engine/runtime/generator.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

KvCacheConfig one_chunk_cache(const ModelConfig& model, size_t chunk, KvType k_type, KvType v_type) {
  GeneratorOptions options;
  options.context = chunk;
  options.k_type = k_type;
  options.v_type = v_type;
  return kv_cache_config(options, model);
}

}  // namespace

std::string_view logits_path_name(LogitsPath path) { return path == LogitsPath::Prefill ? "prefill" : "decode"; }

ChunkLogits::ChunkLogits(const Engine& engine, ForwardKind kind, size_t chunk, KvType k_type, KvType v_type)
    : forward_(engine.forward(kind)),
      cache_(one_chunk_cache(engine.model().config(), chunk, k_type, v_type)),
      vocab_(engine.model().config().vocab) {}

std::span<const float> ChunkLogits::run(std::span<const int32_t> chunk, LogitsPath path, size_t from) {
  if (from >= chunk.size())
    throw Error("chunk logits: position " + std::to_string(from) + " is past a chunk of " +
                std::to_string(chunk.size()) + " tokens");
  // A fresh context per chunk; a chunk that threw leaves its sequence here.
  if (seq_) cache_.free_sequence(*seq_);
  seq_ = cache_.create_sequence();
  if (path == LogitsPath::Prefill) {
    const SequenceChunk all{*seq_, chunk};
    const std::span<const float> logits = forward_.run(cache_, std::span(&all, 1), true, nullptr);
    rows_.assign(logits.begin() + from * vocab_, logits.begin() + (chunk.size() - 1) * vocab_);
    return rows_;
  }
  rows_.clear();
  for (size_t pos = 0; pos < chunk.size(); ++pos) {
    const SequenceChunk one{*seq_, chunk.subspan(pos, 1)};
    const std::span<const float> logits = forward_.run(cache_, std::span(&one, 1), false, nullptr);
    if (pos >= from && pos + 1 < chunk.size()) rows_.insert(rows_.end(), logits.begin(), logits.end());
  }
  return rows_;
}

}  // namespace pdbench::runner
