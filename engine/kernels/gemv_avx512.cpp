// gemv kernels for AVX-512 F/BW/VL + VNNI (+ FMA, F16C), 16 f32 lanes.
// Built with the AVX-512 flags (engine/kernels/CMakeLists.txt), as is
// gemv_avx512_k23.cpp (Q2_K, Q3_K), which its list below names; see
// gemv_isa.h for why they keep to raw pointers and intrinsics. The
// grouped-rows kernel their integer formats instantiate is
// gemv_avx512_grouped.h.
#include <cstdint>
#include <cstring>

#include "engine/format/quant_blocks.h"
#include "engine/kernels/gemv_avx512_grouped.h"
#include "engine/kernels/staged_q6_k.h"

namespace pdbench::gemv_detail {

namespace {

// Software prefetch this far ahead of the loads. The hardware prefetcher
// alone leaves one core well short of the bandwidth: measured at 8192 x 2048,
// 1 thread, GB/s for none / 512 / 1024 / 2048 / 4096 bytes ahead:
// bf16 8.1 / 8.8 / 9.3 / 9.9 / 10.5, q8_0 6.9 / 8.2 / 8.8 / 9.3 / 10.3,
// q4_0 5.4 / 6.2 / 7.1 / 7.2 / 7.5. Rows are contiguous, so running past a
// row's end prefetches the next row, which is what comes next.
constexpr size_t kPrefetchBytes = 4096;

// Prefetches the cache lines of [p, p + bytes) kPrefetchBytes ahead.
void prefetch_ahead(const void* p, size_t bytes) {
  for (size_t line = 0; line < bytes; line += 64)
    _mm_prefetch(static_cast<const char*>(p) + kPrefetchBytes + line, _MM_HINT_T0);
}

// Loaders: 16 stored elements to f32, and the first `count` of 16 (masked
// load, so the tail of an odd-width row reads nothing past its end).
struct F32 {
  static constexpr size_t kBytes = 4;
  static __m512 load16(const std::byte* p) { return _mm512_loadu_ps(p); }
  static __m512 load_first(const std::byte* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
};
struct F16 {
  static constexpr size_t kBytes = 2;
  static __m512 load16(const std::byte* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static __m512 load_first(const std::byte* p, __mmask16 m) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
  }
};
// bf16 is the top half of an f32: widen and shift left by 16, exact, so x
// stays f32 and bf16 has the f32 error bound. The alternative, vdpbf16ps on
// x rounded to bf16 once per matmul, would add up to 2^-9 sum|w||x| of
// error; it is worth it only if it streams faster than this, which has not
// been measured with both prefetching (BM_gemv/bf16).
struct BF16 {
  static constexpr size_t kBytes = 2;
  static __m512 widen(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  static __m512 load16(const std::byte* p) {
    return widen(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static __m512 load_first(const std::byte* p, __mmask16 m) {
    return widen(_mm256_maskz_loadu_epi16(m, p));
  }
};

// Four accumulators: FMA latency 4 x 2 ports wants 8 in flight for peak, but
// 4 already retire 64 elements per 4 cycles, well above what memory delivers.
template <typename Stored>
void gemv_float(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y, size_t n_rows) {
  const auto* x = static_cast<const float*>(activation);
  constexpr size_t kB = Stored::kBytes;
  for (size_t r = 0; r < n_rows; ++r) {
    const std::byte* row = w + r * stride;
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    __m512 acc2 = _mm512_setzero_ps(), acc3 = _mm512_setzero_ps();
    size_t c = 0;
    for (; c + 64 <= cols; c += 64) {
      prefetch_ahead(row + c * kB, 64 * kB);
      acc0 = _mm512_fmadd_ps(Stored::load16(row + c * kB), _mm512_loadu_ps(x + c), acc0);
      acc1 = _mm512_fmadd_ps(Stored::load16(row + (c + 16) * kB), _mm512_loadu_ps(x + c + 16), acc1);
      acc2 = _mm512_fmadd_ps(Stored::load16(row + (c + 32) * kB), _mm512_loadu_ps(x + c + 32), acc2);
      acc3 = _mm512_fmadd_ps(Stored::load16(row + (c + 48) * kB), _mm512_loadu_ps(x + c + 48), acc3);
    }
    for (; c + 16 <= cols; c += 16)
      acc0 = _mm512_fmadd_ps(Stored::load16(row + c * kB), _mm512_loadu_ps(x + c), acc0);
    if (c < cols) {
      const auto first = static_cast<__mmask16>((1u << (cols - c)) - 1);
      acc1 = _mm512_fmadd_ps(Stored::load_first(row + c * kB, first),
                             _mm512_maskz_loadu_ps(first, x + c), acc1);
    }
    y[r] = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
  }
}

// Lanes of one block of 32 each (Q8_0, Q4_0, Q5_0): the headers are the
// blocks' f16 scales, 2 bytes a lane, and the quants follow them.
struct BlockScale {
  static constexpr bool kMin = false;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 2 * n_lanes; }
  static Scales scales(const std::byte* row, size_t g, __mmask16 lanes) {
    return {_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(lanes, row + 2 * g)), _mm512_setzero_ps()};
  }
};

// Q4_1 and Q5_1: each block's f16 d and m, 4 bytes a lane; w = d q + m, q
// unsigned with no offset, so m times the activation's lane sums is added
// (as a min of -m, which the kernel subtracts).
struct BlockScaleAndMin {
  static constexpr int32_t kShift = 0;
  static constexpr bool kMin = true;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 4 * n_lanes; }
  static Scales scales(const std::byte* row, size_t g, __mmask16 lanes) {
    const __m512i dm = _mm512_maskz_loadu_epi32(lanes, row + 4 * g);
    const __m512 d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(dm));
    const __m512 m = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(dm, 16)));
    return {d, _mm512_sub_ps(_mm512_setzero_ps(), m)};
  }
};

