#pragma once
// The AVX-512 grouped-rows kernel, for the files built with the AVX-512
// flags (gemv_avx512*.cpp: CMakeLists.txt): a format's struct (its lanes,
// scales and chunks) goes in, the kernel for 1..kGemvMaxBatch activations
// comes out. Only those files may include it
// (gemv_isa.h); every instantiation takes a format struct of an unnamed
// namespace, so none is shared with another file.
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VNNI__)
#error "gemv_avx512_grouped.h is for the files built with the AVX-512 flags (engine/kernels/CMakeLists.txt)"
#endif

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on their own
// _mm512_undefined_* (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/kernels/gemv_isa.h"
#include "engine/kernels/staged_scales.h"

namespace pdbench::gemv_detail {
// RowLayout::GroupedQuants rows (grouped_rows.h) against M activations at
// once. Per group of 16 lanes each 64-byte chunk of weights is loaded once,
// made unsigned (vpdpbusd multiplies u8 by s8) and meets every activation
// in vpdpbusd, whose int32 lanes are the group's 16 lanes; the lanes start
// at the activation's offsets, which take the unsigned shift back out
// (GroupedActivation). Then one convert and one multiply-add by the 16
// combined scales per activation and group (and one more by the mins for
// the formats with one: Q4_1, Q5_1, Q2_K, Q4_K, Q5_K). So a batch of M costs M vpdpbusd per 64 quantized weights and
// little else per token, and one token is as cheap to compute as a byte
// is to read.
//
// A format says where its quants start after the headers, its lanes'
// scales (and mins) for a group, and how its chunks meet the activation:
// add_group<M, R> decodes each chunk of R rows' groups and hands them to
// meet, which loads each activation's chunk once for the R rows.
struct Scales {
  __m512 w;
  __m512 min;  // times the activation's lane sums, subtracted
};
// How far ahead of a group grouped_span prefetches the weights it reads
// next: `near` into L1, `far` into L2; and how much. A whole row's groups
// each take `share` bytes of it, headers included; a tile's (share 0), its
// own quants.
struct PrefetchDistances {
  size_t near;
  size_t far;
  size_t share;
};

// Where a group's chunks are for add_group, and how many a load takes. A
// whole group's 16 lanes take a chunk a load (64 bytes, the activation's
// aligned). A row's last group of count < 16 lanes has chunks of 4 count
// bytes, packed in the weights and the activation alike, so one load takes
// kPerLoad of them, the first count kPerLoad int32 lanes: lane j of chunk
// k + i in int32 lane count i + j. Unpacked, a last group of 2 lanes (576
// columns: 16 + 2 lanes of Q8_0) cost as much as a whole one and held
// SmolLM2's matrices to half Llama's GFLOP/s.
struct WholeGroup {
  static constexpr size_t kPerLoad = 1;
  static constexpr __mmask16 lanes = 0xffff;
  static size_t offset(size_t k) { return 64 * k; }
  // Chunk k of an activation's group at qs (aligned).
  static __m512i activation(const int8_t* qs, size_t k) { return _mm512_load_si512(qs + 64 * k); }
};
template <size_t kChunksPerLoad>
struct LastGroup {
  static constexpr size_t kPerLoad = kChunksPerLoad;
  __mmask16 lanes;
  size_t count;
  size_t offset(size_t k) const { return 4 * count * k; }
  __mmask16 one_chunk() const { return static_cast<__mmask16>((1u << count) - 1); }
  __m512i activation(const int8_t* qs, size_t k) const { return _mm512_maskz_loadu_epi32(lanes, qs + offset(k)); }
};

// M activations at one group of lanes: token m's chunks (qs), its lanes'
// scales (d), sums and offsets (GroupedActivation). From each token's own
// arrays, at group g (the lane it starts at):
template <size_t kLane>
struct TokenGroup {
  const GroupedActivation* xs;
  size_t g;
  const int8_t* qs(size_t m) const { return xs[m].qs + kLane * g; }
  const float* d(size_t m) const { return xs[m].d + g; }
  const float* sums(size_t m) const { return xs[m].sums + g; }
  const int32_t* offsets(size_t m) const { return xs[m].offsets + g; }
};
template <size_t kLane>
struct TokenActivations {
  const GroupedActivation* xs;
  TokenGroup<kLane> at(size_t g) const { return {xs, g}; }
};
// Or packed group after group (pack_activations): M tokens' chunks, then
// their scales, sums and offsets, each at a constant from one pointer. Four
// tokens' arrays apart take 16 pointers, more than the registers left:
// GCC 12 reloaded them from the stack and spilled vectors beside them in
// every group. Packed, 512 tokens through Llama-3.2-1B's matrices on one
// thread took 0.92x the time for Q6_K, 0.92x (FFN-down) and 0.97x
// (gate/up) for Q4_K, Q5_K level (BM_gemm_rows, packing included, the
// median of five alternations' ratios of the min of 3, AMD EPYC Zen 5;
// the sums are the same bits, so the perplexity of the stories260K-wide
// files is unchanged to its last digit). Not measured on an Intel Xeon,
// where pairs, and so packing, run only if row_pairing.h measures pairs
// faster.
template <size_t kLane, size_t M>
struct PackedGroup {
  static constexpr size_t kQs = 16 * kLane, kBytes = M * (kQs + 3 * 64);
  const std::byte* group;
  const int8_t* qs(size_t m) const { return reinterpret_cast<const int8_t*>(group + kQs * m); }
  const float* d(size_t m) const { return reinterpret_cast<const float*>(group + M * kQs + 64 * m); }
  const float* sums(size_t m) const { return reinterpret_cast<const float*>(group + M * (kQs + 64) + 64 * m); }
  const int32_t* offsets(size_t m) const { return reinterpret_cast<const int32_t*>(group + M * (kQs + 128) + 64 * m); }
};
template <size_t kLane, size_t M>
struct PackedActivations {
  const std::byte* packed;
  PackedGroup<kLane, M> at(size_t g) const { return {packed + g / 16 * PackedGroup<kLane, M>::kBytes}; }
};
// xs[0..M) packed for PackedActivations, n_lanes of each (padded to a group).
template <size_t kLane, size_t M>
void pack_activations(const GroupedActivation* xs, size_t n_lanes, std::byte* out) {
  using Group = PackedGroup<kLane, M>;
  for (size_t g = 0; g < n_lanes; g += 16, out += Group::kBytes)
    for (size_t m = 0; m < M; ++m) {
      std::memcpy(out + Group::kQs * m, xs[m].qs + kLane * g, Group::kQs);
      std::memcpy(out + M * Group::kQs + 64 * m, xs[m].d + g, 64);
      std::memcpy(out + M * (Group::kQs + 64) + 64 * m, xs[m].sums + g, 64);
      std::memcpy(out + M * (Group::kQs + 128) + 64 * m, xs[m].offsets + g, 64);
    }
}

// The weights' chunk at p (and the next kPerLoad - 1 of a last group).
// Against M > 1 activations, in a register: GCC 12 otherwise folds a whole
// group's unmasked load into each of its uses (a nibble's two, a fifth
// bit's eight), loading it again for each, which cost Q5_0's and Q5_K's
// prefill 5% (BM_gemm_rows, Llama-3.2-1B gate/up, 512 tokens, 1 thread,
// AMD EPYC Zen 4). Against one, folded: pinned, decode ran 7-15% slower
// (Q4_0, Q4_1, Q5_0, Q5_1, 1 token).
template <size_t M, typename Group>
[[gnu::always_inline]] inline __m512i load_chunks(const Group& group, const std::byte* p) {
  __m512i w = _mm512_maskz_loadu_epi32(group.lanes, p);
  if constexpr (M > 1) asm("" : "+v"(w));
  return w;
}

// Row r's chunks w[r] (chunk k, and the next kPerLoad - 1 of a last group)
// into its dot products with every activation's.
template <size_t M, size_t R, typename Group, typename Xs>
[[gnu::always_inline]] inline void meet(const __m512i (&w)[R], const Xs& xs, const Group& group, size_t k,
                                        __m512i (*dot)[M]) {
#pragma GCC unroll 8
  for (size_t m = 0; m < M; ++m) {
    __m512i x = group.activation(xs.qs(m), k);
    // In a register: GCC 12 otherwise folds the load into every row's
    // vpdpbusd, loading it R times.
    if constexpr (R > 1) asm("" : "+v"(x));
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) dot[r][m] = _mm512_dpbusd_epi32(dot[r][m], w[r], x);
  }
}

