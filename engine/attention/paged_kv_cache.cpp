#include "engine/attention/paged_kv_cache.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/util/error.h"

namespace pdbench {

PagedKvCache::PagedKvCache(const KvCacheConfig& config) : pool_(config) {}

PagedKvCache::Sequence& PagedKvCache::get(SequenceId seq) {
  const auto it = sequences_.find(seq);
  if (it == sequences_.end()) throw Error("KV cache: no sequence " + std::to_string(seq));
  return it->second;
}

const PagedKvCache::Sequence& PagedKvCache::get(SequenceId seq) const {
  const auto it = sequences_.find(seq);
  if (it == sequences_.end()) throw Error("KV cache: no sequence " + std::to_string(seq));
  return it->second;
}

void PagedKvCache::release_block(KvBlockId block) {
  if (pool_.release(block)) index_.erase(block);
}

void PagedKvCache::release_blocks(const std::vector<KvBlockId>& blocks) {
  for (KvBlockId block : blocks) release_block(block);
}

SequenceId PagedKvCache::create_sequence() {
  sequences_.emplace(next_id_, Sequence{});
  return next_id_++;
}

SequenceId PagedKvCache::fork_sequence(SequenceId parent) {
  Sequence copy = get(parent);
  for (KvBlockId block : copy.blocks) pool_.retain(block);
  sequences_.emplace(next_id_, std::move(copy));
  return next_id_++;
}

void PagedKvCache::free_sequence(SequenceId seq) {
  release_blocks(get(seq).blocks);
  sequences_.erase(seq);
}

void PagedKvCache::restore_sequence(SequenceId seq, SequenceId snapshot) {
  if (seq == snapshot) return;
  const Sequence& from = get(snapshot);
  Sequence& to = get(seq);
  // Take the new references before dropping the old, so blocks both hold stay
  // allocated (and indexed) throughout.
  for (KvBlockId block : from.blocks) pool_.retain(block);
  release_blocks(to.blocks);
  to = from;
}

size_t PagedKvCache::blocks_for(size_t n_tokens) const {
  return (n_tokens + pool_.block_tokens() - 1) / pool_.block_tokens();
}

size_t PagedKvCache::blocks_needed(SequenceId seq, size_t n_tokens) const {
  const Sequence& s = get(seq);
  if (n_tokens == 0) return 0;
  const bool copy_last =
      s.length % pool_.block_tokens() != 0 && pool_.ref_count(s.blocks.back()) > 1;
  return blocks_for(s.length + n_tokens) - s.blocks.size() + (copy_last ? 1 : 0);
}

KvBlockId PagedKvCache::copy_block(KvBlockId block, size_t tokens) {
  const KvBlockId copy = pool_.allocate();
  const KvCacheConfig& c = config();
  for (size_t layer = 0; layer < c.n_layers; ++layer)
    for (size_t h = 0; h < c.n_kv_heads; ++h) {
      std::memcpy(pool_.keys(copy, layer, h), pool_.keys(block, layer, h),
                  tokens * pool_.k_vector_bytes());
      std::memcpy(pool_.values(copy, layer, h), pool_.values(block, layer, h),
                  tokens * pool_.v_vector_bytes());
    }
  pool_.set_filled(copy, tokens);
  return copy;
}

void PagedKvCache::extend(SequenceId seq, size_t n_tokens) {
  Sequence& s = get(seq);
  const size_t needed = blocks_needed(seq, n_tokens);
  if (needed > pool_.free_blocks())
    throw Error("KV cache exhausted: sequence " + std::to_string(seq) + " at " +
                std::to_string(s.length) + " tokens needs " + std::to_string(needed) +
                " more blocks for " + std::to_string(n_tokens) + " tokens, but " +
                std::to_string(pool_.free_blocks()) + " of " +
                std::to_string(pool_.capacity_blocks()) + " blocks of " +
                std::to_string(pool_.block_tokens()) + " tokens are free");
  if (n_tokens == 0) return;
  const size_t bs = pool_.block_tokens();
  if (const size_t in_last = s.length % bs; in_last != 0) {
    // The new positions start inside the last block: make it private, and
    // unindex it since its slots past in_last are about to change.
    const KvBlockId last = s.blocks.back();
    if (pool_.ref_count(last) > 1) {
      s.blocks.back() = copy_block(last, in_last);
      release_block(last);
    } else {
      index_.erase(last);
    }
  }
  while (s.blocks.size() < blocks_for(s.length + n_tokens)) s.blocks.push_back(pool_.allocate());
  const size_t end = s.length + n_tokens;
  for (size_t i = s.length / bs; i < s.blocks.size(); ++i)
    pool_.set_filled(s.blocks[i], std::min(bs, end - i * bs));
  s.length = end;
}

void PagedKvCache::write(SequenceId seq, size_t layer, size_t pos, const float* k, const float* v) {
  const Sequence& s = get(seq);
  const KvCacheConfig& c = config();
  if (layer >= c.n_layers || pos >= s.length)
    throw Error("KV cache: write to layer " + std::to_string(layer) + " position " +
                std::to_string(pos) + " of sequence " + std::to_string(seq) + ", which has " +
                std::to_string(c.n_layers) + " layers and " + std::to_string(s.length) +
                " positions (extend it first)");
  const size_t bs = pool_.block_tokens();
  const KvBlockId block = s.blocks[pos / bs];
  if (pool_.ref_count(block) > 1)
    throw Error("KV cache: write to position " + std::to_string(pos) + " of sequence " +
                std::to_string(seq) + ", whose block is shared with another sequence");
  const size_t slot = pos % bs;
  for (size_t h = 0; h < c.n_kv_heads; ++h) {
    kv_encode(c.k_type, k + h * c.head_dim,
              pool_.keys(block, layer, h) + slot * pool_.k_vector_bytes(), c.head_dim);
    kv_encode(c.v_type, v + h * c.head_dim,
              pool_.values(block, layer, h) + slot * pool_.v_vector_bytes(), c.head_dim);
  }
}

void PagedKvCache::read(SequenceId seq, size_t layer, size_t pos, float* k, float* v) const {
  const Sequence& s = get(seq);
  const KvCacheConfig& c = config();
  if (layer >= c.n_layers || pos >= s.length)
    throw Error("KV cache: read of layer " + std::to_string(layer) + " position " +
                std::to_string(pos) + " of sequence " + std::to_string(seq) + ", which has " +
                std::to_string(c.n_layers) + " layers and " + std::to_string(s.length) +
                " positions");
  const size_t bs = pool_.block_tokens();
  const KvBlockId block = s.blocks[pos / bs];
  const size_t slot = pos % bs;
  for (size_t h = 0; h < c.n_kv_heads; ++h) {
    kv_decode(c.k_type, pool_.keys(block, layer, h) + slot * pool_.k_vector_bytes(),
              k + h * c.head_dim, c.head_dim);
    kv_decode(c.v_type, pool_.values(block, layer, h) + slot * pool_.v_vector_bytes(),
              v + h * c.head_dim, c.head_dim);
  }
}

size_t PagedKvCache::attach_prefix(SequenceId seq, std::span<const int32_t> prompt) {
  Sequence& s = get(seq);
  if (s.length != 0)
    throw Error("KV cache: attach_prefix on sequence " + std::to_string(seq) +
                ", which already holds " + std::to_string(s.length) + " tokens");
  const size_t bs = pool_.block_tokens();
  KvBlockId parent = KvPrefixIndex::kNoParent;
  uint64_t hash = KvPrefixIndex::kRootHash;
  while ((s.blocks.size() + 1) * bs <= prompt.size()) {
    const auto hit = index_.find(parent, hash, prompt.subspan(s.blocks.size() * bs, bs));
    if (!hit) break;
    pool_.retain(hit->block);
    s.blocks.push_back(hit->block);
    parent = hit->block;
    hash = hit->hash;
  }
  s.length = std::min(s.blocks.size() * bs, prompt.empty() ? 0 : prompt.size() - 1);
  return s.length;
}

void PagedKvCache::commit_block_hashes(SequenceId seq, std::span<const int32_t> tokens) {
  Sequence& s = get(seq);
  if (tokens.size() > s.length)
    throw Error("KV cache: " + std::to_string(tokens.size()) + " token ids for sequence " +
                std::to_string(seq) + ", which holds " + std::to_string(s.length) + " positions");
  const size_t bs = pool_.block_tokens();
  KvBlockId parent = KvPrefixIndex::kNoParent;
  uint64_t hash = KvPrefixIndex::kRootHash;
  for (size_t i = 0; (i + 1) * bs <= tokens.size(); ++i) {
    const auto ids = tokens.subspan(i * bs, bs);
    const auto indexed = index_.insert(s.blocks[i], parent, hash, ids);
    if (!indexed) return;  // a hash collision: later blocks could not be found anyway
    if (*indexed != s.blocks[i]) {
      pool_.retain(*indexed);
      release_block(s.blocks[i]);
      s.blocks[i] = *indexed;
    }
    parent = *indexed;
    hash = KvPrefixIndex::chain_hash(hash, ids);
  }
}

}  // namespace pdbench