// Q8_0: a chunk is 64 weights, 4 of each block; w + 128 (a flip of the sign
// bit) is unsigned, the offsets are -128 sum x. Chunk k meets the
// activation's chunk k.
struct GroupedQ8_0 : BlockScale {
  static constexpr size_t kLane = 32, kLaneBytes = 32;
  static constexpr size_t kMostPerLoad = 8;
  static constexpr int32_t kShift = 128;
  template <size_t M, size_t R, typename Group, typename Xs>
  [[gnu::always_inline]] static void add_group(const std::byte* const* groups, const Group& chunks,
                                               const Xs& xs, __m512i (*dot)[M]) {
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; k += Group::kPerLoad) {
      __m512i u[R];
#pragma GCC unroll 4
      for (size_t r = 0; r < R; ++r)
        u[r] = _mm512_xor_si512(load_chunks<M>(chunks, groups[r] + chunks.offset(k)),
                                _mm512_set1_epi8(static_cast<char>(0x80)));
      meet<M, R>(u, xs, chunks, k, dot);
    }
  }
};

// Lanes of 32 nibbles packed as Q4_0's (Q4_0, Q4_1, Q4_K, IQ4_NL, IQ4_XS):
// a chunk is 128 weights, 4 packed bytes of each lane, whose low nibbles
// are weights 4k..4k+3 and high nibbles 16+4k..16+4k+3: they meet the
// activation's chunks k and k + 4. Values maps the nibbles to the u8 that
// vpdpbusd multiplies.
template <__m512i (*Values)(__m512i nibbles)>
struct NibbleLanesOf {
  static constexpr size_t kLane = 32, kLaneBytes = 16;
  static constexpr size_t kMostPerLoad = 4;
  template <size_t M, size_t R, typename Group, typename Xs>
  [[gnu::always_inline]] static void add_group(const std::byte* const* groups, const Group& chunks,
                                               const Xs& xs, __m512i (*dot)[M]) {
#pragma GCC unroll 4
    for (size_t k = 0; k < 4; k += Group::kPerLoad) {
      __m512i low[R], high[R];
#pragma GCC unroll 4
      for (size_t r = 0; r < R; ++r) {
        const __m512i w = load_chunks<M>(chunks, groups[r] + chunks.offset(k));
        low[r] = Values(_mm512_and_si512(w, _mm512_set1_epi8(0x0f)));
        high[r] = Values(_mm512_and_si512(_mm512_srli_epi16(w, 4), _mm512_set1_epi8(0x0f)));
      }
      meet<M, R>(low, xs, chunks, k, dot);
      meet<M, R>(high, xs, chunks, k + 4, dot);
    }
  }
};

