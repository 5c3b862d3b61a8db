#include "engine/kernels/gemv.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "engine/kernels/gemv_isa.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/grouped_rows.h"
#include "engine/kernels/row_pairing.h"
#include "engine/kernels/stream_prefetch.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

const gemv_detail::GemvKernels& kernels_of(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return gemv_detail::kAvx512Kernels;
    case Isa::Avx2Vnni:
      return gemv_detail::kAvx2VnniKernels;
    case Isa::Avx2:
      return gemv_detail::kAvx2Kernels;
    case Isa::Scalar:
      break;
  }
  return gemv_detail::kScalarKernels;
}

}  // namespace

namespace gemv_detail {

const FormatGemv& kernels_for(Isa isa, TensorType type) {
  for (Isa own : {isa, Isa::Scalar}) {
    const GemvKernels& k = kernels_of(own);
    for (size_t i = 0; i < k.n_formats; ++i)
      if (k.formats[i].type == type) return k.formats[i];
  }
  throw Error("gemv: no kernel for " + std::string(traits(type).name));
}

}  // namespace gemv_detail

namespace {

using gemv_detail::kernels_for;

// The ISA's quantizer for an activation type, or the scalar one.
gemv_detail::QuantizeActivation quantizer(Isa isa, ActivationType type) {
  const auto t = static_cast<size_t>(type);
  const gemv_detail::QuantizeActivation own = kernels_of(isa).quantize[t];
  return own != nullptr ? own : gemv_detail::kScalarKernels.quantize[t];
}

// The sum of half h of a block's quants: the lanes of 16 (Q2_K, Q3_K).
int32_t half_block_sum(const BlockQ8Act& block, size_t h) {
  int32_t first = 0;
  for (size_t j = 0; j < 16; ++j) first += block.qs[j];
  return h == 0 ? first : block.sum - first;
}

// act's Q8_32 blocks rearranged as gemv_detail::GroupedActivation describes:
// lanes of `lane` elements (32 or 16) in groups of 16, zero-padded, 4 bytes
// of each lane per chunk, a row's last group's chunks packed. Only the
// padding is cleared: prefill prepares every token for every projection,
// and zeroing all of it, with each lane's 32-byte sum recounted, took most
// of the regrouping's instructions.
void prepare_grouped(GemvActivation& act, size_t lane, int32_t unsigned_shift) {
  constexpr size_t kGroup = 16;
  const std::span<const BlockQ8Act> blocks = act.blocks<BlockQ8Act>();
  const size_t n_lanes = act.cols / lane;
  const size_t padded = (n_lanes + kGroup - 1) / kGroup * kGroup;
  act.grouped_qs.resize(lane * padded);
  act.grouped_d.resize(padded);
  act.grouped_offsets.resize(padded);
  act.grouped_sums.resize(padded);
  std::fill(act.grouped_qs.begin() + static_cast<std::ptrdiff_t>(lane * n_lanes), act.grouped_qs.end(), int8_t{0});
  for (size_t l = n_lanes; l < padded; ++l) {
    act.grouped_d[l] = act.grouped_sums[l] = 0.0f;
    act.grouped_offsets[l] = 0;
  }
  for (size_t first = 0; first < n_lanes; first += kGroup) {
    const size_t count = std::min(kGroup, n_lanes - first);
    int8_t* chunks = act.grouped_qs.data() + lane * first;
    for (size_t slot = 0; slot < count; ++slot) {
      const size_t l = first + slot;
      const BlockQ8Act& block = blocks[l * lane / 32];
      const int8_t* qs = block.qs + l * lane % 32;
      for (size_t k = 0; k < lane / 4; ++k) std::memcpy(chunks + 4 * count * k + 4 * slot, qs + 4 * k, 4);
      const int32_t sum = lane == 32 ? block.sum : half_block_sum(block, l % 2);
      act.grouped_d[l] = block.d;
      act.grouped_offsets[l] = -unsigned_shift * sum;
      act.grouped_sums[l] = block.d * static_cast<float>(sum);
    }
  }
}

// The scalar reference reads act's blocks; the SIMD kernels their rearranged copy.
// (An ISA without grouped kernels of its own for a format runs the scalar ones.)
gemv_detail::GroupedActivation grouped_activation(Isa isa, const GemvActivation& act) {
  const bool simd = &kernels_for(isa, act.weight_type) != &kernels_for(Isa::Scalar, act.weight_type);
  if (simd && act.grouped_d.empty() && !act.quantized.empty())
    throw Error("gemv_rows: activation not prepared for regrouped rows on " + std::string(isa_name(isa)));
  return {act.blocks<BlockQ8Act>().data(), act.grouped_qs.data(), act.grouped_d.data(), act.grouped_offsets.data(),
          act.grouped_sums.data()};
}

// The kernel of w's type for RowLayout::GroupedQuants rows, or null.
gemv_detail::GroupedGemv grouped_kernel_or_null(Isa isa, const MatrixView& w) {
  return w.layout == RowLayout::GroupedQuants ? kernels_for(isa, w.type).grouped_rows : nullptr;
}

// How rows come from memory: prefetched into L1 far or near ahead.
gemv_detail::RowRead streamed(bool far_l1) {
  return far_l1 ? gemv_detail::RowRead::StreamedFarL1 : gemv_detail::RowRead::Streamed;
}

gemv_detail::GroupedGemv grouped_kernel(Isa isa, const MatrixView& w) {
  const gemv_detail::GroupedGemv kernel = grouped_kernel_or_null(isa, w);
  if (kernel == nullptr)
    throw Error("gemv_rows: no " + std::string(isa_name(isa)) + " kernel for " + std::string(traits(w.type).name) +
                " rows with grouped quants");
  return kernel;
}

// An ISA without a kernel for a format's rows as stored reads them regrouped.
gemv_detail::Gemv file_rows_kernel(Isa isa, const MatrixView& w) {
  const gemv_detail::Gemv kernel = kernels_for(isa, w.type).file_rows;
  if (kernel == nullptr)
    throw Error("gemv_rows: no " + std::string(isa_name(isa)) + " kernel for " + std::string(traits(w.type).name) +
                " rows as stored in the file (GemvMatrix regroups them)");
  return kernel;
}

void check_activation(const MatrixView& w, const GemvActivation& act) {
  if (act.weight_type != w.type || act.cols != static_cast<size_t>(w.cols))
    throw Error("gemv_rows: activation prepared for " + std::string(traits(act.weight_type).name) + " x " +
                std::to_string(act.cols) + ", weights are " + std::string(traits(w.type).name) + " x " +
                std::to_string(w.cols));
}

}  // namespace

