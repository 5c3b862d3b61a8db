// Q2_K, Q3_K and Q6_K gemv kernels for AVX2: the grouped-rows kernel
// (gemv_avx2_grouped.h) on their lanes of 16 (grouped_rows.h), listed in
// gemv_avx2.cpp's formats. Built with the AVX2 flags
// (engine/kernels/CMakeLists.txt), in a file of their own to keep that one
// short. A group is one super-block, its 16 sub-blocks the lanes, always
// whole; a half-group is 8 of its sub-blocks.
#include <cstdint>
#include <cstring>

#include "engine/kernels/gemv_avx2_grouped.h"
#include "engine/kernels/k_scales.h"
#include "engine/kernels/staged_q6_k.h"

namespace pdbench::gemv_detail::PDBENCH_AVX2_KERNELS {

namespace {

// Plane p of a chunk of 2-bit quants (bits 2p of each byte): weights
// 4p..4p+3 of each lane, which meet the activation's chunk p.
__m256i crumb_plane(__m256i chunk, unsigned p) {
  return _mm256_and_si256(_mm256_srli_epi16(chunk, 2 * p), _mm256_set1_epi8(0x03));
}

// 8 sub-blocks' int32 values times an f16 scale.
__m256 scaled(__m256i ints, uint16_t f16_scale) {
  return _mm256_mul_ps(_mm256_cvtepi32_ps(ints), _mm256_set1_ps(_cvtsh_ss(f16_scale)));
}

// 8 bytes at p widened to int32.
__m256i bytes_at(const std::byte* p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))); }

// Lanes of 16, kBytes each, after the row's headers, kHeader bytes a
// super-block (one group); q + kUnsignedShift unsigned, and a min or not.
template <size_t kHeader, size_t kBytes, int32_t kUnsignedShift, bool kHasMin>
struct SuperBlockLanes {
  static constexpr size_t kLane = 16, kLaneBytes = kBytes;
  static constexpr int32_t kShift = kUnsignedShift;
  static constexpr bool kMin = kHasMin;
  static constexpr bool kWholeGroups = true;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + kHeader * (n_lanes / 16); }
  static const std::byte* header(const std::byte* row, size_t lane) { return row + kHeader * (lane / 16); }
};

// Q2_K: header 16 bytes of scales (4-bit sc low, 4-bit m high) then d and
// dmin; q in 0..3 unsigned as stored, w = d sc q - dmin m, the min times
// the activation's lane sums.
struct GroupedQ2_K : SuperBlockLanes<20, 4, kGroupedQ2KShift, true> {
  static HalfScales scales(const std::byte* row, size_t lane, size_t /*n: always 8*/) {
    const std::byte* h = header(row, lane);
    uint16_t d_dmin[2];
    std::memcpy(d_dmin, h + 16, sizeof(d_dmin));
    const __m256i sc = bytes_at(h + lane % 16);
    return {scaled(_mm256_and_si256(sc, _mm256_set1_epi32(0x0f)), d_dmin[0]), scaled(_mm256_srli_epi32(sc, 4), d_dmin[1])};
  }
  template <size_t M>
  [[gnu::always_inline]] static void add_chunks(const std::byte* group, const Half<true>& half,
                                                const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                __m256i* /*dot: 4 chunks of q <= 3 need no drain*/) {
    const __m256i crumbs = half.load(group, 0);
#pragma GCC unroll 4
    for (unsigned p = 0; p < 4; ++p) meet<M, false>(crumb_plane(crumbs, p), xs, x_at, half, p, pairs);
  }
};

// Q3_K: header its 12 bytes of packed 6-bit scales (k_scales.h), then d; q
// = low 2 bits + 4 x high bit, unsigned in 0..7 (q - 4 is the weight), the
// offsets are -4 sum x. The lanes' high bits, 2 bytes a lane after the
// crumbs' chunk, are spread so that byte i of a lane holds nibble i (the
// high bits of weights i, 4+i, 8+i, 12+i: grouped_rows.h): each byte
// widened to a word, whose high byte then takes its high nibble. Plane p
// takes bit p of each byte to bit 2.
struct GroupedQ3_K : SuperBlockLanes<14, 6, kGroupedQ3KShift, false> {
  static HalfScales scales(const std::byte* row, size_t lane, size_t /*n: always 8*/) {
    const std::byte* h = header(row, lane);
    uint16_t d;
    std::memcpy(&d, h + 12, sizeof(d));
    const __m128i sixteen = unpack_q3_k_scales(h);
    const __m256i sc = _mm256_cvtepu8_epi32(lane % 16 == 0 ? sixteen : _mm_srli_si128(sixteen, 8));
    return {scaled(_mm256_sub_epi32(sc, _mm256_set1_epi32(32)), d), _mm256_setzero_ps()};
  }
  static __m256i at_bit2(__m256i high, unsigned p) {
    return p == 0 ? _mm256_slli_epi32(high, 2) : p == 1 ? _mm256_slli_epi32(high, 1) : p == 2 ? high : _mm256_srli_epi32(high, 1);
  }
  template <size_t M>
  [[gnu::always_inline]] static void add_chunks(const std::byte* group, const Half<true>& half,
                                                const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                __m256i* /*dot: 4 chunks of q <= 7 need no drain*/) {
    const __m256i crumbs = half.load(group, 0);
    const __m256i words =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(group + 64 + half.at / 2)));
    const __m256i high = _mm256_or_si256(words, _mm256_slli_epi16(words, 4));
    const __m256i bit2 = _mm256_set1_epi8(0x04);
