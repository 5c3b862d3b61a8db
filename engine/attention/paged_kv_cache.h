#pragma once
// The paged KV cache: sequences, each a block table over a shared
// KvBlockPool, with copy-on-write sharing for beam search (fork), context
// depth (snapshot/restore) and common prompt prefixes.
//
// Positions become writable in two steps: extend() makes room for the next n
// positions of a sequence (the only call that allocates, and it fails with an
// Error before changing anything), then write() stores each layer's K/V.
// Only a sequence's partial last block can be shared and written to; extend
// copies it first (copy-on-write), so shared blocks are never written.
//
// Snapshot and restore, for starting decode at a depth d many times:
//   SequenceId snap = cache.fork_sequence(seq);  // after prefilling d tokens
//   ... decode ...; cache.restore_sequence(seq, snap);  // back to depth d
// The snapshot holds references, so a restore costs no copy except the
// partial last block at the next extend.
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/attention/kv_block_pool.h"
#include "engine/attention/kv_prefix_index.h"

namespace pdbench {

using SequenceId = uint32_t;

class PagedKvCache {
 public:
  explicit PagedKvCache(const KvCacheConfig& config);

  const KvBlockPool& pool() const { return pool_; }
  const KvCacheConfig& config() const { return pool_.config(); }
  size_t kv_dim() const { return config().n_kv_heads * config().head_dim; }

  // Sequences.
  SequenceId create_sequence();
  // A sequence sharing every block of `parent` (beam search, snapshots).
  SequenceId fork_sequence(SequenceId parent);
  // Drops the sequence; blocks nobody else holds return to the pool.
  void free_sequence(SequenceId seq);
  // Makes `seq` a fork of `snapshot`, dropping whatever it held.
  void restore_sequence(SequenceId seq, SequenceId snapshot);
  size_t length(SequenceId seq) const { return get(seq).length; }
  std::span<const KvBlockId> block_table(SequenceId seq) const { return get(seq).blocks; }
  size_t sequence_count() const { return sequences_.size(); }

  // Capacity.
  size_t blocks_for(size_t n_tokens) const;
  // Whether a new sequence of n_tokens fits in the free blocks.
  bool can_fit(size_t n_tokens) const { return blocks_for(n_tokens) <= pool_.free_blocks(); }
  // Free blocks extend(seq, n_tokens) takes, counting a copy-on-write.
  size_t blocks_needed(SequenceId seq, size_t n_tokens) const;
  bool can_extend(SequenceId seq, size_t n_tokens) const {
    return blocks_needed(seq, n_tokens) <= pool_.free_blocks();
  }
  // Makes positions [length, length + n_tokens) writable and the new length.
  void extend(SequenceId seq, size_t n_tokens);

  // K and V of one position and layer, kv_dim floats each, converted to the
  // storage types; pos < length(seq), in a block only this sequence holds.
  void write(SequenceId seq, size_t layer, size_t pos, const float* k, const float* v);
  // The stored K and V converted back to f32 (tests, debugging).
  void read(SequenceId seq, size_t layer, size_t pos, float* k, float* v) const;

  // Prefix sharing. On an empty sequence: shares the longest run of indexed
  // full blocks that starts `prompt` and returns how many leading positions
  // are cached, at most prompt.size() - 1 so the caller still runs the last
  // token for its logits (that write copies the shared block).
  size_t attach_prefix(SequenceId seq, std::span<const int32_t> prompt);
  // After the caller has written positions [0, tokens.size()) of seq (the
  // prompt): indexes its full blocks so later prompts can attach them. A
  // block equal to one already indexed is swapped for it, freeing the copy.
  void commit_block_hashes(SequenceId seq, std::span<const int32_t> tokens);
  size_t indexed_blocks() const { return index_.size(); }

 private:
  struct Sequence {
    std::vector<KvBlockId> blocks;  // blocks_for(length) of them
    size_t length = 0;
  };

  Sequence& get(SequenceId seq);
  const Sequence& get(SequenceId seq) const;
  void release_block(KvBlockId block);
  void release_blocks(const std::vector<KvBlockId>& blocks);
  // A private copy of the first `tokens` slots of `block`, every layer.
  KvBlockId copy_block(KvBlockId block, size_t tokens);

  KvBlockPool pool_;
  KvPrefixIndex index_;
  std::unordered_map<SequenceId, Sequence> sequences_;
  SequenceId next_id_ = 0;  // ids are never reused, so a stale id is an Error
};

}  // namespace pdbench
