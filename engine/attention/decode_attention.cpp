#include "engine/attention/decode_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/attention/decode_kernels.h"
#include "engine/attention/paged_attention.h"
#include "engine/kernels/reference.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

// Positions scored at a time: small enough for the chunk's keys and values
// to stay in L1/L2 while every query head of a GQA group reads them.
constexpr size_t kChunk = 64;

// AVX2's kernels, the scalar ones where it has none.
decode_detail::DecodeKernels avx2_or_scalar() {
  const decode_detail::DecodeKernels& scalar = decode_detail::kScalarDecodeKernels;
  decode_detail::DecodeKernels k = decode_detail::kAvx2DecodeKernels;
  for (size_t t = 0; t < kKvTypeCount; ++t) {
    if (k.prepare[t] == nullptr) k.prepare[t] = scalar.prepare[t];
    if (k.dot[t] == nullptr) k.dot[t] = scalar.dot[t];
    if (k.add[t] == nullptr) k.add[t] = scalar.add[t];
  }
  return k;
}

const decode_detail::DecodeKernels& kernels_of(Isa isa) {
  require_isa(isa, "attention");
  static const decode_detail::DecodeKernels avx2 = avx2_or_scalar();
  switch (isa) {
    case Isa::Avx512:
      return decode_detail::kAvx512DecodeKernels;
    case Isa::Avx2Vnni:  // integer dot products only: attention's are float
    case Isa::Avx2:
      return avx2;
    case Isa::Scalar:
      break;
  }
  return decode_detail::kScalarDecodeKernels;
}

}  // namespace

void attention_partial(const float* q, const PagedKvCache& cache, SequenceId seq, size_t layer,
                       size_t begin, size_t end, const ref::AttentionShape& shape,
                       AttentionPartial& part, Isa isa) {
  check_paged_attention(cache, seq, layer, end, shape);
  if (begin > end)
    throw Error("decode attention: range [" + std::to_string(begin) + ", " + std::to_string(end) +
                ") is reversed");
  const auto& kernels = kernels_of(isa);
  const KvCacheConfig& c = cache.config();
  const KvBlockPool& pool = cache.pool();
  const auto prepare = kernels.prepare[static_cast<size_t>(c.k_type)];
  const auto dot = kernels.dot[static_cast<size_t>(c.k_type)];
  const auto add = kernels.add[static_cast<size_t>(c.v_type)];
  const auto table = cache.block_table(seq);
  const size_t bs = pool.block_tokens();
  const size_t hd = shape.head_dim;
  const size_t group = shape.n_heads / shape.n_kv_heads;
  const float scale = std::sqrt(static_cast<float>(hd));

  part.max.assign(shape.n_heads, -std::numeric_limits<float>::infinity());
  part.sum.assign(shape.n_heads, 0.0f);
  part.acc.assign(shape.n_heads * hd, 0.0f);
  part.query.resize(shape.n_heads * hd);
  part.weights.resize(group * kChunk);
  if (begin == end) return;
  for (size_t h = 0; h < shape.n_heads; ++h) prepare(q + h * hd, hd, &part.query[h * hd]);
  // A chunk's keys and values: positions [pos, pos + n) of one block.
  struct Chunk {
    const std::byte* keys;
    const std::byte* values;
    size_t n;
  };
  const auto chunk_at = [&](size_t kv_head, size_t pos) {
    const size_t slot = pos % bs;
    const KvBlockId block = table[pos / bs];
    return Chunk{pool.keys(block, layer, kv_head) + slot * pool.k_vector_bytes(),
                 pool.values(block, layer, kv_head) + slot * pool.v_vector_bytes(),
                 std::min({bs - slot, end - pos, kChunk})};
  };
  for (size_t kv_head = 0; kv_head < shape.n_kv_heads; ++kv_head) {
    const size_t first_head = kv_head * group;
    for (size_t pos = begin; pos < end;) {
      const auto [keys, values, n] = chunk_at(kv_head, pos);
      // The next chunk's K/V into the cache while this one is computed:
      // blocks are apart in the pool, and hardware prefetchers stop at the
      // 4 KiB page a block's K or V of one head fills at head_dim 64 in f32.
      if (pos + n < end || kv_head + 1 < shape.n_kv_heads) {
        const Chunk next = pos + n < end ? chunk_at(kv_head, pos + n) : chunk_at(kv_head + 1, begin);
        for (size_t b = 0; b < next.n * pool.k_vector_bytes(); b += 64) __builtin_prefetch(next.keys + b);
        for (size_t b = 0; b < next.n * pool.v_vector_bytes(); b += 64) __builtin_prefetch(next.values + b);
      }
      for (size_t h = first_head; h < first_head + group; ++h) {
        float* w = &part.weights[(h - first_head) * kChunk];
        float chunk_max = dot(&part.query[h * hd], keys, n, hd, scale, w);
        if (shape.softcap != 0) {  // tanh is increasing: the largest score stays the largest
          kernels.softcap(w, n, shape.softcap);
          kernels.softcap(&chunk_max, 1, shape.softcap);
        }
        if (chunk_max > part.max[h]) {  // rescale what came before to the new max
          const float f = std::exp(part.max[h] - chunk_max);
          part.sum[h] *= f;
          for (size_t i = 0; i < hd; ++i) part.acc[h * hd + i] *= f;
          part.max[h] = chunk_max;
        }
        part.sum[h] += kernels.exp_sum(w, n, part.max[h]);
      }
      add(part.weights.data(), kChunk, group, values, n, hd, &part.acc[first_head * hd]);
      pos += n;
    }
  }
}

void merge_attention(std::span<const AttentionPartial> parts, const ref::AttentionShape& shape, float* out,
                     Isa isa) {
  const auto& kernels = kernels_of(isa);
  const size_t hd = shape.head_dim;
  for (const AttentionPartial& p : parts)
    if (p.max.size() != shape.n_heads || p.sum.size() != shape.n_heads ||
        p.acc.size() != shape.n_heads * hd)
      throw Error("decode attention: a partial of " + std::to_string(p.max.size()) +
                  " heads does not match the shape's " + std::to_string(shape.n_heads));
  std::vector<const float*> acc;
  std::vector<float> factor;
  for (size_t h = 0; h < shape.n_heads; ++h) {
    float max = -std::numeric_limits<float>::infinity();
    for (const AttentionPartial& p : parts) max = std::max(max, p.max[h]);
    acc.clear();
    factor.clear();
    float sum = 0.0f;
    for (const AttentionPartial& p : parts) {
      if (p.sum[h] == 0.0f) continue;  // an empty range
      const float f = std::exp(p.max[h] - max);
      sum += p.sum[h] * f;
      acc.push_back(&p.acc[h * hd]);
      factor.push_back(f);
    }
    if (sum == 0.0f) throw Error("decode attention: the partials cover no positions");
    kernels.merge_head(acc.data(), factor.data(), acc.size(), sum, hd, out + h * hd);
  }
}

void paged_attention_decode(const float* q, const PagedKvCache& cache, SequenceId seq, size_t layer,
                            size_t n_ctx, const ref::AttentionShape& shape,
                            AttentionPartial& scratch, float* out, Isa isa) {
  const size_t first = n_ctx == 0 ? 0 : ref::first_visible(shape, n_ctx - 1);
  attention_partial(q, cache, seq, layer, first, n_ctx, shape, scratch, isa);
  merge_attention(std::span(&scratch, 1), shape, out, isa);
}

}  // namespace pdbench
