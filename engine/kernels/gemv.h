#pragma once
// Decode matrix-vector products: y[r] = dot(row r of w, x) for one token, the
// memory-bound hot path of decoding. Kernels per weight format and ISA
// (selected_isa(), engine/util/isa.h, unless a call names one; gemv_isa.h
// lists them); the scalar kernels are the reference the SIMD ones are
// tested against, and run any format an ISA has none for.
//
// Use: prepare x once per matmul (into the weight format's activation type,
// weight_format.h: Q8_0, Q4_0 to Q5_1 and Q2_K to Q6_K quantize it into
// BlockQ8Act), then let
// each thread of the caller's parallel region compute its own rows:
//
//   GemvActivation act;                      // reused across decode steps
//   #pragma omp single
//   gemv_prepare(w.type, x, w.cols, act);
//   const RowRange mine = gemv_thread_rows(w.rows, omp_get_thread_num(), omp_get_num_threads());
//   gemv_rows(w, act, y, mine.begin, mine.end);
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/kernels/matrix_view.h"
#include "engine/kernels/weight_format.h"
#include "engine/util/aligned_vector.h"
#include "engine/util/isa.h"

namespace pdbench {

// x in the form the kernels of one weight format read: its activation type
// (weight_format.h).
struct GemvActivation {
  TensorType weight_type = TensorType::F32;  // the format it was prepared for
  size_t cols = 0;
  const float* f32 = nullptr;          // ActivationType::F32: x itself, which the caller keeps alive
  AlignedVector<std::byte> quantized;  // any other: x in blocks of that type
  // Regrouped rows (RowLayout::GroupedQuants): the Q8_32 blocks rearranged
  // for their kernels' vector loads (gemv_isa.h, GroupedActivation, says how).
  AlignedVector<int8_t> grouped_qs;
  AlignedVector<float> grouped_d;
  AlignedVector<int32_t> grouped_offsets;
  AlignedVector<float> grouped_sums;