// A last group of count lanes packed in int32 lanes: lane[count][i] = i %
// count, the group's lane there, by which its scales spread to the int32
// lanes that hold their dot products; chunk[count][i] = i / count, which
// of a load's chunks is there.
struct FoldedLanes {
  alignas(64) int32_t lane[17][16];
  alignas(64) int32_t chunk[17][16];
};
constexpr FoldedLanes folded_lanes() {
  FoldedLanes f{};
  for (int count = 1; count <= 16; ++count)
    for (int i = 0; i < 16; ++i) {
      f.lane[count][i] = i % count;
      f.chunk[count][i] = i / count;
    }
  return f;
}
inline constexpr FoldedLanes kFoldedLanes = folded_lanes();

// A group's 16 scales spread to the int32 lanes of its chunks' dot
// products: a last group's packed ones by kFoldedLanes.
template <typename Group>
[[gnu::always_inline]] inline __m512 spread(const Group& chunks, __m512 scales) {
  if constexpr (Group::kPerLoad == 1) return scales;
  else return _mm512_permutexvar_ps(_mm512_load_si512(kFoldedLanes.lane[chunks.count]), scales);
}

// One group of R rows (16 lanes, or a row's last) into acc[r][0..M):
// each lane's integer dot product, then one convert and multiply-add by
// its scales (and the mins times the activation's lane sums).
template <typename Format, size_t M, size_t R, typename Group, typename Xs>
[[gnu::always_inline]] inline void add_scaled_group(const std::byte* row, size_t stride, const std::byte* const* group,
                                                    size_t g, __mmask16 slots, const Group& chunks, const Xs& xs,
                                                    __m512 (*acc)[M]) {
  Scales w[R];
#pragma GCC unroll 4
  for (size_t r = 0; r < R; ++r) w[r] = Format::scales(row + r * stride, g, slots);
  __m512i dot[R][M];
#pragma GCC unroll 8
  for (size_t m = 0; m < M; ++m) {
    // Unshifted formats' offsets are zero: a load saved per activation and
    // group. A last group's lanes past its own are zero, so the offsets
    // land in its first chunk's int32 lanes only.
    const __m512i start = Format::kShift == 0 ? _mm512_setzero_si512() : _mm512_load_si512(xs.offsets(m));
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) dot[r][m] = start;
  }
  // Unrolled, or GCC 12 copies every dot[m] between registers per chunk.
  Format::template add_group<M, R>(group, chunks, xs, dot);
