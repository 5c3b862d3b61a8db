#pragma once
// The AVX2 grouped-rows kernel, for the files built with the AVX2 flags
// (gemv_avx2*.cpp: CMakeLists.txt): a format's struct (its lanes, scales
// and chunks) goes in, the kernel for 1..kGemvMaxBatch activations comes
// out. Only those files may include it (gemv_isa.h); every instantiation
// takes a format struct of an unnamed namespace, so none is shared with
// another file.
//
// It reads the same RowLayout::GroupedQuants rows as AVX-512's
// (grouped_rows.h), half a group at a time: lanes 0-7 of every 64-byte
// chunk, then lanes 8-15. Each 32-byte half-chunk of weights is loaded
// once, made u8 (or, for the signed formats, taken apart by the sign
// trick) and meets every activation's in maddubs and madd, AVX2's
// vpdpbusd, whose int32 lanes are the half's 8 lanes. Then one convert
// and one multiply-add by the 8 lanes' combined scales per activation (and
// one more by the mins for the formats with one). Rows as stored in the
// file met each activation block by a broadcast scale and a horizontal
// reduction per block and token instead, and ran prefill 2-4x behind
// ik_llama.cpp's AVX2 build.
//
// The files are built twice, the second time with AVX-VNNI too
// (CMakeLists.txt): its vpdpbusd sums four u8 x s8 products into each
// int32 lane at once, where maddubs sums two into int16 and madd drains
// them. Each build has a namespace and a kernel table of its own.
#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "gemv_avx2_grouped.h is for the files built with the AVX2 flags (engine/kernels/CMakeLists.txt)"
#endif
#ifdef __AVXVNNI__
#define PDBENCH_AVX2_KERNELS avx2_vnni
#define PDBENCH_AVX2_KERNEL_TABLE kAvx2VnniKernels
#else
#define PDBENCH_AVX2_KERNELS avx2
#define PDBENCH_AVX2_KERNEL_TABLE kAvx2Kernels
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/kernels/avx2_math.h"
#include "engine/kernels/gemv_isa.h"
#include "engine/kernels/staged_scales.h"

namespace pdbench::gemv_detail::PDBENCH_AVX2_KERNELS {

using avx2_math::first_lanes;
using avx2_math::hsum;

#ifdef __AVXVNNI__
inline constexpr bool kVnni = true;
#else
inline constexpr bool kVnni = false;
#endif

// Lanes 8h..8h+7 of a group's chunks: chunk k holds 4 bytes of each at
// chunk_bytes k + 32 h, in the weights and the activation alike. A whole
// group's chunks are 64 bytes; a row's last group of count < 16 lanes has
// chunks of 4 count bytes (packed, grouped_rows.h), whose half loads only
// the lanes present.
template <bool kWhole>
struct Half {
  size_t at;           // 32 h
  size_t chunk_bytes;  // 64, or 4 count
  __m256i present;     // the int32 lanes present (all of a whole group's)
  __m256i load(const void* chunks, size_t k) const {
    const auto* p = static_cast<const std::byte*>(chunks) + chunk_bytes * k + at;
    if constexpr (kWhole) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    else return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), present);
  }
};

// 8 lanes' scales, and their mins (times the activation's lane sums,
// subtracted).
struct HalfScales {
  __m256 w;
  __m256 min;
};

// pairs[m] += the products of u (u8) and activation m's chunk k (s8).
// Without VNNI, maddubs sums them in int16 pairs; signed weights (Q8_0,
// IQ4) go by the sign trick: |w| as u8 times x with w's sign, exact for
// every w in [-128, 127] because x is never -128; their magnitudes are
// taken once for every activation. With VNNI, vpdpbusd sums them into
// int32 lanes, and signed weights go as w + 128 (kSignedShift), whose
// offsets the activation's take back out.
//
// A pair is at most 2 q 127 in magnitude (q the largest u), so the int16
// sums hold 8 chunks of nibbles (q <= 15), 4 of five bits (31), 2 of six
// (63) and one of signed weights (|w| <= 128) exactly: a format drains its
// pairs into the int32 dot products no later than that. Drained (madd by
// ones) after every chunk instead, 512 tokens through Llama-3.2-1B's
// gate/up took 134-137 ms against 120-122 (Q4_K), 123-140 against 106-109
// (Q5_0) and 143-147 against 122 (Q6_K) (BM_gemm_rows, 1 thread, min of 5,
// AMD EPYC Zen 4). With VNNI a drain does nothing: the pairs are int32 dot
// products already.
//
// Against more than one activation, each pair sum is kept in its register
// and summed in chunk order (the empty asm): GCC 12 otherwise reassociated
// a group's chunk sums into a tree, made all of a pass's products first
// and spilled most of them to the stack. 512 tokens through Llama-3.2-1B's
// gate/up on one thread then took Q4_K 105.6-128.3 ms against 71.2-93.1,
// Q5_K 130.6-132.2 against 92.9-101.1, Q2_K 123.0-129.1 against 85.8-89.6
// and Q4_0 104.2-124.4 against 70.4-81.9 (BM_gemm_rows, PDBENCH_ISA=avx2,
// median of 3, two alternations, AMD EPYC Zen 5); one token the same. The
// drains' int32 sums, the same: Q8_0, drained every chunk, 130.6 -> 114.9.
inline constexpr int32_t kSignedShift = kVnni ? 128 : 0;