void gemv_prepare(TensorType weight_type, const float* x, size_t cols, GemvActivation& act, Isa isa) {
  const ActivationType type = weight_format(weight_type).activation;
  const ActivationTypeTraits& blocks = activation_traits(type);
  if (cols % blocks.block_size != 0)
    throw Error("gemv_prepare: " + std::to_string(cols) + " columns is not a multiple of " +
                std::to_string(blocks.block_size));
  act.weight_type = weight_type;
  act.cols = cols;
  act.f32 = nullptr;
  act.grouped_d.clear();  // what grouped_activation checks
  if (type == ActivationType::F32) {
    act.quantized.clear();
    act.f32 = x;
    return;
  }
  // Resized, not cleared first: the quantizer writes every byte, and the
  // same width comes back every token.
  act.quantized.resize(cols / blocks.block_size * blocks.block_bytes);
  quantizer(isa, type)(x, act.quantized.data(), cols / blocks.block_size);
  if (gemv_layout(weight_type, isa) == RowLayout::GroupedQuants)
    prepare_grouped(act, grouped_lane_elements(weight_type), kernels_for(isa, weight_type).grouped_shift);
}

void gemv_rows(const MatrixView& w, const GemvActivation& act, float* y, int64_t row_begin,
               int64_t row_end, Isa isa) {
  gemv_rows_l1_ahead(w, act, y, row_begin, row_end, stream_prefetch(isa).far_l1, isa);
}

void gemv_rows_l1_ahead(const MatrixView& w, const GemvActivation& act, float* y, int64_t row_begin,
                        int64_t row_end, bool far_l1, Isa isa) {
  check_activation(w, act);
  if (row_begin >= row_end) return;
  const std::byte* first = w.row(row_begin);
  const size_t stride = w.row_stride();
  const auto cols = static_cast<size_t>(w.cols);
  const auto n = static_cast<size_t>(row_end - row_begin);
  float* out = y + row_begin;
  if (w.layout == RowLayout::GroupedQuants) {
    const gemv_detail::GroupedActivation x = grouped_activation(isa, act);
    return grouped_kernel(isa, w)(first, stride, cols, &x, 1, out, 0, n, streamed(far_l1));
  }
  const void* x = act.f32 != nullptr ? static_cast<const void*>(act.f32) : act.quantized.data();
  file_rows_kernel(isa, w)(first, stride, cols, x, out, n);
}

