#include "engine/attention/kv_prefix_index.h"

#include <algorithm>

namespace pdbench {

uint64_t KvPrefixIndex::chain_hash(uint64_t parent_hash, std::span<const int32_t> tokens) {
  // FNV-1a over the token ids' bytes, started from the parent's hash.
  uint64_t h = parent_hash;
  for (int32_t token : tokens) {
    auto bits = static_cast<uint32_t>(token);
    for (int i = 0; i < 4; ++i, bits >>= 8) {
      h ^= bits & 0xffu;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

bool KvPrefixIndex::Entry::holds(KvBlockId parent_block, std::span<const int32_t> ids) const {
  return parent == parent_block && std::ranges::equal(tokens, ids);
}

std::optional<KvPrefixIndex::Hit> KvPrefixIndex::find(KvBlockId parent, uint64_t parent_hash,
                                                      std::span<const int32_t> tokens) const {
  const uint64_t hash = chain_hash(parent_hash, tokens);
  const auto it = by_hash_.find(hash);
  if (it == by_hash_.end() || !it->second.holds(parent, tokens)) return std::nullopt;
  return Hit{it->second.block, hash};
}

std::optional<KvBlockId> KvPrefixIndex::insert(KvBlockId block, KvBlockId parent,
                                               uint64_t parent_hash,
                                               std::span<const int32_t> tokens) {
  const uint64_t hash = chain_hash(parent_hash, tokens);
  if (const auto it = by_hash_.find(hash); it != by_hash_.end()) {
    if (!it->second.holds(parent, tokens)) return std::nullopt;
    return it->second.block;
  }
  if (contains(block)) return std::nullopt;
  by_hash_.emplace(hash, Entry{block, parent, {tokens.begin(), tokens.end()}});
  hash_of_.emplace(block, hash);
  return block;
}

void KvPrefixIndex::erase(KvBlockId block) {
  const auto it = hash_of_.find(block);
  if (it == hash_of_.end()) return;
  by_hash_.erase(it->second);
  hash_of_.erase(it);
}

}  // namespace pdbench