template <size_t M, bool kSigned, bool kWhole>
[[gnu::always_inline]] inline void meet(__m256i w, const GroupedActivation* xs, size_t x_at, const Half<kWhole>& half,
                                        size_t k, __m256i* pairs) {
  if constexpr (kVnni) {
    const __m256i u = kSigned ? _mm256_xor_si256(w, _mm256_set1_epi8(-128)) : w;
#pragma GCC unroll 4
    for (size_t m = 0; m < M; ++m) pairs[m] = _mm256_dpbusd_avx_epi32(pairs[m], u, half.load(xs[m].qs + x_at, k));
  } else {
    const __m256i u = kSigned ? _mm256_sign_epi8(w, w) : w;
#pragma GCC unroll 4
    for (size_t m = 0; m < M; ++m) {
      __m256i x = half.load(xs[m].qs + x_at, k);
      if constexpr (kSigned) x = _mm256_sign_epi8(x, w);
      pairs[m] = _mm256_add_epi16(pairs[m], _mm256_maddubs_epi16(u, x));
      if constexpr (M > 1) asm("" : "+x"(pairs[m]));
    }
  }
}

// dot[m] += pairs[m] summed in int32 pairs; pairs[m] = 0 (without VNNI).
template <size_t M>
[[gnu::always_inline]] inline void drain(__m256i* pairs, __m256i* dot) {
  if constexpr (kVnni) return;
#pragma GCC unroll 4
  for (size_t m = 0; m < M; ++m) {
    dot[m] = _mm256_add_epi32(dot[m], _mm256_madd_epi16(pairs[m], _mm256_set1_epi16(1)));
    if constexpr (M > 1) asm("" : "+x"(dot[m]));  // as meet's pairs
    pairs[m] = _mm256_setzero_si256();
  }
}

// Half h of group g (its first lane) into acc[0..M): the 8 lanes' integer
// dot products, plus the activation's offsets (which take the unsigned
// shift back out, GroupedActivation), then scaled.
template <typename Format, size_t M, bool kWhole>
[[gnu::always_inline]] inline void add_half(const std::byte* row, const std::byte* group, size_t g, size_t count,
                                            size_t h, const GroupedActivation* xs, __m256* acc) {
  const size_t n = count - 8 * h < 8 ? count - 8 * h : 8;
  const Half<kWhole> half{32 * h, kWhole ? 64 : 4 * count, kWhole ? _mm256_set1_epi32(-1) : first_lanes(n)};
  const size_t lane = g + 8 * h;
  const HalfScales s = Format::scales(row, lane, n);
  __m256i pairs[M], dot[M];
#pragma GCC unroll 4
  for (size_t m = 0; m < M; ++m) pairs[m] = dot[m] = _mm256_setzero_si256();
  Format::template add_chunks<M>(group, half, xs, Format::kLane * g, pairs, dot);
  drain<M>(pairs, dot);
  if constexpr (kVnni)
#pragma GCC unroll 4
    for (size_t m = 0; m < M; ++m) dot[m] = pairs[m];
#pragma GCC unroll 4
  for (size_t m = 0; m < M; ++m) {
    if constexpr (Format::kShift != 0)
      dot[m] = _mm256_add_epi32(dot[m], _mm256_load_si256(reinterpret_cast<const __m256i*>(xs[m].offsets + lane)));
    acc[m] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[m]), _mm256_mul_ps(s.w, _mm256_load_ps(xs[m].d + lane)), acc[m]);
    if constexpr (Format::kMin) acc[m] = _mm256_fnmadd_ps(s.min, _mm256_load_ps(xs[m].sums + lane), acc[m]);
  }
}