  // `quantized` as its activation type's blocks (BlockQ8Act for Q8_32).
  template <typename Block>
  std::span<const Block> blocks() const {
    return {reinterpret_cast<const Block*>(quantized.data()), quantized.size() / sizeof(Block)};
  }
};

// Prepares x (cols long) for weights of `weight_type`; call once per matmul.
// Reuses act's storage, so a decode loop that keeps one act allocates once.
// Every ISA quantizes to the same bits.
void gemv_prepare(TensorType weight_type, const float* x, size_t cols, GemvActivation& act,
                  Isa isa = selected_isa());

// y[r] = dot(row r of w, x) for r in [row_begin, row_end); y is indexed by the
// absolute row, so threads writing disjoint ranges share one y. Throws Error
// when act was prepared for another format, width or ISA, or w's row layout
// has no kernel on `isa` (GemvMatrix makes the layout each ISA reads).
void gemv_rows(const MatrixView& w, const GemvActivation& act, float* y, int64_t row_begin,
               int64_t row_end, Isa isa = selected_isa());

// gemv_rows with regrouped rows prefetched into L1 far ahead or near as
// `far_l1` says (where the ISA's kernel has the choice), not as
// stream_prefetch chose: its probe. The sums are the same either way.
void gemv_rows_l1_ahead(const MatrixView& w, const GemvActivation& act, float* y, int64_t row_begin,
                        int64_t row_end, bool far_l1, Isa isa = selected_isa());

// The most activations the batch kernels read a weight once for: a tile of
// gemm_rows.
inline constexpr size_t kGemvMaxBatch = 8;

// Whether gemm_rows reads w's weights once per tile of kGemvMaxBatch tokens
// on `isa` (a layout with a batch kernel: the integer formats regrouped,
// which AVX-512 and AVX2 read, and the scalar reference of those rows);
// otherwise it makes one pass per activation, and a GEMM is the better tool
// for many tokens.
bool gemv_batches(const MatrixView& w, Isa isa = selected_isa());

// Any number of tokens' activations against the same rows, a prefill or a
// batched decode step on the format's own numerics (block scales kept,
// activations quantized per block, the same sums as gemv_rows):
// y[m * y_stride + r] = dot(row r of w, acts[m]) for r in [row_begin,
// row_end). Rows go in blocks of about kGemmBlockBytes, which stay in L2
// while every tile of tokens meets them, so each weight comes from memory
// once per call. The same checks as gemv_rows; rows outside the range and
// the gaps of a wider y_stride stay untouched.
// The later tiles read their rows from L2 in pairs or one at a time, as
// row_pairing (row_pairing.h) chose for this CPU and w's format; from
// kGemmStageMinTokens tokens on, the whole ones read a copy of the block
// staged for them where the ISA stages w's format (gemv_isa.h, StagedGemv).
inline constexpr size_t kGemmBlockBytes = 256 * 1024;
inline constexpr size_t kGemmMinBlockRows = 16;
// Staging a block takes a sixth to a third of a whole tile's time on it and
// saves 4-25% of each later one, by format and ISA.
inline constexpr size_t kGemmStageMinTokens = 6 * kGemvMaxBatch;
void gemm_rows(const MatrixView& w, std::span<const GemvActivation> acts, float* y, size_t y_stride,
               int64_t row_begin, int64_t row_end, Isa isa = selected_isa());

// Where gemm_rows reads its later tiles packed (the paired staged rows of
// gemv_isa.h), it packs every tile in each call; a projection split into
// pieces of rows, a call each, packs them once instead: into
// gemm_packed_tile_bytes (0: nothing to pack) for each tile of
// kGemvMaxBatch tokens, tile t at t times that, by gemm_pack_tiles (the
// first tile and a partial last are never packed), read by
// gemm_rows_packed with the same activations. Packed per call, 512 tokens
// through Llama-3.2-1B's FFN-down repacked all 8192 columns for each of
// the 16 pieces; packed once, pp512 ran 1.00-1.10x as fast (Q4_K_M) and
// 1.07-1.12x (Q6_K; pdbench run, 2 threads, AMD EPYC Zen 5, two rounds).
size_t gemm_packed_tile_bytes(const MatrixView& w, size_t n_tokens, Isa isa = selected_isa());
void gemm_pack_tiles(const MatrixView& w, std::span<const GemvActivation> acts, size_t tile_begin, size_t tile_end,
                     std::byte* packed, Isa isa = selected_isa());
void gemm_rows_packed(const MatrixView& w, std::span<const GemvActivation> acts, const std::byte* packed, float* y,
                      size_t y_stride, int64_t row_begin, int64_t row_end, Isa isa = selected_isa());

// Whether `isa`'s kernel for `type` can read rows from cache in pairs: the
// choice row_pairing makes. AVX-512's grouped kernels can.
bool can_pair_rows(TensorType type, Isa isa = selected_isa());

// gemm_rows with the rows from cache in pairs or not as `pairs` says (where
// can_pair_rows), not as row_pairing chose: its probe, and the tests of both.
// The sums are the same either way. `packed`, where given, holds the tiles
// gemm_pack_tiles packed for these activations (gemm_rows_packed's).
void gemm_rows_paired(const MatrixView& w, std::span<const GemvActivation> acts, float* y, size_t y_stride,
                      int64_t row_begin, int64_t row_end, bool pairs, Isa isa = selected_isa(),
                      const std::byte* packed = nullptr);

struct RowRange {
  int64_t begin;
  int64_t end;
};

// Rows [begin, end) of `rows` that thread `thread` of `n_threads` computes:
// contiguous (one sequential stream per thread, which the hardware
// prefetcher follows) and balanced to within one row.
RowRange gemv_thread_rows(int64_t rows, int thread, int n_threads);

// Sum of n floats, each read once with the ISA's widest loads and as many
// accumulators as the gemv kernels: the memory-read roofline their bytes/s
// are measured against (micro-benchmarks, sysinfo).
float read_sum(const float* data, size_t n, Isa isa = selected_isa());

// A matrix product with a parallel region of its own: prepares x and
// computes every row in one OpenMP region. For a matrix used alone, as the
// LM head of a single token is, and for tests and benchmarks.
void gemv(const MatrixView& w, const float* x, float* y, Isa isa = selected_isa());

}  // namespace pdbench
