// Prefill attention tile kernels in portable C++: the fallback for CPUs
// without AVX-512, and the second opinion the AVX-512 kernels are tested
// against.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/attention/prefill_kernels.h"
#include "engine/kernels/reference.h"

namespace pdbench::prefill_detail {

namespace {

template <KvType T>
void unpack(const std::byte* vectors, size_t n, size_t head_dim, float* out) {
  const size_t stride = kv_vector_bytes(T, head_dim);
  for (size_t t = 0; t < n; ++t) kv_decode(T, vectors + t * stride, out + t * head_dim, head_dim);
}

void attend(const QueryTile& tile, const float* keys, const float* values, size_t first) {
  const size_t rows = tile.rows, hd = tile.head_dim;
  for (size_t r = 0; r < rows; ++r) {
    const auto pos = static_cast<size_t>(tile.pos[r]);
    const auto row_first = static_cast<size_t>(tile.first[r]);
    if (pos < first || row_first >= first + kKvTile) continue;
    // Keys [from, seen) of the tile: causal, and inside the row's window.
    const size_t from = row_first > first ? row_first - first : 0;
    const size_t seen = std::min(kKvTile, pos - first + 1);
    float w[kKvTile];
    float tile_max = -std::numeric_limits<float>::infinity();
    for (size_t c = from; c < seen; ++c) {
      w[c] = 0.0f;
      for (size_t i = 0; i < hd; ++i) w[c] += tile.q[i * rows + r] * keys[c * hd + i];
      if (tile.softcap != 0) ref::softcap(&w[c], 1, tile.softcap);
      tile_max = std::max(tile_max, w[c]);
    }
    const float max = std::max(tile.max[r], tile_max);
    const float f = std::exp(tile.max[r] - max);  // rescales what came before
    tile.max[r] = max;
    tile.sum[r] *= f;
    for (size_t c = from; c < seen; ++c) {
      w[c] = std::exp(w[c] - max);
      tile.sum[r] += w[c];
    }
    for (size_t i = 0; i < hd; ++i) {
      float a = tile.acc[i * rows + r] * f;
      for (size_t c = from; c < seen; ++c) a += w[c] * values[c * hd + i];
      tile.acc[i * rows + r] = a;
    }
  }
}

}  // namespace

const PrefillKernels kScalarPrefillKernels = {
    {unpack<KvType::F32>, unpack<KvType::F16>, unpack<KvType::BF16>, unpack<KvType::Q8_0>},
    attend,
};

}  // namespace pdbench::prefill_detail
