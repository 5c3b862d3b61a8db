// Tiled prefill attention against the per-position reference
// (ref::paged_attention) on the same cache. Every KV type converts to f32
// exactly, so the bound is the same for f32, f16, bf16 and q8_0: 1e-5 of
// max|v| (reassociated sums, q scaled by 1 / sqrt(head_dim) first,
// polynomial exp), as for the decode kernels; observed below 5e-7.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/attention/decode_attention.h"
#include "engine/attention/paged_attention.h"
#include "engine/attention/chunk_attention.h"
#include "engine/util/error.h"
#include "tests/attention/kv_test_util.h"

namespace pdbench {
namespace {

constexpr size_t kLayers = 2;
constexpr size_t kLayer = 1;
constexpr float kVmax = 5.0f;  // |N(0,1)| samples here stay below 5
constexpr KvType kTypes[] = {KvType::F32, KvType::F16, KvType::BF16, KvType::Q8_0};
// GQA groups of 1 to 4 heads, SmolLM2-135M's (9/3) and Llama-3.2-1B's
// (32/8) shapes, and head sizes with masked tails (48) or tiny (8).
constexpr ref::AttentionShape kShapes[] = {{9, 3, 64}, {32, 8, 64}, {3, 3, 48},
                                           {4, 2, 64}, {2, 1, 8},   {4, 1, 128}};

std::string name(const ref::AttentionShape& s, KvType type) {
  return std::to_string(s.n_heads) + "/" + std::to_string(s.n_kv_heads) + "x" +
         std::to_string(s.head_dim) + " window " + std::to_string(s.window) + " softcap " +
         std::to_string(s.softcap) + " " +
         std::string(kv_type_name(type));
}

// Sequences of the given lengths with random K/V in one cache.
struct Sequences {
  Sequences(const ref::AttentionShape& shape, KvType type, size_t block_tokens,
            const std::vector<size_t>& lengths)
      : cache(KvCacheConfig{kLayers, shape.n_kv_heads, shape.head_dim, type, type, block_tokens,
                            capacity(lengths, block_tokens), 0}) {
    for (size_t length : lengths) {
      const SequenceId seq = cache.create_sequence();
      cache.extend(seq, length);
      for (size_t layer = 0; layer < kLayers; ++layer)
        for (size_t pos = 0; pos < length; ++pos) {
          const auto seed = static_cast<uint32_t>(((seq * kLayers + layer) * 1000 + pos) * 2);
          const auto k = test::random_normal(cache.kv_dim(), seed);
          const auto v = test::random_normal(cache.kv_dim(), seed + 1);
          cache.write(seq, layer, pos, k.data(), v.data());
        }
      ids.push_back(seq);
    }
  }
  static size_t capacity(const std::vector<size_t>& lengths, size_t block_tokens) {
    size_t tokens = 0;
    for (size_t length : lengths) tokens += length + block_tokens;  // a partial last block each
    return tokens;
  }
  PagedKvCache cache;
  std::vector<SequenceId> ids;
};

// The reference output of each query of the chunk, one row after another.
std::vector<float> reference(const Sequences& s, const QueryChunk& chunk, size_t q_stride,
                             const ref::AttentionShape& shape) {
  const size_t width = shape.n_heads * shape.head_dim;
  std::vector<float> scores(chunk.first_pos + chunk.n_queries), out(chunk.n_queries * width);
  for (size_t t = 0; t < chunk.n_queries; ++t)
    ref::paged_attention(chunk.q + t * q_stride, s.cache, chunk.seq, kLayer,
                         chunk.first_pos + t + 1, shape, scores.data(), &out[t * width]);
  return out;
}

void expect_near(const QueryChunk& chunk, size_t out_stride, const std::vector<float>& expected,
                 const std::string& what) {
  const size_t width = expected.size() / chunk.n_queries;
  for (size_t t = 0; t < chunk.n_queries; ++t)
    for (size_t i = 0; i < width; ++i)
      ASSERT_NEAR(chunk.out[t * out_stride + i], expected[t * width + i], 1e-5f * kVmax)
          << what << " query " << t << " at " << chunk.first_pos + t << " element " << i;
}

// One chunk per case: from position 0 or after a cached prefix, lengths on
// and off the 16-position tiles, and blocks of 16 and 7 tokens; unwindowed,
// and sliding windows shorter than a 16-position K/V tile and across tiles,
// where a tile's rows start their windows in different K/V tiles; and
// Gemma 2's softcap (at 2, where it bends these scores) with a window, and
// at 0.25, where most of them saturate (tanh past its polynomial's clamp).
TEST(PrefillAttention, MatchesThePerPositionReference) {
  struct Case {
    size_t first_pos, n_queries;
  };
  const Case cases[] = {{0, 2}, {0, 16}, {0, 17}, {0, 45}, {5, 30}, {33, 12}};
  std::vector<ref::AttentionShape> shapes;
  const std::pair<size_t, float> variants[] = {{0, 0.0f}, {5, 0.0f}, {20, 0.0f}, {20, 2.0f}, {0, 0.25f}};
  for (const auto& [window, softcap] : variants)
    for (ref::AttentionShape shape : kShapes) {
      shape.window = window;
      shape.softcap = softcap;
      shapes.push_back(shape);
    }
  for (const auto& shape : shapes)
    for (KvType type : kTypes) {
      const Sequences blocks_of_16(shape, type, 16, {45}), blocks_of_7(shape, type, 7, {45});
      const size_t width = shape.n_heads * shape.head_dim;
      for (const Case& c : cases) {
        const auto q = test::random_normal(c.n_queries * width, static_cast<uint32_t>(c.first_pos));
        std::vector<float> out(q.size());
        QueryChunk chunk{blocks_of_16.ids[0], c.first_pos, c.n_queries, q.data(), out.data()};
        const auto expected = reference(blocks_of_16, chunk, width, shape);  // same K/V in both
        for (const Sequences* s : {&blocks_of_16, &blocks_of_7})
          for (Isa isa : test::attention_isas()) {
            std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
            chunk.seq = s->ids[0];
            paged_attention_chunks(std::span(&chunk, 1), width, width, s->cache, kLayer, shape,
                                    isa);
            expect_near(chunk, width, expected,
                        name(shape, type) + " block " +
                            std::to_string(s->cache.pool().block_tokens()) + " " +
                            std::string(isa_name(isa)) + " chunk at " +
                            std::to_string(c.first_pos));
          }
      }
    }
}

// Chunks of three sequences in one call, their rows interleaved in strided
// buffers as a forward pass has them: a chunk after a cached prefix, one
// from the start, and a single query (the decode kernel's: identical to it).
// The gaps between output rows stay untouched.
TEST(PrefillAttention, ChunksOfSeveralSequencesInOneCall) {
  const ref::AttentionShape shape{9, 3, 64};
  const size_t width = shape.n_heads * shape.head_dim;
  const size_t q_stride = width + 2 * shape.n_kv_heads * shape.head_dim, out_stride = width + 3;
  for (KvType type : kTypes) {
    const Sequences s(shape, type, 16, {57, 50, 10});
    const std::vector<QueryChunk> layout{{s.ids[0], 20, 37, nullptr, nullptr},
                                         {s.ids[1], 0, 50, nullptr, nullptr},
                                         {s.ids[2], 9, 1, nullptr, nullptr}};
    const auto q = test::random_normal(88 * q_stride, 7);
    for (Isa isa : test::attention_isas()) {
      std::vector<float> out(88 * out_stride, std::numeric_limits<float>::quiet_NaN());
      std::vector<QueryChunk> chunks = layout;
      for (size_t c = 0, row = 0; c < chunks.size(); row += chunks[c++].n_queries) {
        chunks[c].q = &q[row * q_stride];
        chunks[c].out = &out[row * out_stride];
      }
      paged_attention_chunks(chunks, q_stride, out_stride, s.cache, kLayer, shape, isa);
      const std::string what =
          std::string(kv_type_name(type)) + " " + std::string(isa_name(isa));
      for (size_t c = 0; c < 2; ++c)
        expect_near(chunks[c], out_stride, reference(s, chunks[c], q_stride, shape),
                    what + " chunk " + std::to_string(c));
      AttentionPartial scratch;
      std::vector<float> decoded(width);
      paged_attention_decode(chunks[2].q, s.cache, s.ids[2], kLayer, 10, shape, scratch,
                             decoded.data(), isa);
      EXPECT_EQ(std::vector<float>(chunks[2].out, chunks[2].out + width), decoded) << what;
      for (size_t row = 0; row < 88; ++row)
        for (size_t i = width; i < out_stride; ++i)
          ASSERT_TRUE(std::isnan(out[row * out_stride + i])) << what;
    }
  }
}

TEST(PrefillAttention, BadChunksAreErrors) {
  const ref::AttentionShape shape{4, 2, 64};
  const Sequences s(shape, KvType::F32, 16, {20});
  const size_t width = shape.n_heads * shape.head_dim;
  std::vector<float> q(21 * width), out(q.size());
  const auto run = [&](size_t first_pos, size_t n_queries, const ref::AttentionShape& sh) {
    const QueryChunk chunk{s.ids[0], first_pos, n_queries, q.data(), out.data()};
    paged_attention_chunks(std::span(&chunk, 1), width, width, s.cache, kLayer, sh);
  };
  EXPECT_THROW(run(0, 0, shape), Error);                           // no queries
  EXPECT_THROW(run(10, 11, shape), Error);                         // past the sequence
  EXPECT_THROW(run(0, 20, ref::AttentionShape{4, 4, 32}), Error);  // not the cache's shape
  run(0, 20, shape);
}

}  // namespace
}  // namespace pdbench