// The lines `near` (into L1) and `far` (into L2) ahead of [from, from + bytes).
[[gnu::always_inline]] inline void prefetch_lines(const std::byte* from, size_t bytes, size_t near, size_t far) {
  for (size_t line = 0; line < bytes; line += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(from) + line + near, _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(from) + line + far, _MM_HINT_T1);
  }
}

// Whether Format's rows are whole groups (a group a super-block of 16 lanes).
template <typename Format>
inline constexpr bool kWholeGroupsOnly = requires { requires Format::kWholeGroups; };

// Where add_groups prefetches, when its rows come from memory: `near`
// ahead into L1 and `far` into L2, `share` bytes of the row per group
// (headers included), or (share 0) the group's own quants, and the row's
// headers at its first group.
struct PrefetchPlan {
  size_t near;
  size_t far;
  size_t share;
};

// Groups [g_begin, g_end) of one row (of n_lanes) into acc[0..M).
template <typename Format, size_t M, bool Prefetch>
[[gnu::always_inline]] inline void add_groups(const std::byte* row, size_t n_lanes, size_t g_begin, size_t g_end,
                                              const GroupedActivation* xs, __m256* acc_out, PrefetchPlan plan) {
  const std::byte* quants = Format::quants(row, n_lanes);
  const std::byte* group = quants + Format::kLaneBytes * g_begin;
  const std::byte* fetch = plan.share != 0 ? row + plan.share * (g_begin / 16) : group;
  const size_t share = plan.share != 0 ? plan.share : 16 * Format::kLaneBytes;
  if constexpr (Prefetch)
    if (plan.share == 0 && g_begin == 0) prefetch_lines(row, static_cast<size_t>(quants - row), plan.near, plan.far);
  __m256 acc[M];
#pragma GCC unroll 4
  for (size_t m = 0; m < M; ++m) acc[m] = acc_out[m];
  const size_t whole_end = g_begin + (g_end - g_begin) / 16 * 16;
  for (size_t g = g_begin; g < whole_end; g += 16, group += 16 * Format::kLaneBytes, fetch += share) {
    if constexpr (Prefetch) prefetch_lines(fetch, share, plan.near, plan.far);
    add_half<Format, M, true>(row, group, g, 16, 0, xs, acc);
    add_half<Format, M, true>(row, group, g, 16, 1, xs, acc);
  }
  if constexpr (!kWholeGroupsOnly<Format>)
    if (whole_end < g_end) {  // a row's last group
      const size_t count = g_end - whole_end;
      if constexpr (Prefetch)
        prefetch_lines(fetch, plan.share != 0 ? share : count * Format::kLaneBytes, plan.near, plan.far);
      add_half<Format, M, false>(row, group, whole_end, count, 0, xs, acc);
      if (count > 8) add_half<Format, M, false>(row, group, whole_end, count, 1, xs, acc);
    }
#pragma GCC unroll 4
  for (size_t m = 0; m < M; ++m) acc_out[m] = acc[m];
}

// Rows wider than a tile go in strips of kStrip rows, which meet the
// activations a tile of columns at a time (kTileBytes of all M
// activations' quants), so the activations stay in L1 while the strip's
// rows (in L2 between tiles) go by, as AVX-512's do. Untiled, 4
// activations of Llama-3.2-1B's FFN-down (8192 columns, 44 KiB with their
// scales) came from L2 and held it to 225 GFLOP/s against gate/up's 283
// (pdbench run -p 128, Q4_K_M, 2 threads, AMD EPYC Zen 4).
// From cache, rows go kPanel at a time, so each tile of activations comes
// into L1 once per panel (gemv_avx512_grouped.h has the measurements).
constexpr size_t kStrip = 16;
constexpr size_t kPanel = 64;
constexpr size_t kTileBytes = 16384;

