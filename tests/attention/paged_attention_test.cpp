// Attention over the paged cache: the reference against ref::attention on
// the contiguous cache (bit-identical in f32), each stored dtype against f32
// within a bound derived from its rounding, the decode kernels of every ISA
// against the reference, and split ranges merged against one range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "engine/attention/attention.h"
#include "engine/attention/decode_attention.h"
#include "engine/attention/kv_cache.h"
#include "engine/attention/paged_attention.h"
#include "engine/util/error.h"
#include "engine/util/half.h"
#include "tests/attention/kv_test_util.h"

namespace pdbench {
namespace {

constexpr size_t kLayers = 2;
constexpr KvType kTypes[] = {KvType::F32, KvType::F16, KvType::BF16, KvType::Q8_0};
// MHA, GQA, and head sizes that exercise the masked tails and q8_0's
// one-scale-per-vector fallback.
constexpr ref::AttentionShape kShapes[] = {{4, 2, 64}, {2, 1, 8}, {3, 3, 48}, {4, 1, 128}};

std::string name(const ref::AttentionShape& s) {
  return std::to_string(s.n_heads) + "/" + std::to_string(s.n_kv_heads) + "x" +
         std::to_string(s.head_dim);
}

// The same random K/V (uniform-ish N(0,1)) in a contiguous f32 cache and a
// paged cache of the given types.
struct Caches {
  Caches(const ref::AttentionShape& shape, size_t n_ctx, KvType k_type, KvType v_type,
         size_t block_tokens = 16)
      : contiguous(kLayers, shape.n_kv_heads * shape.head_dim, n_ctx),
        paged(KvCacheConfig{kLayers, shape.n_kv_heads, shape.head_dim, k_type, v_type, block_tokens,
                            n_ctx + block_tokens, 0}),
        seq(paged.create_sequence()) {
    paged.extend(seq, n_ctx);
    const size_t kv_dim = paged.kv_dim();
    for (size_t layer = 0; layer < kLayers; ++layer)
      for (size_t pos = 0; pos < n_ctx; ++pos) {
        const auto seed = static_cast<uint32_t>(2 * (layer * n_ctx + pos));
        const auto k = test::random_normal(kv_dim, seed), v = test::random_normal(kv_dim, seed + 1);
        std::copy(k.begin(), k.end(), contiguous.key(layer, pos));
        std::copy(v.begin(), v.end(), contiguous.value(layer, pos));
        paged.write(seq, layer, pos, k.data(), v.data());
      }
    contiguous.set_length(n_ctx);
  }
  KvCache contiguous;
  PagedKvCache paged;
  SequenceId seq;
};

std::vector<float> query(const ref::AttentionShape& shape, uint32_t seed) {
  return test::random_normal(shape.n_heads * shape.head_dim, 1000 + seed);
}

std::vector<float> ref_contiguous(const Caches& c, const float* q, size_t layer, size_t n_ctx,
                                  const ref::AttentionShape& shape) {
  std::vector<float> scores(n_ctx), out(shape.n_heads * shape.head_dim);
  ref::attention(q, c.contiguous, layer, n_ctx, shape, scores.data(), out.data());
  return out;
}

std::vector<float> ref_paged(const Caches& c, const float* q, size_t layer, size_t n_ctx,
                             const ref::AttentionShape& shape) {
  std::vector<float> scores(n_ctx), out(shape.n_heads * shape.head_dim);
  ref::paged_attention(q, c.paged, c.seq, layer, n_ctx, shape, scores.data(), out.data());
  return out;
}

std::vector<float> decode(const Caches& c, const float* q, size_t layer, size_t n_ctx,
                          const ref::AttentionShape& shape, Isa isa) {
  AttentionPartial scratch;
  std::vector<float> out(shape.n_heads * shape.head_dim);
  paged_attention_decode(q, c.paged, c.seq, layer, n_ctx, shape, scratch, out.data(), isa);
  return out;
}

// The most storing x[i] as `type` can move it (kv_type.h), with 1e-6 of
// slack for q8_0's division.
float element_bound(KvType type, const float* x, size_t head_dim, size_t i) {
  switch (type) {
    case KvType::F32:
      return 0.0f;
    case KvType::F16:
      return std::max(std::ldexp(std::abs(x[i]), -11), 0x1p-25f);
    case KvType::BF16:
      return std::ldexp(std::abs(x[i]), -8);
    case KvType::Q8_0:
      break;
  }
  const size_t group = kv_q8_group(head_dim), first = i / group * group;
  float amax = 0.0f;
  for (size_t j = first; j < first + group; ++j) amax = std::max(amax, std::abs(x[j]));
  return fp16_to_f32(f32_to_fp16(amax / 127.0f)) / 2 * (1 + 1e-6f);
}

// Whether the decode kernel of `isa` rounds the query to int8 per group of
// 32 (decode_attention.h): AVX-512 against q8_0 keys of such groups.
bool rounds_query(Isa isa, KvType k_type, size_t head_dim) {
  return isa == Isa::Avx512 && k_type == KvType::Q8_0 && head_dim % 32 == 0;
}

// The most that rounding q[i] to int8 moves it: half a step of max|q| / 127
// over its group of 32, with 1e-6 of slack for the f32 arithmetic.
float query_rounding(const float* q, size_t i) {
  const size_t first = i / 32 * 32;
  float amax = 0.0f;
  for (size_t j = first; j < first + 32; ++j) amax = std::max(amax, std::abs(q[j]));
  return amax / 127 / 2 * (1 + 1e-6f);
}

// Which errors an output bound covers: K/V stored as their type rather than
// f32, and the query rounded to int8.
struct ErrorSources {
  bool stored_kv;
  bool rounded_query;
};

// Per query head: how far those errors can move the output. A score
// q . k / sqrt(head_dim) moves by at most delta = (sum_i |q_i| dk_i +
// dq_i (|k_i| + dk_i)) / sqrt(head_dim), so each softmax weight by a factor
// within e^(+-2 delta), the weights in total by e^(2 delta) - 1; then
// |out' - out| <= max dv + (e^(2 delta) - 1) max|v|. 1e-5 max|v| more
// covers f32 rounding.
std::vector<float> output_bounds(const Caches& c, const float* q, size_t layer, size_t n_ctx,
                                 const ref::AttentionShape& shape, ErrorSources sources) {
  const KvCacheConfig& cfg = c.paged.config();
  const size_t hd = shape.head_dim, group = shape.n_heads / shape.n_kv_heads;
  std::vector<float> bounds;
  for (size_t h = 0; h < shape.n_heads; ++h) {
    const float* qh = q + h * hd;
    const size_t off = h / group * hd;
    float delta = 0.0f, dv = 0.0f, vmax = 0.0f;
    for (size_t t = 0; t < n_ctx; ++t) {
      const float* k = c.contiguous.key(layer, t) + off;
      const float* v = c.contiguous.value(layer, t) + off;
      float d = 0.0f;
      for (size_t i = 0; i < hd; ++i) {
        const float dk = element_bound(cfg.k_type, k, hd, i);  // |stored k_i| <= |k_i| + dk
        if (sources.stored_kv) d += std::abs(qh[i]) * dk;
        if (sources.rounded_query) d += query_rounding(qh, i) * (std::abs(k[i]) + dk);
        if (sources.stored_kv) dv = std::max(dv, element_bound(cfg.v_type, v, hd, i));
        vmax = std::max(vmax, std::abs(v[i]));
      }
      delta = std::max(delta, d / std::sqrt(static_cast<float>(hd)));
    }
    bounds.push_back(dv + std::expm1(2 * delta) * vmax + 1e-5f * vmax);
  }
  return bounds;
}

TEST(PagedAttention, F32MatchesContiguousBitForBit) {
  for (const auto& shape : kShapes)
    for (size_t block_tokens : {16u, 7u, 1u}) {
      const Caches c(shape, 50, KvType::F32, KvType::F32, block_tokens);
      for (size_t n_ctx : {1u, 7u, 16u, 17u, 50u})
        for (size_t layer = 0; layer < kLayers; ++layer) {
          const auto q = query(shape, static_cast<uint32_t>(n_ctx));
          EXPECT_EQ(ref_paged(c, q.data(), layer, n_ctx, shape),
                    ref_contiguous(c, q.data(), layer, n_ctx, shape))
              << name(shape) << " block " << block_tokens << " n_ctx " << n_ctx;
        }
    }
}

// A sliding window of W is attention over the last W positions alone: in
// f32, bit for bit the unwindowed reference on a contiguous cache that
// holds only those positions. A window as long as the context changes nothing.
TEST(PagedAttention, WindowAttendsToItsLastPositionsAlone) {
  const size_t n_ctx = 50;
  for (const auto& unwindowed : kShapes) {
    const Caches c(unwindowed, n_ctx, KvType::F32, KvType::F32, 7);
    for (size_t window : {1u, 5u, 16u, 49u}) {
      ref::AttentionShape shape = unwindowed;
      shape.window = window;
      const size_t first = n_ctx - window;
      KvCache last(kLayers, shape.n_kv_heads * shape.head_dim, window);
      for (size_t layer = 0; layer < kLayers; ++layer)
        for (size_t t = 0; t < window; ++t) {
          std::copy_n(c.contiguous.key(layer, first + t), last.kv_dim(), last.key(layer, t));
          std::copy_n(c.contiguous.value(layer, first + t), last.kv_dim(), last.value(layer, t));
        }
      last.set_length(window);
      const auto q = query(shape, static_cast<uint32_t>(window));
      std::vector<float> scores(n_ctx), expected(q.size());
      ref::attention(q.data(), last, 1, window, unwindowed, scores.data(), expected.data());
      EXPECT_EQ(ref_paged(c, q.data(), 1, n_ctx, shape), expected) << name(shape) << " window " << window;
      EXPECT_EQ(ref_contiguous(c, q.data(), 1, n_ctx, shape), expected) << name(shape) << " window " << window;
    }
    ref::AttentionShape whole = unwindowed;
    whole.window = n_ctx;
    const auto q = query(unwindowed, 1);
    EXPECT_EQ(ref_paged(c, q.data(), 0, n_ctx, whole), ref_paged(c, q.data(), 0, n_ctx, unwindowed));
  }
}

TEST(PagedAttention, StoredTypesStayWithinTheirBoundOfF32) {
  for (const auto& shape : kShapes)
    for (KvType k_type : kTypes)
      for (KvType v_type : kTypes) {
        const size_t n_ctx = 75;
        const Caches c(shape, n_ctx, k_type, v_type);
        const auto q = query(shape, 3);
        const auto exact = ref_contiguous(c, q.data(), 1, n_ctx, shape);
        const auto check = [&](const std::vector<float>& out, bool rounded_query,
                               const char* what) {
          const auto bounds = output_bounds(c, q.data(), 1, n_ctx, shape, {true, rounded_query});
          for (size_t i = 0; i < out.size(); ++i)
            ASSERT_LE(std::abs(out[i] - exact[i]), bounds[i / shape.head_dim])
                << name(shape) << " K " << kv_type_name(k_type) << " V " << kv_type_name(v_type)
                << " " << what << " element " << i;
        };
        check(ref_paged(c, q.data(), 1, n_ctx, shape), false, "reference");
        for (Isa isa : test::attention_isas())
          check(decode(c, q.data(), 1, n_ctx, shape, isa),
                rounds_query(isa, k_type, shape.head_dim), isa_name(isa).data());
      }
}

// Within 1e-5 of max|v| (reassociated sums, polynomial exp; observed 3e-7),
// and where the kernel rounds the query to int8, within output_bounds of
// that rounding (a worst case, about 0.1 max|v| here; observed up to 4e-3).
// Unwindowed, with sliding windows shorter than a 64-position chunk and
// across chunks, and with Gemma 2's softcap (at 2, where it bends these
// scores; Gemma's 50 would hardly touch them; at 0.25, where most saturate).
TEST(PagedAttention, DecodeKernelsMatchTheReference) {
  const std::pair<size_t, float> variants[] = {{0, 0.0f}, {20, 0.0f}, {100, 0.0f}, {20, 2.0f}, {0, 0.25f}};
  for (const auto& [window, softcap] : variants)
    for (ref::AttentionShape shape : kShapes) {
      shape.window = window;
      shape.softcap = softcap;
      for (KvType type : kTypes) {
        const size_t n_ctx = 150;  // several 64-position chunks and a partial block
        const Caches c(shape, n_ctx, type, type);
        for (size_t n : {1u, 16u, 33u, 150u}) {
          const auto q = query(shape, static_cast<uint32_t>(n));
          const auto expected = ref_paged(c, q.data(), 0, n, shape);
          const float vmax = 5.0f;  // |N(0,1)| samples here stay below 5
          for (Isa isa : test::attention_isas()) {
            std::vector<float> bounds(shape.n_heads, 1e-5f * vmax);
            if (rounds_query(isa, type, shape.head_dim))
              bounds = output_bounds(c, q.data(), 0, n, shape, {false, true});
            const auto out = decode(c, q.data(), 0, n, shape, isa);
            for (size_t i = 0; i < out.size(); ++i)
              ASSERT_NEAR(out[i], expected[i], bounds[i / shape.head_dim])
                  << name(shape) << " " << kv_type_name(type) << " " << isa_name(isa) << " n " << n
                  << " window " << window << " softcap " << softcap;
          }
        }
      }
    }
}

// Within 1e-6 of max|v|, the scale of every term the outputs sum: an output
// element can cancel to near zero, so relative to itself is no bound.
TEST(PagedAttention, SplitRangesMergeToTheUnsplitResult) {
  const ref::AttentionShape shape{4, 2, 64};
  const size_t n_ctx = 1000;
  const float vmax = 5.0f;  // |N(0,1)| samples here stay below 5
  for (KvType type : {KvType::F32, KvType::Q8_0}) {
    const Caches c(shape, n_ctx, type, type);
    const auto q = query(shape, 9);
    for (Isa isa : test::attention_isas()) {
      const auto whole = decode(c, q.data(), 1, n_ctx, shape, isa);
      // Uneven ranges, one not block-aligned and one empty, as threads get them.
      const size_t cuts[] = {0, 37, 37, 600, 1000};
      std::vector<AttentionPartial> parts(4);
      for (size_t i = 0; i < parts.size(); ++i)
        attention_partial(q.data(), c.paged, c.seq, 1, cuts[i], cuts[i + 1], shape, parts[i], isa);
      std::vector<float> merged(whole.size());
      merge_attention(parts, shape, merged.data());
      for (size_t i = 0; i < whole.size(); ++i)
        ASSERT_NEAR(merged[i], whole[i], 1e-6f * vmax)
            << kv_type_name(type) << " " << isa_name(isa);
    }
  }
}

TEST(PagedAttention, BadArgumentsAreErrors) {
  const ref::AttentionShape shape{4, 2, 64};
  const Caches c(shape, 20, KvType::F32, KvType::F32);
  const auto q = query(shape, 0);
  std::vector<float> scores(40), out(q.size());
  EXPECT_THROW(
      ref::paged_attention(q.data(), c.paged, c.seq, 0, 21, shape, scores.data(), out.data()),
      Error);  // past the sequence
  EXPECT_THROW(
      ref::paged_attention(q.data(), c.paged, c.seq, 0, 0, shape, scores.data(), out.data()),
      Error);
  EXPECT_THROW(
      ref::paged_attention(q.data(), c.paged, c.seq, 2, 20, shape, scores.data(), out.data()),
      Error);  // no layer 2
  const ref::AttentionShape wrong{4, 4, 32};
  AttentionPartial part;
  EXPECT_THROW(attention_partial(q.data(), c.paged, c.seq, 0, 0, 20, wrong, part), Error);
  EXPECT_THROW(attention_partial(q.data(), c.paged, c.seq, 0, 10, 5, shape, part), Error);
  attention_partial(q.data(), c.paged, c.seq, 0, 5, 5, shape, part);  // empty is fine alone...
  EXPECT_THROW(merge_attention(std::span(&part, 1), shape, out.data()),
               Error);  // ...but not merged alone
}

}  // namespace
}  // namespace pdbench