#pragma GCC unroll 8
  for (size_t m = 0; m < M; ++m) {
    const __m512 xd = _mm512_load_ps(xs.d(m));
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) {
      acc[r][m] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r][m]), spread(chunks, _mm512_mul_ps(w[r].w, xd)), acc[r][m]);
      if constexpr (Format::kMin) acc[r][m] = _mm512_fnmadd_ps(w[r].min, _mm512_load_ps(xs.sums(m)), acc[r][m]);
    }
  }
}

// A row's last group, of count < 16 lanes, kPerLoad chunks a load.
template <typename Format, size_t M, size_t R, size_t kPerLoad, typename Xs>
[[gnu::always_inline]] inline void add_last_group_by(const std::byte* row, size_t stride, const std::byte* const* group,
                                                     size_t g, size_t count, const Xs& xs, __m512 (*acc)[M]) {
  const LastGroup<kPerLoad> chunks{static_cast<__mmask16>((1u << (count * kPerLoad)) - 1), count};
  add_scaled_group<Format, M, R>(row, stride, group, g, static_cast<__mmask16>((1u << count) - 1), chunks, xs, acc);
}

// A row's last group: as many of its chunks a load as fit 16 int32 lanes,
// up to Format::kMostPerLoad (a power of two; 0 for the formats whose rows
// are whole groups).
template <typename Format, size_t M, size_t R, typename Xs>
[[gnu::always_inline]] inline void add_last_group(const std::byte* row, size_t stride, const std::byte* const* group,
                                                  size_t g, size_t count, const Xs& xs, __m512 (*acc)[M]) {
  const size_t fit = 16 / count;
  if constexpr (Format::kMostPerLoad >= 8)
    if (fit >= 8) return add_last_group_by<Format, M, R, 8>(row, stride, group, g, count, xs, acc);
  if constexpr (Format::kMostPerLoad >= 4)
    if (fit >= 4) return add_last_group_by<Format, M, R, 4>(row, stride, group, g, count, xs, acc);
  if constexpr (Format::kMostPerLoad >= 2)
    if (fit >= 2) return add_last_group_by<Format, M, R, 2>(row, stride, group, g, count, xs, acc);
  if constexpr (Format::kMostPerLoad >= 1) add_last_group_by<Format, M, R, 1>(row, stride, group, g, count, xs, acc);
}

