// Q2_K and Q3_K gemv kernels for AVX-512 VNNI: the grouped-rows kernel
// (gemv_avx512_grouped.h) on their lanes of 16 (grouped_rows.h), listed in
// gemv_avx512.cpp's formats. Built with the AVX-512 flags
// (engine/kernels/CMakeLists.txt), in a file of their own to keep that one
// short.
#include <cstdint>
#include <cstring>

#include "engine/kernels/gemv_avx512_grouped.h"
#include "engine/kernels/k_scales.h"

namespace pdbench::gemv_detail {

namespace {

// A group is one super-block, its 16 sub-blocks the lanes; its first chunk
// holds every lane's 2-bit quants, plane p (bits 2p of each byte) weights
// 4p..4p+3 of each lane, which meet the activation's chunk p.
__m512i crumb_plane(__m512i chunk, unsigned p) {
  return _mm512_and_si512(_mm512_srli_epi16(chunk, 2 * p), _mm512_set1_epi8(0x03));
}

// The four planes' quants of R rows (plane(r, p), unsigned bytes) into
// every activation's dot products. Always inlined: GCC 12 called it for
// Q3_K, passing the lambda's captured vectors through the stack, which
// cost that kernel 1.9x its time (BM_gemv q3_K_grouped, Llama-3.2-1B
// gate/up).
template <size_t M, size_t R, typename Plane, typename Xs>
[[gnu::always_inline]] inline void add_planes(const Xs& xs, const WholeGroup& chunks, __m512i (*dot)[M],
                                              Plane plane) {
#pragma GCC unroll 4
  for (unsigned p = 0; p < 4; ++p) {
    __m512i q[R];
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) q[r] = plane(r, p);
    meet<M, R>(q, xs, chunks, p, dot);
  }
}

__m512 scaled(__m512i ints, uint16_t f16_scale) {
  return _mm512_mul_ps(_mm512_cvtepi32_ps(ints), _mm512_set1_ps(_cvtsh_ss(f16_scale)));
}

// Lanes of 16, kBytes each, after the row's headers, kHeader bytes a
// super-block (one group); q + kUnsignedShift unsigned, and a min or not.
template <size_t kHeader, size_t kBytes, int32_t kUnsignedShift, bool kHasMin>
struct SuperBlockLanes {
  static constexpr size_t kLane = 16, kLaneBytes = kBytes;
  static constexpr size_t kMostPerLoad = 0;  // a group is a super-block
  static constexpr int32_t kShift = kUnsignedShift;
  static constexpr bool kMin = kHasMin;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + kHeader * (n_lanes / 16); }
  static const std::byte* header(const std::byte* row, size_t g) { return row + kHeader * (g / 16); }
};

// Q2_K: header 16 bytes of scales (4-bit sc low, 4-bit m high) then d and
// dmin; q in 0..3 unsigned as stored, w = d sc q - dmin m, the min times
// the activation's lane sums.
struct GroupedQ2_K : SuperBlockLanes<20, 4, kGroupedQ2KShift, true> {
  static Scales scales(const std::byte* row, size_t g, __mmask16 /*lanes: always 16*/) {
    const std::byte* h = header(row, g);
    uint16_t d_dmin[2];
    std::memcpy(d_dmin, h + 16, sizeof(d_dmin));
    const __m512i sc = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)));
    return {scaled(_mm512_and_si512(sc, _mm512_set1_epi32(0x0f)), d_dmin[0]),
            scaled(_mm512_srli_epi32(sc, 4), d_dmin[1])};
  }
  template <size_t M, size_t R, typename Xs>
  [[gnu::always_inline]] static void add_group(const std::byte* const* groups, const WholeGroup& chunks,
                                               const Xs& xs, __m512i (*dot)[M]) {
    __m512i crumbs[R];
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) crumbs[r] = _mm512_loadu_si512(groups[r]);
    add_planes<M, R>(xs, chunks, dot, [&](size_t r, unsigned p) { return crumb_plane(crumbs[r], p); });
  }
};

// Q3_K: header its 12 bytes of packed 6-bit scales (k_scales.h), then d; q = low 2 bits
// + 4 x high bit, unsigned in 0..7 (q - 4 is the weight), the offsets are
// -4 sum x. The lanes' high bits, 16 each in a chunk of 2 bytes a lane,
// spread so that byte i holds nibble i (the high bits of weights i, 4+i,
// 8+i, 12+i: grouped_rows.h), and plane p takes bit p of each byte to bit 2.
struct GroupedQ3_K : SuperBlockLanes<14, 6, kGroupedQ3KShift, false> {
  static Scales scales(const std::byte* row, size_t g, __mmask16 /*lanes: always 16*/) {
    const std::byte* h = header(row, g);
    uint16_t d;
    std::memcpy(&d, h + 12, sizeof(d));
    const __m512i sc = _mm512_cvtepu8_epi32(unpack_q3_k_scales(h));
    return {scaled(_mm512_sub_epi32(sc, _mm512_set1_epi32(32)), d), _mm512_setzero_ps()};
  }
  // Byte i of each lane's 4 gets nibble i of its 2 bytes of high bits in
  // its low 4 bits: each byte widened to a word, whose high byte then takes
  // its high nibble. The bits above are left for at_bit2's mask to drop.
  static __m512i high_nibbles(const std::byte* group) {
    const __m512i words = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(group + 64)));
    return _mm512_or_si512(words, _mm512_slli_epi16(words, 4));
  }
  // Bit p of each byte of `high` moved to bit 2.
  static __m512i at_bit2(__m512i high, unsigned p) {
    return p == 0 ? _mm512_slli_epi32(high, 2) : p == 1 ? _mm512_slli_epi32(high, 1) : p == 2 ? high : _mm512_srli_epi32(high, 1);
  }
  template <size_t M, size_t R, typename Xs>
  [[gnu::always_inline]] static void add_group(const std::byte* const* groups, const WholeGroup& chunks,
                                               const Xs& xs, __m512i (*dot)[M]) {
    __m512i crumbs[R], high[R];
#pragma GCC unroll 4
    for (size_t r = 0; r < R; ++r) {
      crumbs[r] = _mm512_loadu_si512(groups[r]);
      high[r] = high_nibbles(groups[r]);
    }
    const __m512i bit2 = _mm512_set1_epi8(0x04);
    add_planes<M, R>(xs, chunks, dot, [&](size_t r, unsigned p) {
      return _mm512_or_si512(crumb_plane(crumbs[r], p), _mm512_and_si512(at_bit2(high[r], p), bit2));
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

// Their scales decoded once per block: a whole tile from L2 ran 1.07x as
// fast (Q2_K, whose 84 bytes a group become 192) and 1.18x (Q3_K), 512
// tokens through Llama-3.2-1B's gate/up 1.03x and 1.13x (BM_gemm_rows, one
// thread, AMD EPYC Zen 5).
constinit const StagedGemv kStagedQ2_K = kStaged<DecodedScales<GroupedQ2_K>>;
constinit const StagedGemv kStagedQ3_K = kStaged<DecodedScales<GroupedQ3_K>>;

}  // namespace pdbench::gemv_detail
