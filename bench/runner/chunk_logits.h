#pragma once
// One model's forward pass over perplexity chunks: each chunk a fresh
// sequence in a cache of its own, run as one prefill or fed a token at a
// time. The two are scored apart because the fast pass runs other kernels
// for each (oneDNN GEMMs and tiled attention; GEMVs and decode attention).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/runtime/engine.h"

namespace pdbench::runner {

enum class LogitsPath { Prefill, Decode };
std::string_view logits_path_name(LogitsPath path);  // "prefill" | "decode"

class ChunkLogits {
 public:
  // Room for one sequence of `chunk` tokens, K and V stored as k_type and
  // v_type (the cache's rounding is part of what the figures measure).
  ChunkLogits(const Engine& engine, ForwardKind kind, size_t chunk, KvType k_type = KvType::F32,
              KvType v_type = KvType::F32);

  size_t vocab() const { return vocab_; }
  // The logits of positions [from, chunk.size() - 1), one vocab row each,
  // after running all of `chunk`; valid until the next call.
  std::span<const float> run(std::span<const int32_t> chunk, LogitsPath path, size_t from);

 private:
  Forward& forward_;
  PagedKvCache cache_;
  size_t vocab_;
  std::optional<SequenceId> seq_;  // the last chunk's, freed when the next starts
  std::vector<float> rows_;
};

}  // namespace pdbench::runner