// The lines `ahead` of `bytes` of weights from `from`. Not a lambda: GCC 12
// left that a call per group, which cost decode 13-50% (Q8_0, BM_gemm_rows,
// 1 token).
[[gnu::always_inline]] inline void prefetch_ahead(const std::byte* from, size_t bytes, PrefetchDistances ahead) {
  for (size_t line = 0; line < bytes; line += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(from) + line + ahead.near, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(from) + line + ahead.far, _MM_HINT_T1);
  }
}

// Adds lane groups [g_begin, g_end) of R rows, `stride` bytes apart, into
// acc_out[r][0..M). Inlined: called per row, a call cost decode 10-16%.
template <typename Format, size_t M, size_t R, bool Prefetch, typename Activations>
[[gnu::always_inline]] inline void grouped_span(const std::byte* row, size_t stride, size_t n_lanes, size_t g_begin, size_t g_end,
                  const Activations& xs, __m512 (*acc_out)[M], PrefetchDistances ahead) {
  const std::byte* group[R];
  __m512 acc[R][M];
#pragma GCC unroll 4
  for (size_t r = 0; r < R; ++r) {
    group[r] = Format::quants(row + r * stride, n_lanes) + Format::kLaneBytes * g_begin;
#pragma GCC unroll 8
    for (size_t m = 0; m < M; ++m) acc[r][m] = acc_out[r][m];
  }
  const size_t whole_end = g_begin + (g_end - g_begin) / 16 * 16;
  const std::byte* fetch = ahead.share != 0 ? row : group[0];
  const size_t share = ahead.share != 0 ? ahead.share : 16 * Format::kLaneBytes;
  // A tile's groups prefetch their quants only: the row's first tile, its
  // header. Without, FFN-down (8192 columns) at 8 tokens, which is tiled,
  // ran 1.4x gate/up's time for the same bytes (BM_gemm_rows).
  if constexpr (Prefetch)
    if (ahead.share == 0 && g_begin == 0)
      prefetch_ahead(row, static_cast<size_t>(Format::quants(row, n_lanes) - row), ahead);
  for (size_t g = g_begin; g < whole_end; g += 16) {
    if constexpr (Prefetch) prefetch_ahead(fetch, share, ahead);
    fetch += share;
    add_scaled_group<Format, M, R>(row, stride, group, g, 0xffff, WholeGroup{}, xs.at(g), acc);
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) group[r] += Format::kLaneBytes * 16;
  }
  if (whole_end < g_end) {
    if constexpr (Prefetch)
      prefetch_ahead(fetch, ahead.share != 0 ? share : (g_end - whole_end) * Format::kLaneBytes, ahead);
    add_last_group<Format, M, R>(row, stride, group, whole_end, g_end - whole_end, xs.at(whole_end), acc);
  }
#pragma GCC unroll 4
  for (size_t r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (size_t m = 0; m < M; ++m) acc_out[r][m] = acc[r][m];
}