// The nibble is the quant (Q4_0, Q4_1, Q4_K).
__m512i nibble_itself(__m512i nibbles) { return nibbles; }
using NibbleLanes = NibbleLanesOf<nibble_itself>;

// The nibble indexes IQ4's grid, whose values + 128 (a flip of the sign
// bit) are unsigned, 1..241: a byte shuffle looks up 64 at once, and the
// offsets take 128 sum x back out. Exact: vpdpbusd sums the u8 x s8
// products into int32 without saturating (AVX2's maddubs would saturate
// pairs of 241 * 127).
__m512i iq4_grid_plus_128(__m512i nibbles) {
  const __m512i grid = _mm512_xor_si512(_mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4NlValues))),
                                        _mm512_set1_epi8(static_cast<char>(0x80)));
  return _mm512_shuffle_epi8(grid, nibbles);
}
using Iq4GridLanes = NibbleLanesOf<iq4_grid_plus_128>;

// A group's fifth chunk at p, the fifth bits of its lanes' weights (chunk
// k's at bits k and 4 + k of its bytes, grouped_rows.h). A row's last
// group packs kPerLoad chunks a load: its fifth chunk, count lanes (a
// load of more would read past the row), is copied to each one's lanes.
template <size_t M, typename Group>
[[gnu::always_inline]] inline __m512i fifth_chunk(const Group& chunks, const std::byte* p) {
  if constexpr (Group::kPerLoad == 1) return load_chunks<M>(chunks, p);
  else
    return _mm512_permutexvar_epi32(_mm512_load_si512(kFoldedLanes.lane[chunks.count]),
                                    _mm512_maskz_loadu_epi32(chunks.one_chunk(), p));
}

// The fifth bits of the chunks a load at chunk k takes, moved to bit 4 of
// each byte: the low nibbles' (Low) or the high ones'. A whole group's load
// takes chunk k alone, so a constant shift does; a packed last group's
// takes chunks k..k + kPerLoad - 1, each int32 lane shifted by its own.
template <bool Low, typename Group>
[[gnu::always_inline]] inline __m512i fifth_bits(const Group& chunks, __m512i fifth, unsigned k) {
  if constexpr (Group::kPerLoad == 1) {
    return Low ? _mm512_slli_epi16(fifth, 4 - k) : _mm512_srli_epi16(fifth, k);
  } else {
    const __m512i chunk = _mm512_add_epi32(_mm512_load_si512(kFoldedLanes.chunk[chunks.count]),
                                           _mm512_set1_epi32(static_cast<int>(k)));
    return Low ? _mm512_sllv_epi32(fifth, _mm512_sub_epi32(_mm512_set1_epi32(4), chunk))
               : _mm512_srlv_epi32(fifth, chunk);
  }
}

// Lanes of 32 five-bit quants (Q5_0, Q5_1, Q5_K): the nibbles as
// NibbleLanes', and a fifth chunk of their fifth bits.
struct FiveBitLanes {
  static constexpr size_t kLane = 32, kLaneBytes = 20;
  static constexpr size_t kMostPerLoad = 4;
  template <size_t M, size_t R, typename Group, typename Xs>
  [[gnu::always_inline]] static void add_group(const std::byte* const* groups, const Group& chunks,
                                               const Xs& xs, __m512i (*dot)[M]) {
    const __m512i nibble = _mm512_set1_epi8(0x0f), bit4 = _mm512_set1_epi8(0x10);
    __m512i fifth[R];
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) fifth[r] = fifth_chunk<M>(chunks, groups[r] + chunks.offset(4));
#pragma GCC unroll 4
    for (unsigned k = 0; k < 4; k += Group::kPerLoad) {
      __m512i low[R], high[R];
#pragma GCC unroll 4
      for (size_t r = 0; r < R; ++r) {
        const __m512i w = load_chunks<M>(chunks, groups[r] + chunks.offset(k));
        low[r] = _mm512_or_si512(_mm512_and_si512(w, nibble), _mm512_and_si512(fifth_bits<true>(chunks, fifth[r], k), bit4));
        high[r] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(w, 4), nibble),
                                  _mm512_and_si512(fifth_bits<false>(chunks, fifth[r], k), bit4));
      }
      meet<M, R>(low, xs, chunks, k, dot);
      meet<M, R>(high, xs, chunks, k + 4, dot);
    }
  }
};