bool gemv_batches(const MatrixView& w, Isa isa) { return grouped_kernel_or_null(isa, w) != nullptr; }

bool can_pair_rows(TensorType type, Isa isa) {
  return gemv_layout(type, isa) == RowLayout::GroupedQuants && kernels_for(isa, type).pairs_rows;
}

namespace {

// Whether gemm_rows reads w's rows from cache in pairs for n_tokens: up to
// a tile of tokens every row comes from memory, nothing to choose.
bool pairs_rows(const MatrixView& w, size_t n_tokens, Isa isa) {
  return n_tokens > kGemvMaxBatch && w.layout == RowLayout::GroupedQuants && can_pair_rows(w.type, isa) &&
         row_pairing(isa, w.type).pairs;
}

// Whether a call of n_tokens stages w's blocks of rows (StagedGemv).
bool stages_rows(const MatrixView& w, size_t n_tokens, Isa isa) {
  return grouped_kernel_or_null(isa, w) != nullptr && kernels_for(isa, w.type).staged != nullptr &&
         n_tokens >= kGemmStageMinTokens;
}

// Bytes of each whole tile after the first packed, where paired staged
// rows read their tiles packed; 0 where they do not.
size_t packed_tile_bytes(const MatrixView& w, size_t n_tokens, bool pairs, Isa isa) {
  const gemv_detail::StagedGemv* staged = kernels_for(isa, w.type).staged;
  const bool packs = stages_rows(w, n_tokens, isa) && pairs && staged->paired_tile != nullptr;
  return packs ? staged->packed_bytes(static_cast<size_t>(w.cols)) : 0;
}

// The tiles of [tile_begin, tile_end) that get packed: not the first (read
// from memory) nor a partial last.
RowRange packed_tiles(size_t n_tokens, size_t tile_begin, size_t tile_end) {
  return {static_cast<int64_t>(std::max<size_t>(tile_begin, 1)),
          static_cast<int64_t>(std::min(tile_end, n_tokens / kGemvMaxBatch))};
}

}  // namespace

size_t gemm_packed_tile_bytes(const MatrixView& w, size_t n_tokens, Isa isa) {
  return packed_tile_bytes(w, n_tokens, pairs_rows(w, n_tokens, isa), isa);
}

void gemm_pack_tiles(const MatrixView& w, std::span<const GemvActivation> acts, size_t tile_begin, size_t tile_end,
                     std::byte* packed, Isa isa) {
  const size_t tile_bytes = gemm_packed_tile_bytes(w, acts.size(), isa);
  if (tile_bytes == 0) return;
  const RowRange tiles = packed_tiles(acts.size(), tile_begin, tile_end);
  for (auto t = static_cast<size_t>(tiles.begin); t < static_cast<size_t>(tiles.end); ++t) {
    gemv_detail::GroupedActivation xs[kGemvMaxBatch];
    for (size_t m = 0; m < kGemvMaxBatch; ++m) {
      check_activation(w, acts[t * kGemvMaxBatch + m]);
      xs[m] = grouped_activation(isa, acts[t * kGemvMaxBatch + m]);
    }
    kernels_for(isa, w.type).staged->pack(xs, static_cast<size_t>(w.cols), packed + t * tile_bytes);
  }
}

void gemm_rows(const MatrixView& w, std::span<const GemvActivation> acts, float* y, size_t y_stride,
               int64_t row_begin, int64_t row_end, Isa isa) {
  gemm_rows_paired(w, acts, y, y_stride, row_begin, row_end, pairs_rows(w, acts.size(), isa), isa);
}

void gemm_rows_packed(const MatrixView& w, std::span<const GemvActivation> acts, const std::byte* packed, float* y,
                      size_t y_stride, int64_t row_begin, int64_t row_end, Isa isa) {
  gemm_rows_paired(w, acts, y, y_stride, row_begin, row_end, pairs_rows(w, acts.size(), isa), isa, packed);
}