// Rows go in strips of kStrip; a strip meets the activations a tile of
// columns at a time, kTileBytes of all M activations' quants, so they stay in
// L1 while the strip's weights (kStrip rows, in L2 between tiles) stream
// past. Untiled, 8 activations of Llama-3.2-1B's FFN-down width (8192, 64
// KiB of quants) spilled to L2 and held that matrix to 12.6 GB/s against
// 21 for the others (Q8_0, BM_gemm_rows, batch 8, 2 threads). Prefetch
// only when the rows come from memory (decode, and the first tile of
// tokens gemm_rows runs on a block of rows), not from L2, where the
// prefetches only take load slots: 512 tokens ran 430-490 GFLOP/s with
// them and 550-625 without (Llama-3.2-1B Q8_0 shapes, BM_gemm_rows, 2
// threads, AMD EPYC Zen 5). Summing 16 rows' lanes at once by shuffles
// instead of one horizontal sum each measured slower (450-475).
//
// From L2 (RowRead::CachedPairs), rows go two at a time against up to
// kPairTokens activations: each activation chunk loaded then feeds two
// rows' vpdpbusd. With one row per activation load, Zen 4 (one 64-byte load
// a cycle) runs out of loads before vpdpbusd: 512 tokens through
// Llama-3.2-1B's gate/up on one thread (BM_gemm_rows, AMD EPYC Zen 4, two
// alternations) took Q8_0 from 79.5-79.8 to 66.6-67.0 ms, Q6_K from 100.4-
// 100.5 to 83.9-84.9, Q4_0 from 76.2-76.4 to 66.0-71.8, IQ4_NL from
// 76.1-79.2 to 69.1-70.6 and IQ4_XS from 81.3-82.5 to 75.3-77.4 (Q4_1 no
// different). Q4_K, Q5_0, Q5_1 and Q2_K paired only once their weight
// chunks stayed in registers (load_chunks) and their add_group was always
// inlined: Q4_K from 75.4-77.5 to 68.5-69.2 ms, Q5_0 from 74.7-76.8 to
// 62.7-63.1, Q5_1 from 76.2-76.6 to 70.2-73.4, Q2_K from 89.2-91.5 to
// 82.1-88.8 (three alternations). Q3_K paired once its high bits took
// three ops and no constants: 92.5-98.1 to 86.5-90.4 ms. Q5_K's paired
// rows spill registers and ran 2% slower. An Intel Xeon loads two 64-byte
// vectors a cycle, so row_pairing.h measures which is faster per format at
// load. Streamed from memory, two rows at once are two streams, which
// decoded one token slower on the Zen 4: streamed rows go one at a time.
// On an AMD EPYC Zen 5 (two vpdpbusd a cycle, latency 4) Q8_0's 512 tokens
// through gate/up run about one a cycle (420-450 GFLOP/s on one thread, the
// clock 3.0-3.5 GHz by a dependent-add loop), and no single cost explains the
// rest: three rows at a time (a strip of 18) took 0.95-1.03x two rows' time
// (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, IQ4_XS; Q4_0 the 0.95), two accumulators
// per dot product (chains of 4) 0.95-1.05x at 512 tokens and 1.08-1.19x at
// 8 (Q8_0); dropping, numerically wrong, to find a ceiling, the sign flip
// gained 0-3%, the scales' float work 0-13%, every row's weights read from
// L1 4-10% (BM_gemm_rows, 1 thread, min of 3, two or three alternations;
// the host's clock moved between runs). What does bound it (BM_vnni_ports):
// vmulps and vfmadd take the two units vpdpbusd runs on, where vcvtdq2ps,
// vaddps, logic and two aligned 64-byte loads a cycle run beside it. So a
// group's float work, per row and token a multiply and a multiply-add (and
// for the mins one more), caps Q4_K at 64 vpdpbusd in 88 slots, 1.45 a
// cycle, Q8_0 at 1.6 and Q6_K, whose lanes of 16 take 4 vpdpbusd per
// group, at 1.33; Q4_K ran 0.98 (432 GFLOP/s at about 3.45 GHz), and a
// copy of its loop outside the project, one pointer for the activations,
// 1.17, and 1.45 with the float work replaced by one add.
//
// From cache, rows go kPanel at a time rather than kStrip: each tile of
// activations is read into L1 once per panel, which covers a whole block
// of FFN-down's long rows (gemm_rows: 30-56 rows of 8192 columns). In
// strips of 16 a pass's tokens' 8192 columns (40 KiB with their scales for
// 4 tokens, 80 for 8) came back from L2 for every strip, and 512 tokens
// through Llama-3.2-1B's FFN-down took 43.6-45.6 ms against 40.3-42.3 in
// panels (Q4_K; Q6_K 55.0-56.9 against 47.5-51.4; gate/up, one tile wide,
// level; BM_gemm_rows, 1 thread, min of 5, three alternations, AMD EPYC
// Zen 5). It rests only on L1 holding one tile (16 KiB) beside the rows
// going by, which a 32 KiB L1 does too; not measured on an Intel Xeon.
// Streamed from memory, strips keep the prefetches' distance to the next
// strip short.
constexpr size_t kStrip = 16;
constexpr size_t kPanel = 64;
constexpr size_t kTileBytes = 16384;
constexpr size_t kPairTokens = 4;

