#include "engine/attention/chunk_attention.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/attention/decode_attention.h"
#include "engine/attention/paged_attention.h"
#include "engine/attention/prefill_kernels.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

using prefill_detail::kKvTile;
using prefill_detail::kRowBlock;

// Query positions per tile: the GQA group's heads times this many rows
// share each K/V tile, enough that converting it is a small part of the work.
constexpr size_t kQueryTile = 16;
static_assert(kQueryTile % kRowBlock == 0, "a tile's rows must fill whole row blocks");

const prefill_detail::PrefillKernels& kernels_of(Isa isa) {
  require_isa(isa, "attention");
  static const prefill_detail::PrefillKernels avx2 = [] {
    prefill_detail::PrefillKernels k = prefill_detail::kScalarPrefillKernels;
    k.attend = prefill_detail::kAvx2Attend;
    return k;
  }();
  switch (isa) {
    case Isa::Avx512:
      return prefill_detail::kAvx512PrefillKernels;
    case Isa::Avx2Vnni:  // integer dot products only: attention's are float
    case Isa::Avx2:
      return avx2;
    case Isa::Scalar:
      break;
  }
  return prefill_detail::kScalarPrefillKernels;
}

// Query tile [first_query, first_query + kQueryTile) of a chunk for one KV
// head, or (a chunk of one query) the whole chunk through the decode kernel.
struct WorkItem {
  size_t chunk;
  size_t kv_head;
  size_t first_query;
  size_t end_pos;  // keys it reads: [0, end_pos)
};

// One thread's tile: the arrays of prefill_detail::QueryTile and a K/V tile.
struct TileBuffers {
  TileBuffers(size_t max_rows, size_t head_dim)
      : q(max_rows * head_dim),
        acc(max_rows * head_dim),
        max(max_rows),
        sum(max_rows),
        pos(max_rows),
        first(max_rows),
        keys(kKvTile * head_dim),
        values(kKvTile * head_dim) {}
  std::vector<float> q, acc, max, sum;
  std::vector<int32_t> pos, first;
  std::vector<float> keys, values;
};

class TiledPrefill {
 public:
  TiledPrefill(std::span<const QueryChunk> chunks, size_t q_stride, size_t out_stride,
               const PagedKvCache& cache, size_t layer, const ref::AttentionShape& shape,
               Isa isa)
      : chunks_(chunks),
        q_stride_(q_stride),
        out_stride_(out_stride),
        cache_(cache),
        layer_(layer),
        shape_(shape),
        group_(shape.n_heads / shape.n_kv_heads),
        isa_(isa),
        kernels_(kernels_of(isa)) {}

  size_t max_rows() const { return kQueryTile * group_; }