// Q4_0: the nibbles are unsigned already (q - 8 is the weight), the offsets
// are -8 sum x.
struct GroupedQ4_0 : NibbleLanes, BlockScale {
  static constexpr int32_t kShift = 8;
};

// Q4_1: nibbles as Q4_0's, w = d q + m.
struct GroupedQ4_1 : NibbleLanes, BlockScaleAndMin {};

// Q5_0: q unsigned (q - 16 is the weight), the offsets are -16 sum x.
struct GroupedQ5_0 : FiveBitLanes, BlockScale {
  static constexpr int32_t kShift = 16;
};

// Q5_1: five bits, w = d q + m.
struct GroupedQ5_1 : FiveBitLanes, BlockScaleAndMin {};

// Q4_K and Q5_K: lanes are sub-blocks of 32 (8 a super-block, whose header
// is d, dmin and the packed scales: 16 bytes), quants unsigned with no
// offset: w = d sc q - dmin m, the min times the activation's lane sums.
struct SuperBlockScalesAndMins {
  static constexpr int32_t kShift = 0;
  static constexpr bool kMin = true;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 16 * (n_lanes / 8); }
  // Both headers of a group (two super-blocks) at once in one 256-bit
  // vector, a 128-bit lane each, words u0..u3 (u0 = d | dmin << 16):
  // scales 0-3 are u1 & 0x3f (bytewise), mins 0-3 u2 & 0x3f, scales 4-7
  // (u3 & 0x0f) | (u1 >> 6) << 4 and mins 4-7 (u3 >> 4 & 0x0f) | (u2 >> 6)
  // << 4 (k4_scale_min), as one expression over the words [u1, u3, u2, u3].
  // This runs per row and group, beside one decode token's 288 bytes:
  // unpacked a word at a time in scalar registers, then set into vectors,
  // Q4_K's 8192 x 2048 decode GEMV took 400 us where this takes 350 (Q4_0:
  // 330), medians of 3 alternations on 2 threads of an Intel Xeon
  // (pdbench_micro --benchmark_filter=BM_gemv/q4_K_grouped/llama1b_gate_up).
  static Scales scales(const std::byte* row, size_t g, __mmask16 lanes) {
    const __m256i h = _mm256_maskz_loadu_epi32(lanes == 0xffff ? 0xff : 0x0f, row + 16 * (g / 8));
    const __m256i words = _mm256_shuffle_epi32(h, _MM_SHUFFLE(3, 2, 3, 1));   // u1 u3 u2 u3
    const __m256i high2 = _mm256_shuffle_epi32(h, _MM_SHUFFLE(2, 2, 1, 1));   // u1 u1 u2 u2
    const __m256i low = _mm256_and_si256(_mm256_srlv_epi32(words, _mm256_setr_epi32(0, 0, 0, 4, 0, 0, 0, 4)),
                                         _mm256_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f,
                                                           0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f));
    const __m256i top = _mm256_and_si256(_mm256_srli_epi32(high2, 2),
                                         _mm256_setr_epi32(0, 0x30303030, 0, 0x30303030, 0, 0x30303030, 0, 0x30303030));
    // Bytes: per lane scales 0-7 then mins 0-7; gathered into the 16
    // scales of both super-blocks, then their 16 mins.
    const __m256i bytes =
        _mm256_permutevar8x32_epi32(_mm256_or_si256(low, top), _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    const __m512 scale = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm256_castsi256_si128(bytes)));
    const __m512 min = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm256_extracti128_si256(bytes, 1)));
    // d dmin of the first super-block in lanes 0-7, of the second in 8-15.
    const __m512 d_dmin = _mm512_cvtph_ps(_mm256_permutevar8x32_epi32(h, _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4)));
    return {_mm512_mul_ps(scale, _mm512_moveldup_ps(d_dmin)), _mm512_mul_ps(min, _mm512_movehdup_ps(d_dmin))};
  }
};