void gemm_rows_paired(const MatrixView& w, std::span<const GemvActivation> acts, float* y, size_t y_stride,
                      int64_t row_begin, int64_t row_end, bool pairs, Isa isa, const std::byte* packed) {
  for (const GemvActivation& act : acts) check_activation(w, act);
  if (row_begin >= row_end || acts.empty()) return;
  const size_t stride = w.row_stride();
  const auto cols = static_cast<size_t>(w.cols);
  const size_t block_rows = std::max<size_t>(kGemmMinBlockRows, kGemmBlockBytes / stride);
  const gemv_detail::GroupedGemv batch_kernel = grouped_kernel_or_null(isa, w);
  const auto cached = pairs ? gemv_detail::RowRead::CachedPairs : gemv_detail::RowRead::Cached;
  // On the stack for a decode step's few tokens: this runs per matrix, per
  // thread, per layer.
  gemv_detail::GroupedActivation few[kGemvMaxBatch];
  std::vector<gemv_detail::GroupedActivation> many;
  if (batch_kernel != nullptr && acts.size() > kGemvMaxBatch) many.resize(acts.size());
  gemv_detail::GroupedActivation* xs = acts.size() > kGemvMaxBatch ? many.data() : few;
  if (batch_kernel != nullptr)
    for (size_t m = 0; m < acts.size(); ++m) xs[m] = grouped_activation(isa, acts[m]);
  const gemv_detail::StagedGemv* staged = kernels_for(isa, w.type).staged;
  const bool stage = stages_rows(w, acts.size(), isa);
  const size_t staged_stride = stage ? staged->stride(cols) : 0;
  thread_local AlignedVector<std::byte> staging;  // a thread's own block
  if (stage && staging.size() < block_rows * staged_stride) staging.resize(block_rows * staged_stride);
  // Paired staged rows read each whole tile after the first packed: packed
  // here for every block of rows, unless the caller packed them once for
  // all its calls (gemm_rows_packed).
  const size_t packed_bytes = packed_tile_bytes(w, acts.size(), pairs, isa);
  const bool packs = packed_bytes != 0;
  thread_local AlignedVector<std::byte> own_packing;
  if (packs && packed == nullptr) {
    const RowRange tiles = packed_tiles(acts.size(), 0, acts.size() / kGemvMaxBatch);
    if (own_packing.size() < static_cast<size_t>(tiles.end) * packed_bytes)
      own_packing.resize(static_cast<size_t>(tiles.end) * packed_bytes);
    for (auto t = static_cast<size_t>(tiles.begin); t < static_cast<size_t>(tiles.end); ++t)
      staged->pack(xs + t * kGemvMaxBatch, cols, own_packing.data() + t * packed_bytes);
    packed = own_packing.data();
  }
  for (auto r0 = static_cast<size_t>(row_begin); r0 < static_cast<size_t>(row_end); r0 += block_rows) {
    const size_t n_rows = std::min(block_rows, static_cast<size_t>(row_end) - r0);
    const std::byte* rows = w.row(static_cast<int64_t>(r0));
    if (batch_kernel == nullptr) {
      for (size_t m = 0; m < acts.size(); ++m)
        gemv_rows(w, acts[m], y + m * y_stride, static_cast<int64_t>(r0), static_cast<int64_t>(r0 + n_rows), isa);
      continue;
    }
    // The first tile of tokens brings the block from memory; the rest find
    // it in L2, the whole ones staged where the format stages.
    for (size_t m = 0; m < acts.size(); m += kGemvMaxBatch) {
      const size_t n = std::min(kGemvMaxBatch, acts.size() - m);
      if (stage && m == kGemvMaxBatch) staged->stage(rows, stride, cols, n_rows, staging.data());
      if (packs && m > 0 && n == kGemvMaxBatch)
        staged->paired_tile(staging.data(), staged_stride, cols, packed + m / kGemvMaxBatch * packed_bytes,
                            y + m * y_stride + r0, y_stride, n_rows);
      else if (stage && m > 0 && n == kGemvMaxBatch)
        staged->tile(staging.data(), staged_stride, cols, xs + m, n, y + m * y_stride + r0, y_stride, n_rows, cached);
      else
        batch_kernel(rows, stride, cols, xs + m, n, y + m * y_stride + r0, y_stride, n_rows,
                     m == 0 ? streamed(stream_prefetch(isa).far_l1) : cached);
    }
  }
}

RowRange gemv_thread_rows(int64_t rows, int thread, int n_threads) {
  return {rows * thread / n_threads, rows * (thread + 1) / n_threads};
}

float read_sum(const float* data, size_t n, Isa isa) { return kernels_of(isa).read_sum(data, n); }

void gemv(const MatrixView& w, const float* x, float* y, Isa isa) {
  GemvActivation act;
  gemv_prepare(w.type, x, static_cast<size_t>(w.cols), act, isa);
#pragma omp parallel
  {
    const RowRange mine = gemv_thread_rows(w.rows, omp_get_thread_num(), omp_get_num_threads());
    gemv_rows(w, act, y, mine.begin, mine.end, isa);
  }
}

}  // namespace pdbench