template <typename Format, size_t M, bool Prefetch, size_t kRows, typename Activations>
void gemv_grouped_from(const std::byte* w, size_t stride, size_t cols, const Activations& xs, float* y,
                       size_t y_stride, size_t n_rows, bool far_l1) {
  static_assert(kRows == 1 || (!Prefetch && M <= kPairTokens), "rows pair from cache, against few tokens");
  constexpr size_t kTileLanes = kTileBytes / (Format::kLane * M) / 16 * 16;
  const size_t n_lanes = cols / Format::kLane;
  constexpr size_t kRowsAtOnce = Prefetch ? kStrip : kPanel;
  __m512 partial[kRowsAtOnce][M];
  // Both levels: with only the L2 prefetch 4 KiB ahead, 8 tokens streamed
  // 19-24 GB/s; adding the L1 one 2 KiB ahead (and the L2 one 8 KiB), 24-26
  // (Q8_0 2048 x 2048, 2 threads, four sittings). Tiled, what a group's
  // loads need next is the strip's next row at the same columns, and the
  // next strip after that. Untiled, the L2 one goes two rows ahead, within
  // 4-16 KiB: one token on an AMD EPYC Zen 4 (BM_gemm_rows, 1 thread, three
  // runs each) streamed Llama-3.2-1B's gate/up rows (1.2-2.2 KiB) best 4 KiB
  // ahead (Q4_K 352-360 us against 430-457 at 8 KiB) and its FFN-down rows
  // (4.6-8.7 KiB) 16 KiB ahead (Q6_K 605 against 634-638; 855-868 at 4 KiB).
  // The fixed 8 KiB before came from the Intel Xeon above, not re-measured.
  // Into L1 2 KiB ahead suited the Zen 4; an AMD EPYC Zen 5 streamed those
  // gate/up rows faster prefetching into L1 as far ahead as into L2 (Q4_K
  // 215-249 -> 191-211 us on 2 threads, six alternations; FFN-down level),
  // so which is the CPU's (RowRead::StreamedFarL1, stream_prefetch.h).
  // A whole row prefetches all its lines: its groups' quants alone missed
  // the row's header (scales) lines, 8 of FFN-down's 136 a row in Q8_0,
  // which then came from memory on demand: one token through Llama-3.2-1B's
  // FFN-down on one thread took 1039-1068 us against gate/up's 643-657 for
  // the same bytes, and 814-843 us prefetching every line (Q4_K 417-426 ->
  // 329-346; BM_gemv, min of 5, AMD EPYC Zen 4, three alternations).
  // Into L1 no farther than 4 KiB, though: two FFN-down rows (9-16 KiB)
  // ahead, the lines were evicted before their use, and FFN-down streamed
  // 20-25% slower per byte than gate/up (Zen 5, BM_gemv, 1 and 2 threads).
  const size_t n_groups = (n_lanes + 15) / 16;
  const size_t far = std::clamp<size_t>(2 * stride, 4096, 16384);
  const size_t near = far_l1 ? std::min<size_t>(far, 4096) : 2048;
  const PrefetchDistances ahead = n_lanes > kTileLanes ? PrefetchDistances{stride, kStrip * stride, 0}
                                                       : PrefetchDistances{near, far, (stride / n_groups + 63) / 64 * 64};
  for (size_t r0 = 0; r0 < n_rows; r0 += kRowsAtOnce) {
    const size_t strip = n_rows - r0 < kRowsAtOnce ? n_rows - r0 : kRowsAtOnce;
    for (size_t i = 0; i < strip; ++i)
#pragma GCC unroll 8
      for (size_t m = 0; m < M; ++m) partial[i][m] = _mm512_setzero_ps();
    for (size_t g0 = 0; g0 < n_lanes; g0 += kTileLanes) {
      const size_t g1 = n_lanes - g0 < kTileLanes ? n_lanes : g0 + kTileLanes;
      size_t i = 0;
      for (; i + kRows <= strip; i += kRows)
        grouped_span<Format, M, kRows, Prefetch>(w + (r0 + i) * stride, stride, n_lanes, g0, g1, xs, partial + i, ahead);
      if constexpr (kRows > 1)
        for (; i < strip; ++i)
          grouped_span<Format, M, 1, Prefetch>(w + (r0 + i) * stride, stride, n_lanes, g0, g1, xs, partial + i, ahead);
    }
    for (size_t i = 0; i < strip; ++i)
#pragma GCC unroll 8
      for (size_t m = 0; m < M; ++m) y[m * y_stride + r0 + i] = _mm512_reduce_add_ps(partial[i][m]);
  }
}