// Q4_K: nibbles as Q4_0's.
struct GroupedQ4_K : NibbleLanes, SuperBlockScalesAndMins {};

// Q5_K: Q4_K's scales with five-bit lanes. Two rows' scales, mins and
// fifth bits spill registers: paired, it ran 2% slower on the Zen 4.
struct GroupedQ5_K : FiveBitLanes, SuperBlockScalesAndMins {};

// A Q6_K group's 4 chunks into the dot products, chunk k's quants as
// Format::chunk gives them.
template <typename Format, size_t M, size_t R, typename Xs>
[[gnu::always_inline]] inline void add_four_chunks(const std::byte* const* groups, const WholeGroup& chunks,
                                                   const Xs& xs, __m512i (*dot)[M]) {
#pragma GCC unroll 4
  for (unsigned k = 0; k < 4; ++k) {
    __m512i q[R];
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) q[r] = Format::template chunk<M>(chunks, groups[r], k);
    meet<M, R>(q, xs, chunks, k, dot);
  }
}

// Q6_K: lanes are sub-blocks of 16, a group is one super-block (header:
// 16 signed scales and d, 18 bytes), 6-bit q in 3 chunks (grouped_rows.h)
// that make 4 of 4 bytes a lane; q is unsigned, w = d sc (q - 32), the
// offsets are -32 sum x.
struct GroupedQ6_K {
  static constexpr size_t kLane = 16, kLaneBytes = 12;
  static constexpr size_t kMostPerLoad = 0;  // a group is a super-block
  static constexpr int32_t kShift = 32;
  static constexpr bool kMin = false;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 18 * (n_lanes / 16); }
  static Scales scales(const std::byte* row, size_t g, __mmask16 /*lanes: always 16*/) {
    const std::byte* header = row + 18 * (g / 16);
    uint16_t d;
    std::memcpy(&d, header + 16, sizeof(d));
    const __m512 sc = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(header))));
    return {_mm512_mul_ps(sc, _mm512_set1_ps(_cvtsh_ss(d))), _mm512_setzero_ps()};
  }
  // Chunk k's 6-bit quants from the group's three chunks: their low six
  // bits, or (chunk 3) their top two moved to 0-1, 2-3 and 4-5.
  static __m512i six_bits(const std::byte* group, unsigned k) {
    if (k < 3) return _mm512_and_si512(_mm512_loadu_si512(group + 64 * k), _mm512_set1_epi8(0x3f));
    const __m512i c0 = _mm512_srli_epi16(_mm512_loadu_si512(group), 6);
    const __m512i c1 = _mm512_srli_epi16(_mm512_loadu_si512(group + 64), 4);
    const __m512i c2 = _mm512_srli_epi16(_mm512_loadu_si512(group + 128), 2);
    return _mm512_or_si512(_mm512_or_si512(_mm512_and_si512(c0, _mm512_set1_epi8(0x03)),
                                           _mm512_and_si512(c1, _mm512_set1_epi8(0x0c))),
                           _mm512_and_si512(c2, _mm512_set1_epi8(0x30)));
  }
  template <size_t M>
  [[gnu::always_inline]] static __m512i chunk(const WholeGroup& /*chunks*/, const std::byte* group, unsigned k) {
    return six_bits(group, k);
  }
  template <size_t M, size_t R, typename Xs>
  [[gnu::always_inline]] static void add_group(const std::byte* const* groups, const WholeGroup& chunks,
                                               const Xs& xs, __m512i (*dot)[M]) {
    add_four_chunks<GroupedQ6_K, M, R>(groups, chunks, xs, dot);
  }
};

// IQ4_NL: grid lanes under Q4_0's f16 scales.
struct GroupedIQ4_NL : Iq4GridLanes, BlockScale {
  static constexpr int32_t kShift = 128;
};