// M activations (at most kTokensPerPass) against n_rows rows of at most a
// tile, a row at a time. Streamed from memory (Prefetch), each group
// prefetches its share of the row, headers included (gemv_avx512_grouped.h
// has the measurements).
template <typename Format, size_t M, bool Prefetch>
void untiled_rows(const std::byte* w, size_t stride, size_t n_lanes, const GroupedActivation* xs, float* y,
                  size_t y_stride, size_t n_rows) {
  const size_t share = (stride / ((n_lanes + 15) / 16) + 63) / 64 * 64;
  const size_t far = 2 * stride < 4096 ? 4096 : 2 * stride > 16384 ? 16384 : 2 * stride;
  for (size_t r = 0; r < n_rows; ++r) {
    __m256 acc[M];
#pragma GCC unroll 4
    for (size_t m = 0; m < M; ++m) acc[m] = _mm256_setzero_ps();
    add_groups<Format, M, Prefetch>(w + r * stride, n_lanes, 0, n_lanes, xs, acc, {2048, far, share});
#pragma GCC unroll 4
    for (size_t m = 0; m < M; ++m) y[m * y_stride + r] = hsum(acc[m]);
  }
}

// The same for rows wider than a tile, in strips. Streamed, a group
// prefetches its next row's quants at the same columns, and the strip's
// after.
template <typename Format, size_t M, bool Prefetch>
void tiled_rows(const std::byte* w, size_t stride, size_t n_lanes, size_t tile_lanes, const GroupedActivation* xs,
                float* y, size_t y_stride, size_t n_rows) {
  constexpr size_t kRowsAtOnce = Prefetch ? kStrip : kPanel;
  __m256 partial[kRowsAtOnce][M];
  for (size_t r0 = 0; r0 < n_rows; r0 += kRowsAtOnce) {
    const size_t strip = n_rows - r0 < kRowsAtOnce ? n_rows - r0 : kRowsAtOnce;
    for (size_t i = 0; i < strip; ++i)
#pragma GCC unroll 4
      for (size_t m = 0; m < M; ++m) partial[i][m] = _mm256_setzero_ps();
    for (size_t g0 = 0; g0 < n_lanes; g0 += tile_lanes) {
      const size_t g1 = n_lanes - g0 < tile_lanes ? n_lanes : g0 + tile_lanes;
      for (size_t i = 0; i < strip; ++i)
        add_groups<Format, M, Prefetch>(w + (r0 + i) * stride, n_lanes, g0, g1, xs, partial[i],
                                        {stride, kStrip * stride, 0});
    }
    for (size_t i = 0; i < strip; ++i)
#pragma GCC unroll 4
      for (size_t m = 0; m < M; ++m) y[m * y_stride + r0 + i] = hsum(partial[i][m]);
  }
}

// M activations (at most kTokensPerPass) against n_rows rows, one
// accumulator per activation and row, summed over the row's groups in
// order whatever the tiling. Two functions, not two branches of one:
// inlined into one, the untiled rows lost registers and ran 3-9% slower
// (Llama-3.2-1B gate/up, 8 and 512 tokens, Q4_K and Q6_K, 1 thread).
template <typename Format, size_t M, bool Prefetch>
void gemv_grouped(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, float* y,
                  size_t y_stride, size_t n_rows) {
  constexpr size_t kTileLanes = kTileBytes / (Format::kLane * M) / 16 * 16;
  const size_t n_lanes = cols / Format::kLane;
  if (n_lanes <= kTileLanes) return untiled_rows<Format, M, Prefetch>(w, stride, n_lanes, xs, y, y_stride, n_rows);
  tiled_rows<Format, M, Prefetch>(w, stride, n_lanes, kTileLanes, xs, y, y_stride, n_rows);
}

// Activations a pass over the rows meets: each holds an int32 and a float
// accumulator in registers, and AVX2 has 16. A tile of 8 in one pass,
// which unpacks each chunk once instead of twice, spilled them: 512 tokens
// through Llama-3.2-1B's gate/up on one thread took Q4_0 from 109 to 123
// ms, Q4_K from 117 to 129, Q5_0 from 105 to 122, Q6_K from 120 to 132
// (Q8_0 146 either way; BM_gemm_rows, AMD EPYC Zen 4).
constexpr size_t kTokensPerPass = 4;

