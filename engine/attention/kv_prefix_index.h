#pragma once
// Which full cache blocks hold which token prefix, so a new sequence whose
// prompt starts the same way can share them instead of recomputing.
//
// A block's key chains the parent's: hash(parent hash, the block's token
// ids), so equal keys mean equal prefixes from position 0 (K/V depend on the
// whole prefix, not only the block's tokens). Entries keep the parent block
// and the token ids and a lookup compares them, so a hash collision is a miss,
// never wrong K/V.
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/attention/kv_block_pool.h"

namespace pdbench {

class KvPrefixIndex {
 public:
  static constexpr uint64_t kRootHash = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  static constexpr KvBlockId kNoParent = UINT32_MAX;

  static uint64_t chain_hash(uint64_t parent_hash, std::span<const int32_t> tokens);

  struct Hit {
    KvBlockId block;
    uint64_t hash;
  };
  // The block holding `tokens` after parent block `parent` (kNoParent at the
  // start), whose chain hash is parent_hash.
  std::optional<Hit> find(KvBlockId parent, uint64_t parent_hash,
                          std::span<const int32_t> tokens) const;

  // Records `block` as holding `tokens` after `parent`. Returns the block now
  // indexed for that prefix: `block`, or an earlier block with the same
  // content (then nothing changes); nullopt on a hash collision, or when
  // `block` is already indexed for another prefix.
  std::optional<KvBlockId> insert(KvBlockId block, KvBlockId parent, uint64_t parent_hash,
                                  std::span<const int32_t> tokens);

  // Forgets the block (freed, or about to be overwritten); no-op if absent.
  void erase(KvBlockId block);
  bool contains(KvBlockId block) const { return hash_of_.contains(block); }
  size_t size() const { return by_hash_.size(); }

 private:
  struct Entry {
    KvBlockId block;
    KvBlockId parent;
    std::vector<int32_t> tokens;
    bool holds(KvBlockId parent_block, std::span<const int32_t> ids) const;
  };
  std::unordered_map<uint64_t, Entry> by_hash_;
  std::unordered_map<KvBlockId, uint64_t> hash_of_;
};

}  // namespace pdbench