// IQ4_XS: lanes are sub-blocks of 32, 8 a super-block, whose header is d
// (f16), scales_h and scales_l (8 bytes); w = d (s - 32) v, s sub-block j's
// 6 bits: nibble j of scales_l (a u32) and bits 2j..2j+1 of scales_h.
struct GroupedIQ4_XS : Iq4GridLanes {
  static constexpr int32_t kShift = 128;
  static constexpr bool kMin = false;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 8 * (n_lanes / 8); }
  static Scales scales(const std::byte* row, size_t g, __mmask16 lanes) {
    // Lanes 0-7 take the first super-block's header, 8-15 the second's
    // (absent in a row's last group of 8): words 0 and 2 are d | scales_h
    // << 16, words 1 and 3 scales_l.
    const __m512i headers = _mm512_castsi128_si512(_mm_maskz_loadu_epi64(lanes == 0xffff ? 3 : 1, row + 8 * (g / 8)));
    const __m512i d_high = _mm512_permutexvar_epi32(_mm512_set_epi32(2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0), headers);
    const __m512i low = _mm512_permutexvar_epi32(_mm512_set_epi32(3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), headers);
    const __m512i j = _mm512_set_epi32(7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i s = _mm512_or_si512(
        _mm512_and_si512(_mm512_srlv_epi32(low, _mm512_slli_epi32(j, 2)), _mm512_set1_epi32(0xf)),
        _mm512_slli_epi32(
            _mm512_and_si512(_mm512_srlv_epi32(d_high, _mm512_add_epi32(_mm512_slli_epi32(j, 1), _mm512_set1_epi32(16))),
                             _mm512_set1_epi32(3)),
            4));
    const __m512 d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(d_high));
    return {_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(s, _mm512_set1_epi32(32))), d), _mm512_setzero_ps()};
  }
};

// Q6_K staged (StagedGemv): each chunk's six bits as bytes, by
// GroupedQ6_K's own unpacking, 4 chunks of 64 a group (192 bytes grouped),
// after the headers as grouped, padded to a cache line. A whole tile from
// L2 ran 1.28x as fast in pairs, 1.05x one row at a time (2048 columns,
// one thread, AMD EPYC Zen 5). Five-bit lanes as bytes were no faster than
// unpacking them.
struct StagedQ6_K : GroupedQ6_K {
  static constexpr size_t kLaneBytes = 16;
  static size_t stride(size_t cols) { return q6_k_staged_stride(cols); }
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + q6_k_staged_headers(n_lanes); }
  template <size_t M>
  [[gnu::always_inline]] static __m512i chunk(const WholeGroup& chunks, const std::byte* group, unsigned k) {
    return load_chunks<M>(chunks, group + 64 * k);
  }
  template <size_t M, size_t R, typename Xs>
  [[gnu::always_inline]] static void add_group(const std::byte* const* groups, const WholeGroup& chunks,
                                               const Xs& xs, __m512i (*dot)[M]) {
    add_four_chunks<StagedQ6_K, M, R>(groups, chunks, xs, dot);
  }
  static void stage(const std::byte* w, size_t stride, size_t cols, size_t n_rows, std::byte* out) {
    stage_q6_k_rows(w, stride, cols, n_rows, out, [](const std::byte* group, std::byte* bytes) {
      for (unsigned k = 0; k < 4; ++k) _mm512_store_si512(bytes + 64 * k, six_bits(group, k));
    });
  }
};

// One block per step: max|x| over two zmm, then vcvtps2dq (round to nearest
// even under the default MXCSR) and vpmovdb. Bit-identical to the scalar
// quantizer: same division, same products, same rounding.
void quantize_q8_32(const float* x, void* blocks, size_t n_blocks) {
  auto* out = static_cast<BlockQ8Act*>(blocks);
  for (size_t b = 0; b < n_blocks; ++b, x += 32) {
    const __m512 lo = _mm512_loadu_ps(x), hi = _mm512_loadu_ps(x + 16);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
    BlockQ8Act& block = out[b];
    block.d = amax / 127.0f;
    const __m512 inverse = _mm512_set1_ps(block.d != 0.0f ? 1.0f / block.d : 0.0f);
    const __m512i q_lo = _mm512_cvtps_epi32(_mm512_mul_ps(lo, inverse));
    const __m512i q_hi = _mm512_cvtps_epi32(_mm512_mul_ps(hi, inverse));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(block.qs), _mm512_cvtepi32_epi8(q_lo));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(block.qs + 16), _mm512_cvtepi32_epi8(q_hi));
    block.sum = _mm512_reduce_add_epi32(_mm512_add_epi32(q_lo, q_hi));
  }
}