// The BatchGemv: n_x activations in passes of up to kTokensPerPass, each
// activation summed as it would be alone. Only the first pass over rows
// from memory prefetches; the later ones find them in cache.
template <typename Format>
void gemv_grouped_batch(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                        float* y, size_t y_stride, size_t n_rows, RowRead read) {
  using Kernel = void (*)(const std::byte*, size_t, size_t, const GroupedActivation*, float*, size_t, size_t);
  static constexpr Kernel kByPass[2][kTokensPerPass] = {
      {gemv_grouped<Format, 1, false>, gemv_grouped<Format, 2, false>, gemv_grouped<Format, 3, false>,
       gemv_grouped<Format, 4, false>},
      {gemv_grouped<Format, 1, true>, gemv_grouped<Format, 2, true>, gemv_grouped<Format, 3, true>,
       gemv_grouped<Format, 4, true>}};
  for (size_t m = 0; m < n_x; m += kTokensPerPass) {
    const size_t n = n_x - m < kTokensPerPass ? n_x - m : kTokensPerPass;
    const bool prefetch = from_memory(read) && m == 0;
    kByPass[prefetch ? 1 : 0][n - 1](w, stride, cols, xs + m, y + m * y_stride, y_stride, n_rows);
  }
}

// A whole tile of activations against staged rows (StagedGemv::tile), in
// passes of kTokensPerPass: only those are built for a staged format.
template <typename Staged>
void gemv_staged_tile(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t /*n_x*/,
                      float* y, size_t y_stride, size_t n_rows, RowRead /*read: from cache*/) {
  for (size_t m = 0; m < kGemvMaxBatch; m += kTokensPerPass)
    gemv_grouped<Staged, kTokensPerPass, false>(w, stride, cols, xs + m, y + m * y_stride, y_stride, n_rows);
}

// Staged rows whose scales (and mins) are decoded to floats
// (staged_scales.h has the layout), staged a half-group at a time. A whole tile from L2
// ran 1.04x as fast for Q4_K, 1.04-1.09x for Q5_K and 1.09-1.13x for
// IQ4_XS (without and with AVX-VNNI; one thread, AMD EPYC Zen 5).
template <typename Format>
struct DecodedScales : DecodedScalesLayout<Format> {
  using DecodedScalesLayout<Format>::kGroupBytes;
  using DecodedScalesLayout<Format>::n_groups;
  static HalfScales scales(const std::byte* row, size_t lane, size_t /*n: as staged*/) {
    const auto* decoded = reinterpret_cast<const float*>(row + kGroupBytes * (lane / 16)) + lane % 16;
    return {_mm256_load_ps(decoded), Format::kMin ? _mm256_load_ps(decoded + 16) : _mm256_setzero_ps()};
  }
  static void stage(const std::byte* w, size_t stride, size_t cols, size_t n_rows, std::byte* out) {
    const size_t n_lanes = cols / Format::kLane, out_stride = DecodedScales::stride(cols);
    for (size_t r = 0; r < n_rows; ++r) {
      const std::byte* row = w + r * stride;
      std::byte* staged = out + r * out_stride;
      for (size_t lane = 0; lane < n_lanes; lane += 8) {  // a half-group at a time
        const HalfScales s = Format::scales(row, lane, n_lanes - lane < 8 ? n_lanes - lane : 8);
        auto* decoded = reinterpret_cast<float*>(staged + kGroupBytes * (lane / 16)) + lane % 16;
        _mm256_store_ps(decoded, s.w);
        if constexpr (Format::kMin) _mm256_store_ps(decoded + 16, s.min);
      }
      std::memcpy(staged + kGroupBytes * n_groups(n_lanes), Format::quants(row, n_lanes), Format::kLaneBytes * n_lanes);
    }
  }
};

template <typename Staged>
constexpr StagedGemv kStaged{Staged::stride, Staged::stage, gemv_staged_tile<Staged>};

// Q2_K's, Q3_K's and Q6_K's kernels (BatchGemv: their lanes of 16),
// gemv_avx2_k236.cpp's, for gemv_avx2.cpp's list, with the shifts the
// activation's offsets take out.
void gemv_grouped_q2_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read);
void gemv_grouped_q3_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read);
extern const StagedGemv kStagedQ6_K;               // its six bits as bytes
extern const StagedGemv kStagedQ2_K, kStagedQ3_K;  // their scales decoded
void gemv_grouped_q6_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read);
inline constexpr int32_t kGroupedQ2KShift = 0, kGroupedQ3KShift = 4, kGroupedQ6KShift = 32;

}  // namespace pdbench::gemv_detail::PDBENCH_AVX2_KERNELS