template <typename Format, size_t M, bool Prefetch, size_t kRows>
void gemv_grouped(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, float* y,
                  size_t y_stride, size_t n_rows, bool far_l1) {
  gemv_grouped_from<Format, M, Prefetch, kRows>(w, stride, cols, TokenActivations<Format::kLane>{xs}, y, y_stride,
                                                n_rows, far_l1);
}

// Paired, more than kPairTokens activations go in calls of at most that.
template <typename Format>
void gemv_grouped_batch(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                        float* y, size_t y_stride, size_t n_rows, RowRead read) {
  using Kernel = void (*)(const std::byte*, size_t, size_t, const GroupedActivation*, float*, size_t, size_t, bool);
  static constexpr Kernel kByBatch[2][kGemvMaxBatch] = {
      {gemv_grouped<Format, 1, false, 1>, gemv_grouped<Format, 2, false, 1>, gemv_grouped<Format, 3, false, 1>,
       gemv_grouped<Format, 4, false, 1>, gemv_grouped<Format, 5, false, 1>, gemv_grouped<Format, 6, false, 1>,
       gemv_grouped<Format, 7, false, 1>, gemv_grouped<Format, 8, false, 1>},
      {gemv_grouped<Format, 1, true, 1>, gemv_grouped<Format, 2, true, 1>, gemv_grouped<Format, 3, true, 1>,
       gemv_grouped<Format, 4, true, 1>, gemv_grouped<Format, 5, true, 1>, gemv_grouped<Format, 6, true, 1>,
       gemv_grouped<Format, 7, true, 1>, gemv_grouped<Format, 8, true, 1>}};
  static constexpr Kernel kPaired[kPairTokens] = {gemv_grouped<Format, 1, false, 2>, gemv_grouped<Format, 2, false, 2>,
                                                  gemv_grouped<Format, 3, false, 2>, gemv_grouped<Format, 4, false, 2>};
  if (read != RowRead::CachedPairs)
    return kByBatch[from_memory(read) ? 1 : 0][n_x - 1](w, stride, cols, xs, y, y_stride, n_rows,
                                                        read == RowRead::StreamedFarL1);
  for (size_t m = 0; m < n_x; m += kPairTokens)
    kPaired[std::min(kPairTokens, n_x - m) - 1](w, stride, cols, xs + m, y + m * y_stride, y_stride, n_rows, false);
}

// A whole tile of activations against staged rows (StagedGemv): all
// kGemvMaxBatch at once a row at a time, or (paired_tile) rows in pairs
// against kPairTokens at a time, packed. Only these are built for a staged
// format: gemm_rows runs a shorter last tile on the grouped rows.
template <typename Staged>
void gemv_staged_tile(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t /*n_x*/,
                      float* y, size_t y_stride, size_t n_rows, RowRead /*read: Cached*/) {
  gemv_grouped<Staged, kGemvMaxBatch, false, 1>(w, stride, cols, xs, y, y_stride, n_rows, false);
}