#pragma GCC unroll 4
    for (unsigned p = 0; p < 4; ++p)
      meet<M, false>(_mm256_or_si256(crumb_plane(crumbs, p), _mm256_and_si256(at_bit2(high, p), bit2)), xs, x_at, half,
                     p, pairs);
  }
};

// A Q6_K half-group's 4 chunks into its pairs, chunk k's quants as
// Format::six_bits gives them, drained after 2 (six bits).
template <typename Format, size_t M>
[[gnu::always_inline]] inline void add_six_bit_chunks(const std::byte* group, const Half<true>& half,
                                                      const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                      __m256i* dot) {
#pragma GCC unroll 4
  for (unsigned k = 0; k < 4; ++k) {
    meet<M, false>(Format::six_bits(group, half, k), xs, x_at, half, k, pairs);
    if (k == 1) drain<M>(pairs, dot);
  }
}

// Q6_K: header 16 signed scales and d (18 bytes); 6-bit q in 3 chunks
// (grouped_rows.h) that make 4 of 4 bytes a lane; q is unsigned, w = d sc
// (q - 32), the offsets are -32 sum x.
struct GroupedQ6_K : SuperBlockLanes<18, 12, kGroupedQ6KShift, false> {
  static HalfScales scales(const std::byte* row, size_t lane, size_t /*n: always 8*/) {
    const std::byte* h = header(row, lane);
    uint16_t d;
    std::memcpy(&d, h + 16, sizeof(d));
    const __m256i sc = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(h + lane % 16)));
    return {scaled(sc, d), _mm256_setzero_ps()};
  }
  // Chunk k's six-bit quants, half.at's 8 lanes of them: the low six bits
  // of chunks 0-2, or (chunk 3) their top two moved to 0-1, 2-3 and 4-5.
  [[gnu::always_inline]] static __m256i six_bits(const std::byte* group, const Half<true>& half, unsigned k) {
    if (k < 3) return _mm256_and_si256(half.load(group, k), _mm256_set1_epi8(0x3f));
    const __m256i c0 = _mm256_srli_epi16(half.load(group, 0), 6);
    const __m256i c1 = _mm256_srli_epi16(half.load(group, 1), 4);
    const __m256i c2 = _mm256_srli_epi16(half.load(group, 2), 2);
    return _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(c0, _mm256_set1_epi8(0x03)),
                                           _mm256_and_si256(c1, _mm256_set1_epi8(0x0c))),
                           _mm256_and_si256(c2, _mm256_set1_epi8(0x30)));
  }
  template <size_t M>
  [[gnu::always_inline]] static void add_chunks(const std::byte* group, const Half<true>& half,
                                                const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                __m256i* dot) {
    add_six_bit_chunks<GroupedQ6_K, M>(group, half, xs, x_at, pairs, dot);
  }
};

// Q6_K staged (StagedGemv): each chunk's six bits as bytes, 4 chunks of 64
// a group (192 bytes grouped), after the headers as grouped, padded to a
// cache line. A whole tile from L2 ran 1.26x as fast (1.11x with AVX-VNNI;
// one thread, 2048 columns, AMD EPYC Zen 5).
struct StagedQ6_K : GroupedQ6_K {
  static constexpr size_t kLaneBytes = 16;
  static size_t stride(size_t cols) { return q6_k_staged_stride(cols); }
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + q6_k_staged_headers(n_lanes); }
  [[gnu::always_inline]] static __m256i six_bits(const std::byte* group, const Half<true>& half, unsigned k) {
    return half.load(group, k);
  }
  template <size_t M>
  [[gnu::always_inline]] static void add_chunks(const std::byte* group, const Half<true>& half,
                                                const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                __m256i* dot) {
    add_six_bit_chunks<StagedQ6_K, M>(group, half, xs, x_at, pairs, dot);
  }
  static void stage(const std::byte* w, size_t stride, size_t cols, size_t n_rows, std::byte* out) {
    stage_q6_k_rows(w, stride, cols, n_rows, out, [](const std::byte* group, std::byte* bytes) {
      for (size_t h = 0; h < 2; ++h)
        for (unsigned k = 0; k < 4; ++k)
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(bytes + 64 * k + 32 * h),
                              GroupedQ6_K::six_bits(group, {32 * h, 64, _mm256_set1_epi32(-1)}, k));
    });
  }
};

}  // namespace

void gemv_grouped_q2_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read) {
  gemv_grouped_batch<GroupedQ2_K>(w, stride, cols, xs, n_x, y, y_stride, n_rows, read);
}

void gemv_grouped_q3_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read) {
  gemv_grouped_batch<GroupedQ3_K>(w, stride, cols, xs, n_x, y, y_stride, n_rows, read);
}

void gemv_grouped_q6_k(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                       float* y, size_t y_stride, size_t n_rows, RowRead read) {
  gemv_grouped_batch<GroupedQ6_K>(w, stride, cols, xs, n_x, y, y_stride, n_rows, read);
}

constinit const StagedGemv kStagedQ6_K = kStaged<StagedQ6_K>;
// Q2_K's and Q3_K's scales decoded once per block: a whole tile from L2 ran
// 1.08x and 1.25x as fast (1.11-1.18x and 1.33x with AVX-VNNI; one thread,
// 2048 columns, AMD EPYC Zen 5).
constinit const StagedGemv kStagedQ2_K = kStaged<DecodedScales<GroupedQ2_K>>;
constinit const StagedGemv kStagedQ3_K = kStaged<DecodedScales<GroupedQ3_K>>;

}  // namespace pdbench::gemv_detail::PDBENCH_AVX2_KERNELS