float read_sum(const float* data, size_t n) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  __m512 acc2 = _mm512_setzero_ps(), acc3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    prefetch_ahead(data + i, 64 * sizeof(float));
    acc0 = _mm512_add_ps(acc0, _mm512_loadu_ps(data + i));
    acc1 = _mm512_add_ps(acc1, _mm512_loadu_ps(data + i + 16));
    acc2 = _mm512_add_ps(acc2, _mm512_loadu_ps(data + i + 32));
    acc3 = _mm512_add_ps(acc3, _mm512_loadu_ps(data + i + 48));
  }
  for (; i + 16 <= n; i += 16) acc0 = _mm512_add_ps(acc0, _mm512_loadu_ps(data + i));
  if (i < n) acc1 = _mm512_add_ps(acc1, _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << (n - i)) - 1), data + i));
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
}

// Floats on the file's rows; the integer formats regrouped only (GemvMatrix
// copies them at load, so a kernel for the file's layout would never run).
constexpr FormatGemv kFormats[] = {
    {TensorType::F32, gemv_float<F32>, nullptr, 0},
    {TensorType::F16, gemv_float<F16>, nullptr, 0},
    {TensorType::Q4_0, nullptr, gemv_grouped_batch<GroupedQ4_0>, GroupedQ4_0::kShift, true},
    {TensorType::Q4_1, nullptr, gemv_grouped_batch<GroupedQ4_1>, GroupedQ4_1::kShift, true},
    {TensorType::Q5_0, nullptr, gemv_grouped_batch<GroupedQ5_0>, GroupedQ5_0::kShift, true},
    {TensorType::Q5_1, nullptr, gemv_grouped_batch<GroupedQ5_1>, GroupedQ5_1::kShift, true},
    {TensorType::Q8_0, nullptr, gemv_grouped_batch<GroupedQ8_0>, GroupedQ8_0::kShift, true},
    {TensorType::Q2_K, nullptr, gemv_grouped_q2_k, kGroupedQ2KShift, true, &kStagedQ2_K},
    {TensorType::Q3_K, nullptr, gemv_grouped_q3_k, kGroupedQ3KShift, true, &kStagedQ3_K},
    {TensorType::Q4_K, nullptr, gemv_grouped_batch<GroupedQ4_K>, GroupedQ4_K::kShift, true,
     &kStaged<DecodedScales<GroupedQ4_K>>},
    {TensorType::Q5_K, nullptr, gemv_grouped_batch<GroupedQ5_K>, GroupedQ5_K::kShift, true,
     &kStaged<DecodedScales<GroupedQ5_K>>},
    {TensorType::Q6_K, nullptr, gemv_grouped_batch<GroupedQ6_K>, GroupedQ6_K::kShift, true, &kStaged<StagedQ6_K>},
    {TensorType::IQ4_NL, nullptr, gemv_grouped_batch<GroupedIQ4_NL>, GroupedIQ4_NL::kShift, true},
    {TensorType::IQ4_XS, nullptr, gemv_grouped_batch<GroupedIQ4_XS>, GroupedIQ4_XS::kShift, true,
     &kStaged<DecodedScales<GroupedIQ4_XS>>},
    {TensorType::BF16, gemv_float<BF16>, nullptr, 0},
};

}  // namespace

constinit const GemvKernels kAvx512Kernels{
    .formats = kFormats,
    .n_formats = sizeof(kFormats) / sizeof(kFormats[0]),
    .quantize = {nullptr, quantize_q8_32},
    .read_sum = read_sum,
};

}  // namespace pdbench::gemv_detail