  // Longest first, so the items that end the parallel loop are short.
  std::vector<WorkItem> work_items() const {
    std::vector<WorkItem> items;
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const QueryChunk& chunk = chunks_[c];
      if (chunk.n_queries == 1) {
        items.push_back({c, 0, 0, chunk.first_pos + 1});
        continue;
      }
      for (size_t kv_head = 0; kv_head < shape_.n_kv_heads; ++kv_head)
        for (size_t first = 0; first < chunk.n_queries; first += kQueryTile)
          items.push_back(
              {c, kv_head, first, chunk.first_pos + std::min(first + kQueryTile, chunk.n_queries)});
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const WorkItem& a, const WorkItem& b) { return a.end_pos > b.end_pos; });
    return items;
  }

  void run(const WorkItem& item, TileBuffers& tile, AttentionPartial& decode_scratch) const {
    const QueryChunk& chunk = chunks_[item.chunk];
    if (chunk.n_queries == 1)
      paged_attention_decode(chunk.q, cache_, chunk.seq, layer_, item.end_pos, shape_,
                             decode_scratch, chunk.out, isa_);
    else
      attend_query_tile(item, tile);
  }

 private:
  // Row r of the tile is query first_query + r / G, head r % G of the group;
  // rows past the last real one (padding to kRowBlock) copy its position
  // with a zero query, and their outputs are dropped. The walk over K/V
  // starts at the first position row 0, the earliest, sees.
  void attend_query_tile(const WorkItem& item, TileBuffers& b) const {
    const QueryChunk& chunk = chunks_[item.chunk];
    const size_t hd = shape_.head_dim;
    const size_t n_real = std::min(kQueryTile, chunk.n_queries - item.first_query) * group_;
    const size_t rows = (n_real + kRowBlock - 1) / kRowBlock * kRowBlock;
    // Multiplying by it is dividing by sqrt(hd) exactly when hd is a power of 4.
    const float inverse_scale = 1.0f / std::sqrt(static_cast<float>(hd));
    for (size_t r = 0; r < rows; ++r) {
      const size_t real = std::min(r, n_real - 1);
      const size_t pos = chunk.first_pos + item.first_query + real / group_;
      b.pos[r] = static_cast<int32_t>(pos);
      b.first[r] = static_cast<int32_t>(ref::first_visible(shape_, pos));
      const float* q = query_head(chunk.q, q_stride_, item, real);
      const float factor = r < n_real ? inverse_scale : 0.0f;
      for (size_t i = 0; i < hd; ++i) b.q[i * rows + r] = q[i] * factor;
    }
    std::fill_n(b.max.begin(), rows, -std::numeric_limits<float>::infinity());
    std::fill_n(b.sum.begin(), rows, 0.0f);
    std::fill_n(b.acc.begin(), rows * hd, 0.0f);
    const prefill_detail::QueryTile tile{b.q.data(), b.pos.data(), b.first.data(), rows,        hd,
                                         shape_.softcap, b.max.data(), b.sum.data(), b.acc.data()};
    for (auto first = static_cast<size_t>(b.first[0]); first < item.end_pos; first += kKvTile) {
      unpack_kv_tile(chunk.seq, item.kv_head, first, std::min(kKvTile, item.end_pos - first), b);
      kernels_.attend(tile, b.keys.data(), b.values.data(), first);
    }
    for (size_t r = 0; r < n_real; ++r) {
      float* out = query_head(chunk.out, out_stride_, item, r);
      const float inverse_sum = 1.0f / b.sum[r];
      for (size_t i = 0; i < hd; ++i) out[i] = b.acc[i * rows + r] * inverse_sum;
    }
  }

  // Query (or output) head of tile row r in rows `stride` floats apart.
  template <typename T>
  T* query_head(T* rows, size_t stride, const WorkItem& item, size_t r) const {
    return rows + (item.first_query + r / group_) * stride +
           (item.kv_head * group_ + r % group_) * shape_.head_dim;
  }

  // K and V of positions [first, first + n) as f32 rows, zeros past n.
  void unpack_kv_tile(SequenceId seq, size_t kv_head, size_t first, size_t n,
                      TileBuffers& b) const {
    const KvBlockPool& pool = cache_.pool();
    const KvCacheConfig& c = cache_.config();
    const auto table = cache_.block_table(seq);
    const size_t bs = pool.block_tokens(), hd = shape_.head_dim;
    for (size_t pos = first; pos < first + n;) {
      const size_t slot = pos % bs, run = std::min(bs - slot, first + n - pos);
      const KvBlockId block = table[pos / bs];
      const size_t row = (pos - first) * hd;
      kernels_.unpack[static_cast<size_t>(c.k_type)](
          pool.keys(block, layer_, kv_head) + slot * pool.k_vector_bytes(), run, hd, &b.keys[row]);
      kernels_.unpack[static_cast<size_t>(c.v_type)](
          pool.values(block, layer_, kv_head) + slot * pool.v_vector_bytes(), run, hd,
          &b.values[row]);
      pos += run;
    }
    std::fill(b.keys.begin() + static_cast<std::ptrdiff_t>(n * hd), b.keys.end(), 0.0f);
    std::fill(b.values.begin() + static_cast<std::ptrdiff_t>(n * hd), b.values.end(), 0.0f);
  }

  std::span<const QueryChunk> chunks_;
  size_t q_stride_, out_stride_;
  const PagedKvCache& cache_;
  size_t layer_;
  ref::AttentionShape shape_;
  size_t group_;
  Isa isa_;
  const prefill_detail::PrefillKernels& kernels_;
};

}  // namespace

void paged_attention_chunks(std::span<const QueryChunk> chunks, size_t q_stride, size_t out_stride,
                             const PagedKvCache& cache, size_t layer,
                             const ref::AttentionShape& shape, Isa isa) {
  for (const QueryChunk& chunk : chunks) {
    if (chunk.n_queries == 0)
      throw Error("prefill attention: a chunk of sequence " + std::to_string(chunk.seq) +
                  " has no queries");
    check_paged_attention(cache, chunk.seq, layer, chunk.first_pos + chunk.n_queries, shape);
    if (chunk.first_pos + chunk.n_queries > std::numeric_limits<int32_t>::max())
      throw Error("prefill attention: positions past 2^31 of sequence " +
                  std::to_string(chunk.seq));  // the tile kernels compare them as int32
  }
  const TiledPrefill prefill(chunks, q_stride, out_stride, cache, layer, shape, isa);
  const std::vector<WorkItem> items = prefill.work_items();
  const auto n_items = static_cast<int64_t>(items.size());
#pragma omp parallel
  {
    TileBuffers tile(prefill.max_rows(), shape.head_dim);
    AttentionPartial decode_scratch;
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < n_items; ++i)
      prefill.run(items[static_cast<size_t>(i)], tile, decode_scratch);
  }
}

}  // namespace pdbench
