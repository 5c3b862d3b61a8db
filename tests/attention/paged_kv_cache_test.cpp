// Sequences over the pool: extend and exhaustion, write/read per dtype,
// fork with copy-on-write, snapshot/restore and prefix sharing.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/attention/paged_attention.h"
#include "engine/attention/paged_kv_cache.h"
#include "engine/util/error.h"
#include "tests/attention/kv_test_util.h"

namespace pdbench {
namespace {

constexpr ref::AttentionShape kShape{4, 2, 32};

KvCacheConfig config(size_t capacity_tokens, KvType k = KvType::F32, KvType v = KvType::F32) {
  KvCacheConfig c;
  c.n_layers = 2;
  c.n_kv_heads = kShape.n_kv_heads;
  c.head_dim = kShape.head_dim;
  c.k_type = k;
  c.v_type = v;
  c.capacity_tokens = capacity_tokens;
  return c;
}

// Attention output of the last position of seq at every layer, from a fixed
// query.
std::vector<float> attend(const PagedKvCache& cache, SequenceId seq) {
  const auto q = test::random_normal(kShape.n_heads * kShape.head_dim, 7);
  const size_t n = cache.length(seq);
  std::vector<float> scores(n), out(q.size()), all;
  for (size_t layer = 0; layer < cache.config().n_layers; ++layer) {
    ref::paged_attention(q.data(), cache, seq, layer, n, kShape, scores.data(), out.data());
    all.insert(all.end(), out.begin(), out.end());
  }
  return all;
}

// A sequence of `tokens` prefilled without any sharing.
SequenceId prefill(PagedKvCache& cache, const std::vector<int32_t>& tokens) {
  const SequenceId seq = cache.create_sequence();
  cache.extend(seq, tokens.size());
  test::write_tokens(cache, seq, tokens, 0);
  return seq;
}

TEST(PagedKvCache, ExtendAllocatesWholeBlocksAndTracksFill) {
  PagedKvCache cache(config(160));
  const SequenceId seq = cache.create_sequence();
  cache.extend(seq, 20);
  EXPECT_EQ(cache.length(seq), 20u);
  EXPECT_EQ(cache.block_table(seq).size(), 2u);
  EXPECT_EQ(cache.pool().fragmentation_tokens(), 12u);
  cache.extend(seq, 12);
  EXPECT_EQ(cache.block_table(seq).size(), 2u);
  EXPECT_EQ(cache.pool().fragmentation_tokens(), 0u);
  cache.extend(seq, 1);
  EXPECT_EQ(cache.pool().blocks_in_use(), 3u);
  cache.free_sequence(seq);
  EXPECT_EQ(cache.pool().blocks_in_use(), 0u);
  EXPECT_THROW(cache.length(seq), Error);  // ids are not reused
}

TEST(PagedKvCache, WriteReadRoundTripsPerDtype) {
  for (KvType type : {KvType::F32, KvType::F16, KvType::BF16, KvType::Q8_0}) {
    PagedKvCache cache(config(64, type, type));
    const auto tokens = test::iota_tokens(19, 1);
    const SequenceId seq = prefill(cache, tokens);
    std::vector<float> k, v, k_read(cache.kv_dim()), v_read(cache.kv_dim());
    for (size_t pos = 0; pos < tokens.size(); ++pos)
      for (size_t layer = 0; layer < 2; ++layer) {
        test::model_kv(tokens, pos, layer, cache.kv_dim(), k, v);
        cache.read(seq, layer, pos, k_read.data(), v_read.data());
        // The loosest per-element bound (q8_0's half scale) for N(0,1)
        // data: max|x| / 254 with max|x| under 6 here; the per-type bounds
        // are in kv_type_test.
        for (size_t i = 0; i < k.size(); ++i) {
          const float bound = type == KvType::F32 ? 0.0f : 6.0f / 254 * 1.001f;
          EXPECT_LE(std::abs(k_read[i] - k[i]), bound) << kv_type_name(type);
          EXPECT_LE(std::abs(v_read[i] - v[i]), bound) << kv_type_name(type);
        }
      }
  }
}

TEST(PagedKvCache, WritesOutsideTheSequenceAreErrors) {
  PagedKvCache cache(config(64));
  const SequenceId seq = cache.create_sequence();
  const std::vector<float> kv(cache.kv_dim());
  EXPECT_THROW(cache.write(seq, 0, 0, kv.data(), kv.data()), Error);  // not extended yet
  cache.extend(seq, 1);
  cache.write(seq, 0, 0, kv.data(), kv.data());
  EXPECT_THROW(cache.write(seq, 2, 0, kv.data(), kv.data()), Error);  // no layer 2
}

TEST(PagedKvCache, ExhaustionFailsBeforeChangingAnything) {
  PagedKvCache cache(config(64));  // 4 blocks
  EXPECT_TRUE(cache.can_fit(64));
  EXPECT_FALSE(cache.can_fit(65));
  const SequenceId a = cache.create_sequence();
  cache.extend(a, 50);
  const SequenceId b = cache.create_sequence();
  EXPECT_FALSE(cache.can_extend(b, 15));
  try {
    cache.extend(b, 15);
    FAIL() << "extend past capacity succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "KV cache exhausted: sequence 1 at 0 tokens needs 1 more blocks for 15 tokens, but 0 "
              "of 4 blocks of 16 tokens are free");
  }
  EXPECT_EQ(cache.length(b), 0u);
  cache.extend(a, 14);  // the rest of a's last block needs nothing new
  EXPECT_EQ(cache.pool().blocks_in_use(), 4u);
}

TEST(PagedKvCache, ExhaustionCountsTheCopyOfASharedPartialBlock) {
  PagedKvCache cache(config(48));  // 3 blocks
  const SequenceId a = cache.create_sequence();
  cache.extend(a, 40);  // all 3
  const SequenceId b = cache.fork_sequence(a);
  EXPECT_EQ(cache.blocks_needed(b, 1), 1u);  // copy-on-write of the shared third block
  EXPECT_THROW(cache.extend(b, 1), Error);
  EXPECT_EQ(cache.block_table(b)[2], cache.block_table(a)[2]);
}

TEST(PagedKvCache, ForkCopiesTheSharedPartialBlockOnWrite) {
  PagedKvCache cache(config(160));
  const auto prompt = test::iota_tokens(20, 100);
  const SequenceId parent = prefill(cache, prompt);
  const SequenceId child = cache.fork_sequence(parent);
  EXPECT_EQ(cache.pool().blocks_in_use(), 2u);
  EXPECT_EQ(cache.pool().ref_count(cache.block_table(parent)[1]), 2u);

  // The child continues with token 7, the parent with token 8.
  auto child_tokens = prompt, parent_tokens = prompt;
  child_tokens.push_back(7);
  parent_tokens.push_back(8);
  cache.extend(child, 1);
  EXPECT_EQ(cache.pool().blocks_in_use(), 3u);                           // the child copied block 1
  EXPECT_EQ(cache.block_table(child)[0], cache.block_table(parent)[0]);  // full block still shared
  test::write_tokens(cache, child, child_tokens, 20);
  cache.extend(parent, 1);
  EXPECT_EQ(cache.pool().blocks_in_use(), 3u);  // the parent's block is its own again
  test::write_tokens(cache, parent, parent_tokens, 20);

  PagedKvCache alone(config(160));
  EXPECT_EQ(attend(cache, child), attend(alone, prefill(alone, child_tokens)));
  EXPECT_EQ(attend(cache, parent), attend(alone, prefill(alone, parent_tokens)));
  EXPECT_THROW(
      cache.write(parent, 0, 0, std::vector<float>(64).data(), std::vector<float>(64).data()),
      Error);  // block 0 is shared
}

TEST(PagedKvCache, RestoreReturnsToTheSnapshotDepth) {
  PagedKvCache cache(config(160, KvType::F16, KvType::Q8_0));
  auto tokens = test::iota_tokens(37, 5);
  const SequenceId seq = prefill(cache, tokens);
  const SequenceId snapshot = cache.fork_sequence(seq);
  const size_t blocks_at_depth = cache.pool().blocks_in_use();

  // Decode 10 tokens, attending after each; twice, restoring in between.
  std::vector<std::vector<float>> runs[2];
  for (auto& run : runs) {
    auto decoded = tokens;
    for (int32_t step = 0; step < 10; ++step) {
      decoded.push_back(1000 + step);
      cache.extend(seq, 1);
      test::write_tokens(cache, seq, decoded, decoded.size() - 1);
      run.push_back(attend(cache, seq));
    }
    cache.restore_sequence(seq, snapshot);
    EXPECT_EQ(cache.length(seq), 37u);
    EXPECT_EQ(cache.pool().blocks_in_use(), blocks_at_depth);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(attend(cache, snapshot), attend(cache, seq));
}

TEST(PagedKvCache, CommonPrefixSharesFullBlocks) {
  const auto common = test::iota_tokens(40, 1);
  auto a = common, b = common;
  for (int32_t t = 0; t < 10; ++t) a.push_back(500 + t);
  for (int32_t t = 0; t < 7; ++t) b.push_back(900 + t);

  PagedKvCache shared(config(320));
  const SequenceId sa = shared.create_sequence();
  EXPECT_EQ(shared.attach_prefix(sa, a), 0u);  // nothing indexed yet
  shared.extend(sa, a.size());
  test::write_tokens(shared, sa, a, 0);
  shared.commit_block_hashes(sa, a);
  EXPECT_EQ(shared.indexed_blocks(), 3u);

  const SequenceId sb = shared.create_sequence();
  const size_t cached = shared.attach_prefix(sb, b);
  EXPECT_EQ(cached, 32u);  // the 2 full blocks of the 40 common tokens
  EXPECT_EQ(shared.block_table(sb)[0], shared.block_table(sa)[0]);
  EXPECT_EQ(shared.block_table(sb)[1], shared.block_table(sa)[1]);
  shared.extend(sb, b.size() - cached);
  test::write_tokens(shared, sb, b, cached);
  shared.commit_block_hashes(sb, b);

  PagedKvCache unshared(config(320));
  const SequenceId ua = prefill(unshared, a), ub = prefill(unshared, b);
  EXPECT_EQ(attend(shared, sa), attend(unshared, ua));
  EXPECT_EQ(attend(shared, sb), attend(unshared, ub));
  EXPECT_EQ(unshared.pool().blocks_in_use(), 4u + 3u);
  EXPECT_EQ(shared.pool().blocks_in_use(), 4u + 1u);

  // Shared blocks live while any sequence holds them; then leave the index.
  shared.free_sequence(sa);
  EXPECT_EQ(shared.pool().blocks_in_use(), 3u);
  shared.free_sequence(sb);
  EXPECT_EQ(shared.pool().blocks_in_use(), 0u);
  EXPECT_EQ(shared.indexed_blocks(), 0u);
}

TEST(PagedKvCache, AFullyCachedPromptLeavesItsLastTokenToRun) {
  PagedKvCache cache(config(320));
  const auto prompt = test::iota_tokens(32, 3);
  const SequenceId first = prefill(cache, prompt);
  cache.commit_block_hashes(first, prompt);

  const SequenceId again = cache.create_sequence();
  EXPECT_EQ(cache.attach_prefix(again, prompt), 31u);
  EXPECT_EQ(cache.pool().blocks_in_use(), 2u);
  cache.extend(again, 1);  // copies the shared second block before the write
  EXPECT_EQ(cache.pool().blocks_in_use(), 3u);
  test::write_tokens(cache, again, prompt, 31);
  EXPECT_EQ(attend(cache, again), attend(cache, first));
  EXPECT_THROW(cache.attach_prefix(again, prompt), Error);  // not empty
}

TEST(PagedKvCache, CommittingADuplicatePrefixFreesTheCopy) {
  PagedKvCache cache(config(320));
  const auto prompt = test::iota_tokens(40, 3);
  // Two prefills of the same prompt side by side, as a batch would run them.
  const SequenceId a = prefill(cache, prompt), b = prefill(cache, prompt);
  EXPECT_EQ(cache.pool().blocks_in_use(), 6u);
  cache.commit_block_hashes(a, prompt);
  cache.commit_block_hashes(b, prompt);
  EXPECT_EQ(cache.pool().blocks_in_use(), 4u);  // b now holds a's two full blocks
  EXPECT_EQ(attend(cache, a), attend(cache, b));
}

TEST(PagedKvCache, WritingIntoAnIndexedBlockUnindexesIt) {
  PagedKvCache cache(config(320));
  const auto prompt = test::iota_tokens(32, 3);
  const SequenceId first = prefill(cache, prompt);
  cache.commit_block_hashes(first, prompt);
  const SequenceId seq = cache.create_sequence();
  EXPECT_EQ(cache.attach_prefix(seq, prompt), 31u);
  cache.free_sequence(first);  // seq alone holds both indexed blocks now
  EXPECT_EQ(cache.indexed_blocks(), 2u);
  cache.extend(seq, 1);  // position 31 is rewritten in place: block 1 leaves the index
  EXPECT_EQ(cache.pool().blocks_in_use(), 2u);
  EXPECT_EQ(cache.indexed_blocks(), 1u);
  const SequenceId other = cache.create_sequence();
  EXPECT_EQ(cache.attach_prefix(other, prompt), 16u);
}

}  // namespace
}  // namespace pdbench
