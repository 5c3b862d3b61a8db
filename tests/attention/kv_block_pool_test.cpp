// The block pool: settings, the one allocation, free list, reference counts
// and memory accounting.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/attention/kv_block_pool.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"
#include "tests/support/scoped_env.h"

namespace pdbench {
namespace {

KvCacheConfig config(size_t capacity_tokens, size_t block_tokens = 16) {
  KvCacheConfig c;
  c.n_layers = 2;
  c.n_kv_heads = 2;
  c.head_dim = 64;
  c.block_tokens = block_tokens;
  c.capacity_tokens = capacity_tokens;
  return c;
}

std::string error_of(const KvCacheConfig& c) {
  try {
    KvBlockPool pool(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(KvBlockPool, AccountsBytesPerDtype) {
  KvCacheConfig c = config(0);
  c.k_type = KvType::F16;
  c.v_type = KvType::Q8_0;
  c.capacity_mib = 1;
  const KvBlockPool pool(c);
  EXPECT_EQ(pool.bytes_per_token_per_layer(), 2u * (128 + 68));
  EXPECT_EQ(pool.bytes_per_token(), 2u * 2 * (128 + 68));
  EXPECT_EQ(pool.block_bytes(), 16u * 784);
  EXPECT_EQ(pool.capacity_blocks(), (1u << 20) / (16 * 784));  // whole blocks in 1 MiB
  EXPECT_EQ(pool.capacity_tokens(), pool.capacity_blocks() * 16);
  EXPECT_EQ(pool.bytes_allocated(), pool.capacity_blocks() * pool.block_bytes());
}

TEST(KvBlockPool, CapacityInTokensRoundsDownToBlocks) {
  const KvBlockPool pool(config(100));
  EXPECT_EQ(pool.capacity_blocks(), 6u);
  EXPECT_EQ(pool.free_blocks(), 6u);
  EXPECT_EQ(pool.bytes_per_token(), 2u * 2 * 2 * 256);  // f32 K and V
}

TEST(KvBlockPool, AllocatesFreesAndCountsReferences) {
  KvBlockPool pool(config(64));
  std::set<KvBlockId> ids;
  for (int i = 0; i < 4; ++i) ids.insert(pool.allocate());
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(pool.blocks_in_use(), 4u);
  EXPECT_THROW(pool.allocate(), Error);

  const KvBlockId b = *ids.begin();
  pool.retain(b);
  EXPECT_EQ(pool.ref_count(b), 2u);
  EXPECT_FALSE(pool.release(b));
  EXPECT_EQ(pool.free_blocks(), 0u);
  EXPECT_TRUE(pool.release(b));
  EXPECT_EQ(pool.free_blocks(), 1u);
  EXPECT_EQ(pool.allocate(), b);  // the free list hands back the block just freed
  EXPECT_THROW(pool.retain(static_cast<KvBlockId>(99)), Error);
  EXPECT_TRUE(pool.release(b));
  EXPECT_THROW(pool.release(b), Error);  // already free
}

TEST(KvBlockPool, FragmentationIsAllocatedMinusFilledSlots) {
  KvBlockPool pool(config(64));
  const KvBlockId a = pool.allocate(), b = pool.allocate();
  pool.set_filled(a, 16);
  pool.set_filled(b, 5);
  EXPECT_EQ(pool.tokens_filled(), 21u);
  EXPECT_EQ(pool.fragmentation_tokens(), 11u);
  pool.release(b);
  EXPECT_EQ(pool.fragmentation_tokens(), 0u);
  EXPECT_THROW(pool.set_filled(a, 17), Error);
}

// One (layer, kv_head)'s runs of consecutive blocks follow each other, so
// a sequence of blocks from a fresh pool is one stream per head.
TEST(KvBlockPool, BlocksOfOneLayerAndHeadAreContiguousRuns) {
  KvBlockPool pool(config(48));
  const KvBlockId b = pool.allocate();
  const KvBlockId next = pool.allocate();
  ASSERT_EQ(next, b + 1);
  const auto run = static_cast<std::ptrdiff_t>(16 * 256);  // 16 f32 vectors of 64
  EXPECT_EQ(pool.values(b, 0, 0) - pool.keys(b, 0, 0), run);
  EXPECT_EQ(pool.keys(next, 0, 0) - pool.keys(b, 0, 0), 2 * run);
  EXPECT_EQ(pool.keys(next, 1, 1) - pool.keys(b, 1, 1), 2 * run);
  EXPECT_EQ(pool.keys(b, 0, 1) - pool.keys(b, 0, 0), 3 * 2 * run);      // 3 blocks of head 0 before
  EXPECT_EQ(pool.keys(b, 1, 0) - pool.keys(b, 0, 0), 2 * 3 * 2 * run);  // and of 2 heads of layer 0
}

TEST(KvBlockPool, BadSettingsGiveClearErrors) {
  EXPECT_EQ(error_of(config(64, 0)), "KV cache: block size must be at least 1 token");
  EXPECT_EQ(error_of(config(10)),
            "KV cache: capacity of 10 tokens is smaller than one block of 16 tokens");
  EXPECT_EQ(
      error_of(config(0)),
      "KV cache: set exactly one of capacity_tokens and capacity_mib (got 0 tokens and 0 MiB)");
  KvCacheConfig both = config(64);
  both.capacity_mib = 1;
  EXPECT_NE(error_of(both).find("set exactly one"), std::string::npos);
  KvCacheConfig big_blocks = config(0, 4096);
  big_blocks.capacity_mib = 1;  // one block is 8 MiB
  EXPECT_NE(error_of(big_blocks).find("1 MiB is smaller than one block of 4096 tokens"),
            std::string::npos);
  KvCacheConfig no_heads = config(64);
  no_heads.n_kv_heads = 0;
  EXPECT_NE(error_of(no_heads).find("must be positive"), std::string::npos);
}

TEST(KvBlockPool, CapacityBeyondAvailableMemoryIsAnErrorBeforeAllocating) {
  KvCacheConfig c = config(size_t{1} << 32);
  c.n_layers = 32;
  c.n_kv_heads = 8;
  c.head_dim = 128;  // 256 KiB per token: 1 PiB, beyond any machine's MemAvailable
  EXPECT_TRUE(error_of(c).starts_with("KV cache of 4294967296 tokens (f32 K, f32 V): 1.0 PiB needed, but only "))
      << error_of(c);
  const test::ScopedEnv one_mib(kMemAvailableVariable, "1");
  EXPECT_EQ(error_of(config(1024)),  // 2 layers x 2 heads x 64 x 8 bytes: 2 MiB
            "KV cache of 1024 tokens (f32 K, f32 V): 2.0 MiB needed, but only 1.0 MiB of memory is available "
            "(PDBENCH_MEM_AVAILABLE_MIB)");
  EXPECT_EQ(KvBlockPool(config(256)).bytes_allocated(), size_t{512} << 10);  // fits
}

}  // namespace
}  // namespace pdbench
