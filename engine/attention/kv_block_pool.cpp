#include "engine/attention/kv_block_pool.h"

#include <limits>
#include <string>

#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

size_t checked_mul(size_t a, size_t b, const std::string& what) {
  size_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Error("KV cache: " + what + " overflows");
  return r;
}

// Whole blocks in the configured capacity, checked against the settings.
size_t capacity_in_blocks(const KvCacheConfig& c, size_t block_bytes) {
  if ((c.capacity_tokens == 0) == (c.capacity_mib == 0))
    throw Error("KV cache: set exactly one of capacity_tokens and capacity_mib (got " +
                std::to_string(c.capacity_tokens) + " tokens and " +
                std::to_string(c.capacity_mib) + " MiB)");
  if (c.capacity_tokens != 0) {
    if (c.capacity_tokens < c.block_tokens)
      throw Error("KV cache: capacity of " + std::to_string(c.capacity_tokens) +
                  " tokens is smaller than one block of " + std::to_string(c.block_tokens) +
                  " tokens");
    return c.capacity_tokens / c.block_tokens;
  }
  const size_t bytes = checked_mul(c.capacity_mib, size_t{1} << 20, "capacity in bytes");
  if (bytes < block_bytes)
    throw Error("KV cache: capacity of " + std::to_string(c.capacity_mib) +
                " MiB is smaller than one block of " + std::to_string(c.block_tokens) +
                " tokens (" + format_bytes(block_bytes) + ")");
  return bytes / block_bytes;
}

}  // namespace

KvBlockPool::KvBlockPool(const KvCacheConfig& config)
    : config_(config),
      k_bytes_(kv_vector_bytes(config.k_type, config.head_dim)),
      v_bytes_(kv_vector_bytes(config.v_type, config.head_dim)),
      head_run_bytes_(0),
      block_bytes_(0) {
  if (config.n_layers == 0 || config.n_kv_heads == 0 || config.head_dim == 0)
    throw Error("KV cache: n_layers, n_kv_heads and head_dim must be positive (got " +
                std::to_string(config.n_layers) + ", " + std::to_string(config.n_kv_heads) + ", " +
                std::to_string(config.head_dim) + ")");
  if (config.block_tokens == 0) throw Error("KV cache: block size must be at least 1 token");
  head_run_bytes_ = checked_mul(config.block_tokens, k_bytes_ + v_bytes_, "block size");
  block_bytes_ = checked_mul(checked_mul(config.n_layers, config.n_kv_heads, "block size"),
                             head_run_bytes_, "block size");
  const size_t blocks = capacity_in_blocks(config, block_bytes_);
  if (blocks > std::numeric_limits<KvBlockId>::max())
    throw Error("KV cache: " + std::to_string(blocks) + " blocks exceed the limit of " +
                std::to_string(std::numeric_limits<KvBlockId>::max()));
  const size_t bytes =
      checked_mul(blocks, block_bytes_, "capacity of " + std::to_string(blocks) + " blocks");

  const std::string tokens = std::to_string(blocks * config.block_tokens) + " tokens";
  require_memory(bytes, "KV cache of " + tokens + " (" + std::string(kv_type_name(config.k_type)) + " K, " +
                            std::string(kv_type_name(config.v_type)) + " V)");
  // The one large allocation comes first, so a failure leaves nothing allocated.
  data_.reset(static_cast<std::byte*>(::operator new (bytes, std::align_val_t{64}, std::nothrow)));
  if (!data_)
    throw Error("KV cache: cannot allocate " + std::to_string(bytes) + " bytes (" + format_bytes(bytes) +
                ") for " + tokens);
  ref_counts_.assign(blocks, 0);
  filled_.assign(blocks, 0);
  free_list_.resize(blocks);
  // Reversed, so blocks are handed out in address order from a fresh pool.
  for (size_t i = 0; i < blocks; ++i) free_list_[i] = static_cast<KvBlockId>(blocks - 1 - i);
}

void KvBlockPool::check_in_use(KvBlockId block, const char* what) const {
  if (block >= capacity_blocks() || ref_counts_[block] == 0)
    throw Error(std::string("KV cache: ") + what + " of block " + std::to_string(block) +
                ", which is not in use");
}

KvBlockId KvBlockPool::allocate() {
  if (free_list_.empty())
    throw Error("KV cache: all " + std::to_string(capacity_blocks()) + " blocks of " +
                std::to_string(block_tokens()) + " tokens are in use");
  const KvBlockId block = free_list_.back();
  free_list_.pop_back();
  ref_counts_[block] = 1;
  return block;
}

void KvBlockPool::retain(KvBlockId block) {
  check_in_use(block, "retain");
  ++ref_counts_[block];
}

bool KvBlockPool::release(KvBlockId block) {
  check_in_use(block, "release");
  if (--ref_counts_[block] != 0) return false;
  tokens_filled_ -= filled_[block];
  filled_[block] = 0;
  free_list_.push_back(block);
  return true;
}

void KvBlockPool::set_filled(KvBlockId block, size_t tokens) {
  check_in_use(block, "fill");
  if (tokens > block_tokens())
    throw Error("KV cache: " + std::to_string(tokens) + " tokens exceed the block size of " +
                std::to_string(block_tokens()));
  tokens_filled_ = tokens_filled_ - filled_[block] + tokens;
  filled_[block] = static_cast<uint32_t>(tokens);
}

}  // namespace pdbench