// A tile's passes of kPairTokens, packed one after the other.
template <typename Staged>
size_t packed_pass_bytes(size_t cols) {
  return (cols / Staged::kLane + 15) / 16 * PackedGroup<Staged::kLane, kPairTokens>::kBytes;
}
template <typename Staged>
size_t packed_tile_bytes(size_t cols) {
  return kGemvMaxBatch / kPairTokens * packed_pass_bytes<Staged>(cols);
}
template <typename Staged>
void pack_tile(const GroupedActivation* xs, size_t cols, std::byte* out) {
  for (size_t m = 0; m < kGemvMaxBatch; m += kPairTokens, out += packed_pass_bytes<Staged>(cols))
    pack_activations<Staged::kLane, kPairTokens>(xs + m, cols / Staged::kLane, out);
}
template <typename Staged>
void gemv_staged_paired_tile(const std::byte* w, size_t stride, size_t cols, const std::byte* packed, float* y,
                             size_t y_stride, size_t n_rows) {
  for (size_t m = 0; m < kGemvMaxBatch; m += kPairTokens, packed += packed_pass_bytes<Staged>(cols))
    gemv_grouped_from<Staged, kPairTokens, false, 2>(w, stride, cols, PackedActivations<Staged::kLane, kPairTokens>{packed},
                                                     y + m * y_stride, y_stride, n_rows, false);
}

// Staged rows (StagedGemv) whose scales (and mins) are decoded to floats
// (staged_scales.h has the layout). A whole tile of 8 tokens on 2048 columns from L2 ran 1.09-1.10x as
// fast staged for Q4_K, 1.10-1.11x for Q5_K, 1.11-1.27x for IQ4_XS; Q4_1
// and Q5_1, whose scales and mins are two f16 a lane, ran 0.99-1.01x (one
// thread, AMD EPYC Zen 5, min of 3000 alternations).
template <typename Format>
struct DecodedScales : DecodedScalesLayout<Format> {
  using DecodedScalesLayout<Format>::kGroupBytes;
  using DecodedScalesLayout<Format>::n_groups;
  static Scales scales(const std::byte* row, size_t g, __mmask16 /*lanes: as staged*/) {
    const auto* decoded = reinterpret_cast<const float*>(row + kGroupBytes * (g / 16));
    return {_mm512_load_ps(decoded), Format::kMin ? _mm512_load_ps(decoded + 16) : _mm512_setzero_ps()};
  }
  static void stage(const std::byte* w, size_t stride, size_t cols, size_t n_rows, std::byte* out) {
    const size_t n_lanes = cols / Format::kLane, out_stride = DecodedScales::stride(cols);
    for (size_t r = 0; r < n_rows; ++r) {
      const std::byte* row = w + r * stride;
      std::byte* staged = out + r * out_stride;
      for (size_t i = 0; i < n_groups(n_lanes); ++i) {
        const size_t count = n_lanes - 16 * i < 16 ? n_lanes - 16 * i : 16;
        const Scales s = Format::scales(row, 16 * i, static_cast<__mmask16>((1u << count) - 1));
        _mm512_store_ps(staged + kGroupBytes * i, s.w);
        if constexpr (Format::kMin) _mm512_store_ps(staged + kGroupBytes * i + 64, s.min);
      }
      std::memcpy(staged + kGroupBytes * n_groups(n_lanes), Format::quants(row, n_lanes), Format::kLaneBytes * n_lanes);
    }
  }
};

template <typename Staged>
constexpr StagedGemv kStaged{Staged::stride,          Staged::stage,     gemv_staged_tile<Staged>,
                             packed_tile_bytes<Staged>, pack_tile<Staged>, gemv_staged_paired_tile<Staged>};

// Q2_K's and Q3_K's kernels (GroupedGemv), gemv_avx512_k23.cpp's, for
// gemv_avx512.cpp's list; their shifts as GroupedActivation's offsets take
// them (Q3_K's q + 4).
void gemv_grouped_q2_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read);
void gemv_grouped_q3_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read);
inline constexpr int32_t kGroupedQ2KShift = 0, kGroupedQ3KShift = 4;
extern const StagedGemv kStagedQ2_K, kStagedQ3_K;  // their scales decoded

}  // namespace pdbench::gemv_detail
