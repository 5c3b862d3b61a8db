#pragma once
// The shared pool of the paged KV cache: one allocation, cut into blocks of
// block_tokens token slots, handed out and taken back in O(1) through a free
// list, with reference counts so sequences can share blocks.
//
// Layout: [layer][kv_head][block] { K: [token][k vector], V: [token][v
// vector] }. Attention walks one (layer, kv_head) over positions, so the
// keys of a block for that head are one contiguous run (4 KiB for 16 f32
// keys of 64) with its values right after, and every query head of a GQA
// group re-reads the same run from L1; a fresh pool hands blocks out in
// address order, so a sequence's runs for one (layer, kv_head) follow each
// other, one stream the hardware prefetchers follow. With each block's
// layers and heads together instead, the runs were a block (1 MiB for
// Llama-3.2-1B) apart, and one decode step's attention over 4096 f32
// positions took 1.3-1.5x as long on 2 threads (f16 1.6x; BM_decode_attention,
// AMD EPYC Zen 5, three alternations; not measured on an Intel Xeon).
// One block id covers every layer, so a sequence has one block table,
// since the forward pass fills every layer for each position.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "engine/attention/kv_type.h"

namespace pdbench {

struct KvCacheConfig {
  size_t n_layers = 0;
  size_t n_kv_heads = 0;
  size_t head_dim = 0;
  KvType k_type = KvType::F32;
  KvType v_type = KvType::F32;
  size_t block_tokens = 16;
  // Capacity: set exactly one; MiB rounds down to whole blocks.
  size_t capacity_tokens = 0;
  size_t capacity_mib = 0;
};

using KvBlockId = uint32_t;

class KvBlockPool {
 public:
  // Validates the settings and checks the size against available memory
  // (engine/util/available_memory.h), then makes the one allocation; an
  // Error names the bytes requested when any of these fails.
  explicit KvBlockPool(const KvCacheConfig& config);

  const KvCacheConfig& config() const { return config_; }
  size_t block_tokens() const { return config_.block_tokens; }
  size_t k_vector_bytes() const { return k_bytes_; }
  size_t v_vector_bytes() const { return v_bytes_; }

  // Memory accounting.
  size_t bytes_per_token_per_layer() const { return config_.n_kv_heads * (k_bytes_ + v_bytes_); }
  size_t bytes_per_token() const { return config_.n_layers * bytes_per_token_per_layer(); }
  size_t block_bytes() const { return block_bytes_; }
  size_t capacity_blocks() const { return ref_counts_.size(); }
  size_t capacity_tokens() const { return capacity_blocks() * block_tokens(); }
  size_t bytes_allocated() const { return capacity_blocks() * block_bytes_; }
  size_t free_blocks() const { return free_list_.size(); }
  size_t blocks_in_use() const { return capacity_blocks() - free_blocks(); }
  size_t tokens_filled() const { return tokens_filled_; }
  // Token slots allocated but not filled (the partial last blocks).
  size_t fragmentation_tokens() const { return blocks_in_use() * block_tokens() - tokens_filled_; }

  // A free block with reference count 1 and no tokens filled; an Error when
  // none is free (callers check free_blocks() first to fail before changing
  // anything).
  KvBlockId allocate();
  void retain(KvBlockId block);
  // Drops one reference; true when that was the last and the block is free.
  bool release(KvBlockId block);
  uint32_t ref_count(KvBlockId block) const { return ref_counts_[block]; }

  // Leading token slots of the block that hold data, for the accounting.
  size_t filled(KvBlockId block) const { return filled_[block]; }
  void set_filled(KvBlockId block, size_t tokens);

  // The block's run of block_tokens key (value) vectors of one layer and head.
  std::byte* keys(KvBlockId block, size_t layer, size_t kv_head) {
    return data_.get() + run_offset(block, layer, kv_head);
  }
  std::byte* values(KvBlockId block, size_t layer, size_t kv_head) {
    return keys(block, layer, kv_head) + block_tokens() * k_bytes_;
  }
  const std::byte* keys(KvBlockId block, size_t layer, size_t kv_head) const {
    return data_.get() + run_offset(block, layer, kv_head);
  }
  const std::byte* values(KvBlockId block, size_t layer, size_t kv_head) const {
    return keys(block, layer, kv_head) + block_tokens() * k_bytes_;
  }

 private:
  struct AlignedDelete {
    void operator()(std::byte* p) const { ::operator delete (p, std::align_val_t{64}); }
  };

  size_t run_offset(KvBlockId block, size_t layer, size_t kv_head) const {
    return ((layer * config_.n_kv_heads + kv_head) * capacity_blocks() + block) * head_run_bytes_;
  }
  void check_in_use(KvBlockId block, const char* what) const;

  KvCacheConfig config_;
  size_t k_bytes_;
  size_t v_bytes_;
  size_t head_run_bytes_;  // K and V of one (layer, kv_head) in a block
  size_t block_bytes_;
  std::unique_ptr<std::byte, AlignedDelete> data_;
  std::vector<uint32_t> ref_counts_;
  std::vector<uint32_t> filled_;
  std::vector<KvBlockId> free_list_;  // a stack: the most recently freed block is reused first
  size_t tokens_filled_ = 0;
};

}  // namespace pdbench
