// gemv kernels for AVX2 + FMA + F16C, 8 f32 lanes. The only file built with
// -mavx2 -mfma -mf16c (engine/kernels/CMakeLists.txt); see gemv_isa.h for why
// it keeps to raw pointers and intrinsics.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/kernels/gemv_isa.h"
#include "engine/kernels/k_scales.h"

namespace pdbench::gemv_detail {

namespace {

// Software prefetch this far ahead of the loads, as in gemv_avx512.cpp
// (where the measurements are).
constexpr size_t kPrefetchBytes = 4096;

// Prefetches the cache lines of [p, p + bytes) kPrefetchBytes ahead.
void prefetch_ahead(const void* p, size_t bytes) {
  for (size_t line = 0; line < bytes; line += 64)
    _mm_prefetch(static_cast<const char*>(p) + kPrefetchBytes + line, _MM_HINT_T0);
}

float hsum(__m256 v) {
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

float f16_scale(const std::byte* block) {
  uint16_t h;
  std::memcpy(&h, block, sizeof(h));
  return _cvtsh_ss(h);
}

// Loaders: 8 stored elements to f32, and one for the scalar tail.
struct F32 {
  static constexpr size_t kBytes = 4;
  static __m256 load8(const std::byte* p) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p)); }
  static float load1(const std::byte* p) {
    float v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
};
struct F16 {
  static constexpr size_t kBytes = 2;
  static __m256 load8(const std::byte* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static float load1(const std::byte* p) { return f16_scale(p); }
};
// bf16 is the top half of an f32: widen and shift left by 16.
struct BF16 {
  static constexpr size_t kBytes = 2;
  static __m256 load8(const std::byte* p) {
    const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
  }
  static float load1(const std::byte* p) {
    uint16_t h;
    std::memcpy(&h, p, sizeof(h));
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  }
};

// Four accumulators: FMA latency 4 x 2 ports wants 8 in flight for peak, but
// 4 already retire 32 elements per 4 cycles, above what memory delivers.
template <typename Stored>
void gemv_float(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y, size_t n_rows) {
  const auto* x = static_cast<const float*>(activation);
  for (size_t r = 0; r < n_rows; ++r) {
    const std::byte* row = w + r * stride;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
    size_t c = 0;
    for (; c + 32 <= cols; c += 32) {
      prefetch_ahead(row + c * Stored::kBytes, 32 * Stored::kBytes);
      acc0 = _mm256_fmadd_ps(Stored::load8(row + c * Stored::kBytes), _mm256_loadu_ps(x + c), acc0);
      acc1 = _mm256_fmadd_ps(Stored::load8(row + (c + 8) * Stored::kBytes), _mm256_loadu_ps(x + c + 8), acc1);
      acc2 = _mm256_fmadd_ps(Stored::load8(row + (c + 16) * Stored::kBytes), _mm256_loadu_ps(x + c + 16), acc2);
      acc3 = _mm256_fmadd_ps(Stored::load8(row + (c + 24) * Stored::kBytes), _mm256_loadu_ps(x + c + 24), acc3);
    }
    for (; c + 8 <= cols; c += 8)
      acc0 = _mm256_fmadd_ps(Stored::load8(row + c * Stored::kBytes), _mm256_loadu_ps(x + c), acc0);
    float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
    for (; c < cols; ++c) sum += Stored::load1(row + c * Stored::kBytes) * x[c];
    y[r] = sum;
  }
}

// maddubs multiplies u8 by s8 and adds pairs into s16; madd with ones then
// adds pairs of those into s32: the 32-lane byte dot product in 8 s32 lanes.
__m256i dot_u8_s8(__m256i u, __m256i s) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}

// s8 x s8 by the sign trick: |w| as u8 times x with w's sign. Exact for every
// w in [-128, 127] (|-128| = 128 as u8) because x is never -128; a pair sums
// to at most 2 * 128 * 127 = 32512, inside maddubs's s16 saturation.
__m256i dot_s8_s8(__m256i w, const BlockQ8Act& x) {
  const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs));
  return dot_u8_s8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(xq, w));
}

__m256 q8_0_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2));
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_s8_s8(q, *x)), _mm256_set1_ps(f16_scale(block) * x->d), acc);
}

// Weights 0..15 of a block of 32 with nibbles (Q4_0 to Q5_1) are the low
// nibbles of its 16 bytes, 16..31 the high ones: byte j of the result is
// weight j's nibble.
__m256i nibbles(const std::byte* qs) {
  const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0x0f));
}

// Q5_0/Q5_1's 32 fifth bits (bit j of qh is weight j's) as 0x10 in byte j:
// each byte takes the qh byte of its weight, keeps its own bit and turns
// it into 0x10 by a compare.
__m256i fifth_bits(const std::byte* qh) {
  uint32_t bits;
  std::memcpy(&bits, qh, sizeof(bits));
  const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)),
                                             _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202,
                                                                0x0303030303030303));
  const __m256i own_bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201));
  const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, own_bit), own_bit);
  return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

// Q4_0 to Q5_1: q is u8 in [0, 31], so maddubs takes it as it is (pairs
// reach 2 * 31 * 127, far from saturating), and the offset (w = d (q -
// kOffset)) is taken off afterwards: sum (q - o) x = sum q x - o sum x, as
// -(o / 8) sum x in each of 8 lanes. The formats with a min (w = d q + m)
// add m times the activation's d sum, in lane 0.
template <typename Block, int32_t kOffset>
__m256 legacy_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  static_assert(kOffset % 8 == 0);
  __m256i q = nibbles(block + offsetof(Block, qs));
  if constexpr (requires { Block::qh; }) q = _mm256_or_si256(q, fifth_bits(block + offsetof(Block, qh)));
  const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x->qs));
  const __m256i dot = _mm256_sub_epi32(dot_u8_s8(q, xq), _mm256_set1_epi32(kOffset / 8 * x->sum));
  acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(f16_scale(block) * x->d), acc);
  if constexpr (requires { Block::m; }) {
    const float min = f16_scale(block + offsetof(Block, m)) * (x->d * static_cast<float>(x->sum));
    acc = _mm256_add_ps(acc, _mm256_setr_ps(min, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f));
  }
  return acc;
}

// IQ4's grid values at 32 nibbles (nibbles()), by a byte shuffle: s8, so
// they meet x by the sign trick (dot_s8_s8; |v| <= 127).
__m256i iq4_values(const std::byte* qs) {
  const __m256i grid = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4NlValues)));
  return _mm256_shuffle_epi8(grid, nibbles(qs));
}

// IQ4_NL: d times the block's dot product.
__m256 iq4_nl_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  const __m256i dot = dot_s8_s8(iq4_values(block + offsetof(BlockIQ4_NL, qs)), *x);
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(f16_scale(block) * x->d), acc);
}

// Bit `from` of every byte moved to bit `to`, its other bits cleared, by
// one 16-bit shift: what lands in bit `to` always comes from the same
// byte. Q3_K's and Q5_K's high bits, bit j of their bytes for block j.
__m256i bit_to(__m256i bytes, unsigned from, unsigned to) {
  const __m256i moved = from <= to ? _mm256_sll_epi16(bytes, _mm_cvtsi32_si128(static_cast<int>(to - from)))
                                   : _mm256_srl_epi16(bytes, _mm_cvtsi32_si128(static_cast<int>(from - to)));
  return _mm256_and_si256(moved, _mm256_set1_epi8(static_cast<char>(1u << to)));
}

// Q2_K and Q3_K, a super-block at a time: x is the first of the 8
// activation blocks it meets. Activation block a's weights have their 2
// low bits in bytes 32 (a / 4) .. + 31 at bits 2 (a % 4) (crumb_at), one
// byte a weight, and Q3_K's high bits in hmask's 32 bytes at bit a
// (high_bit_at). maddubs takes q unsigned (Q3_K's in 0..7) into pairs of
// int16 (at most 2 * 7 * 127), the low 128 bits sub-block 2a's, the high
// ones 2a + 1's, and madd weighs them by their scales (SubBlockValues):
// ggml's integer sum per sub-block pair, then one FMA by
// d and the activation's d per block (vec_dot_q2_K_q8_K, vec_dot_q3_K_q8_K
// over blocks of 256). Reduced into one vector first as Q4_K to Q6_K are
// (lane_sums), Q2_K ran 3-5% and Q3_K 22% slower: their quants' unpacking
// holds more registers.
__m256i low_crumbs(const std::byte* qs, unsigned a) {
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + 32 * (a / 4)));
  return _mm256_and_si256(_mm256_srl_epi16(bytes, _mm_cvtsi32_si128(static_cast<int>(2 * (a % 4)))),
                          _mm256_set1_epi8(0x03));
}

// The K-quants' super-block meets 8 activation blocks, whose integer dot
// products (8 lanes each) are scaled once, in one multiply-add for all 8,
// instead of by a broadcast scalar each. by_block(a) gives block a's; they
// are reduced two at a time as they come (8 held at once spill AVX2's 16
// registers): the hadds leave block a's sum split between lane a % 4 of the
// low half (a < 4) or the high half, as [0 1 2 3 | 0 1 2 3] and
// [4 5 6 7 | 4 5 6 7], and lane a of the result is the whole sum.
template <typename ByBlock>
__m256i lane_sums(ByBlock by_block) {
  __m256i pairs[4];
#pragma GCC unroll 4
  for (unsigned p = 0; p < 4; ++p) pairs[p] = _mm256_hadd_epi32(by_block(2 * p), by_block(2 * p + 1));
  const __m256i q0123 = _mm256_hadd_epi32(pairs[0], pairs[1]), q4567 = _mm256_hadd_epi32(pairs[2], pairs[3]);
  return _mm256_add_epi32(_mm256_permute2x128_si256(q0123, q4567, 0x20),
                          _mm256_permute2x128_si256(q0123, q4567, 0x31));
}

// 8 activation blocks' d and sum, lane a block a's: each block's d and sum
// (8 bytes) loaded as one, the pairs set side by side and split by two
// shuffles. By two gathers instead, Q4_K's decode took 746 us where
// without them (a ceiling, wrong results) it took 520 (BM_gemv, Llama-3.2-1B
// gate/up, 1 thread, AMD EPYC Zen 4).
struct ActivationScales {
  __m256 d;
  __m256 sum;
};
ActivationScales activation_scales(const BlockQ8Act* x) {
  static_assert(offsetof(BlockQ8Act, sum) == offsetof(BlockQ8Act, d) + 4);
  const auto two = [x](unsigned a) {  // d_a sum_a d_a+1 sum_a+1
    return _mm_castsi128_ps(_mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&x[a].d)),
                                               _mm_loadl_epi64(reinterpret_cast<const __m128i*>(&x[a + 1].d))));
  };
  const __m256 even = _mm256_set_m128(two(4), two(0)), odd = _mm256_set_m128(two(6), two(2));
  return {_mm256_shuffle_ps(even, odd, _MM_SHUFFLE(2, 0, 2, 0)),
          _mm256_cvtepi32_ps(_mm256_castps_si256(_mm256_shuffle_ps(even, odd, _MM_SHUFFLE(3, 1, 3, 1))))};
}

// acc + lane_sums(by_block) x d x_a.d: a super-block's 8 scaled integer dot products.
template <typename ByBlock>
__m256 add_scaled(__m256 acc, ByBlock by_block, float d, __m256 x_d) {
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(lane_sums(by_block)), _mm256_mul_ps(_mm256_set1_ps(d), x_d), acc);
}

// Byte shuffles that spread block a's two sub-block values from 8 int16
// held in both 128-bit halves: word 2a % 8 over the low half, word
// (2a + 1) % 8 over the high one.
struct HalfScaleShuffles {
  alignas(32) uint8_t control[4][32];
};
constexpr HalfScaleShuffles half_scale_shuffles() {
  HalfScaleShuffles h{};
  for (unsigned a = 0; a < 4; ++a)
    for (unsigned i = 0; i < 32; ++i) {
      const unsigned word = 2 * a + i / 16;
      h.control[a][i] = static_cast<uint8_t>(2 * word + i % 2);
    }
  return h;
}
inline constexpr HalfScaleShuffles kHalfScaleShuffles = half_scale_shuffles();

// A super-block's 16 sub-block values (scales or mins, int16), held as 0-7
// and 8-15 each in both 128-bit halves, so that activation block a's two,
// sub-blocks 2a's over the low half and 2a + 1's over the high one (as
// maddubs pairs them for madd), take one byte shuffle.
struct SubBlockValues {
  __m256i eight[2];
  explicit SubBlockValues(__m256i sixteen)
      : eight{_mm256_permute4x64_epi64(sixteen, 0x44), _mm256_permute4x64_epi64(sixteen, 0xee)} {}
  __m256i of_block(unsigned a) const {
    return _mm256_shuffle_epi8(eight[a / 4],
                               _mm256_load_si256(reinterpret_cast<const __m256i*>(kHalfScaleShuffles.control[a % 4])));
  }
};

// Q2_K: w = d sc q - dmin m; the mins meet x's pair sums (one maddubs by
// ones: BlockQ8Act carries sums of 32, not of the 16 a min covers).
__m256 q2_k_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + offsetof(BlockQ2_K, scales)));
  const __m128i low = _mm_set1_epi8(0x0f);
  const SubBlockValues sc(_mm256_cvtepu8_epi16(_mm_and_si128(packed, low)));
  const SubBlockValues m(_mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), low)));
  const float d = f16_scale(block + offsetof(BlockQ2_K, d)), dmin = f16_scale(block + offsetof(BlockQ2_K, dmin));
#pragma GCC unroll 8
  for (unsigned a = 0; a < 8; ++a) {
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[a].qs));
    const __m256i q = low_crumbs(block + offsetof(BlockQ2_K, qs), a);
    const __m256i scaled = _mm256_madd_epi16(_mm256_maddubs_epi16(q, xq), sc.of_block(a));
    const __m256i mins = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), xq), m.of_block(a));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(scaled), _mm256_set1_ps(d * x[a].d), acc);
    acc = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(mins), _mm256_set1_ps(dmin * x[a].d), acc);
  }
  return acc;
}

// Q3_K: w = d (s - 32) (q - 4), q = low 2 bits + 4 x high bit, unsigned in
// 0..7, so maddubs takes it as it is and the - 4 leaves as 4 x's pair sums
// (one maddubs more, instead of two sign flips); its high bits are hmask's
// bit a.
__m256 q3_k_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  const SubBlockValues sc(_mm256_sub_epi16(_mm256_cvtepu8_epi16(unpack_q3_k_scales(block + offsetof(BlockQ3_K, scales))),
                                           _mm256_set1_epi16(32)));
  const __m256i hmask = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + offsetof(BlockQ3_K, hmask)));
  const float d = f16_scale(block + offsetof(BlockQ3_K, d));
#pragma GCC unroll 8
  for (unsigned a = 0; a < 8; ++a) {
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[a].qs));
    const __m256i q = _mm256_or_si256(low_crumbs(block + offsetof(BlockQ3_K, qs), a), bit_to(hmask, a, 2));
    const __m256i pairs = _mm256_sub_epi16(_mm256_maddubs_epi16(q, xq), _mm256_maddubs_epi16(_mm256_set1_epi8(4), xq));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(pairs, sc.of_block(a))), _mm256_set1_ps(d * x[a].d), acc);
  }
  return acc;
}

// IQ4_XS: each sub-block of 32 meets one activation block, times d (s - 32),
// as Q4_K's: the 8 integer dot products in one vector (lane_sums) and one
// multiply-add by d, the 8 (s - 32) and the activation's 8 d. s is read
// here, not by quant_blocks.h's iq4_xs_scale: an inline function the
// portable files also use must not be compiled with these flags
// (gemv_isa.h). Sub-block by sub-block, each with its scalar scale, it
// took 880-889 us where this takes 792-793 (BM_gemv, Llama-3.2-1B gate/up,
// 1 thread, AMD EPYC Zen 4).
__m256 iq4_xs_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  uint16_t high;
  uint32_t low;
  std::memcpy(&high, block + offsetof(BlockIQ4_XS, scales_h), sizeof(high));
  std::memcpy(&low, block + offsetof(BlockIQ4_XS, scales_l), sizeof(low));
  const __m256i j = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i low4 = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(low)), _mm256_slli_epi32(j, 2)),
                                        _mm256_set1_epi32(0xf));
  const __m256i high2 = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(high), _mm256_slli_epi32(j, 1)),
                                         _mm256_set1_epi32(3));
  const __m256 s = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_or_si256(low4, _mm256_slli_epi32(high2, 4)), _mm256_set1_epi32(32)));
  return add_scaled(acc, [&](unsigned sub) {
    return dot_s8_s8(iq4_values(block + offsetof(BlockIQ4_XS, qs) + 16 * sub), x[sub]);
  }, f16_scale(block), _mm256_mul_ps(s, activation_scales(x).d));
}

// Q4_K and Q5_K: sub-block j of 32 meets activation block j; its quants are
// the low (j even) or high (j odd) nibbles of qs's 32 bytes j / 2, and
// Q5_K's fifth bits are bit j of qh's 32 bytes. q in [0, 31] goes into
// maddubs as it is. w = d sc q - dmin m: the 8 sub-blocks' integer dot
// products meet d sc x_j.d in one multiply-add (lane_sums), the mins'
// dmin m x_j.d x_j.sum in another (vec_dot_q4_K_q8_K, vec_dot_q5_K_q8_K).
template <typename Block>
__m256 q45_k_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  const Q4KHeader h = read_q4_k_header(block);
  const auto bytes8 = [](const uint32_t (&two)[2]) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_set_epi32(0, 0, static_cast<int>(two[1]), static_cast<int>(two[0]))));
  };
  const __m256i low_nibbles = _mm256_set1_epi8(0x0f);
  __m256i qh = _mm256_setzero_si256();
  if constexpr (requires { Block::qh; })
    qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + offsetof(Block, qh)));
  const auto dot = [&](unsigned j) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + offsetof(Block, qs) + 32 * (j / 2)));
    __m256i q = _mm256_and_si256(j % 2 == 0 ? bytes : _mm256_srli_epi16(bytes, 4), low_nibbles);
    if constexpr (requires { Block::qh; }) {
      q = _mm256_or_si256(q, bit_to(qh, j, 4));
    }
    return dot_u8_s8(q, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[j].qs)));
  };
  const auto [x_d, x_sum] = activation_scales(x);
  const float d = f16_scale(block + offsetof(Block, d)), dmin = f16_scale(block + offsetof(Block, dmin));
  // Lanes scaled by their own sc (and less dmin m x.d x.sum): the per-lane
  // factors go into x_d before add_scaled's d.
  acc = add_scaled(acc, dot, d, _mm256_mul_ps(bytes8(h.scale), x_d));
  return _mm256_fnmadd_ps(_mm256_mul_ps(_mm256_set1_ps(dmin), bytes8(h.min)), _mm256_mul_ps(x_d, x_sum), acc);
}

// Q6_K: w = d sc (q - 32), sub-blocks of 16, q's low nibble in ql and its
// high 2 bits in qh placed as Q2_K's quants (low_crumbs). Activation block
// a's weights have their nibbles in ql's 32 bytes 2 (a / 4) + a % 2, low
// for a % 4 < 2, high otherwise. q in 0..63 goes into maddubs unsigned and
// the - 32 leaves as 32 x's pair sums, pairs of int16 (at most 2 * 63 *
// 127), weighed by the signed scales of sub-blocks 2a and 2a + 1
// (vec_dot_q6_K_q8_K).
__m256 q6_k_block(const std::byte* block, const BlockQ8Act* x, __m256 acc) {
  const SubBlockValues sc(
      _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + offsetof(BlockQ6_K, scales)))));
  const float d = f16_scale(block + offsetof(BlockQ6_K, d));
  return add_scaled(acc, [&](unsigned a) {
    const __m256i ql = _mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(block + offsetof(BlockQ6_K, ql) + 32 * (2 * (a / 4) + a % 2)));
    const __m256i low = _mm256_and_si256(_mm256_srl_epi16(ql, _mm_cvtsi32_si128(static_cast<int>(4 * ((a % 4) / 2)))),
                                         _mm256_set1_epi8(0x0f));
    const __m256i q = _mm256_or_si256(low, _mm256_slli_epi16(low_crumbs(block + offsetof(BlockQ6_K, qh), a), 4));
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[a].qs));
    const __m256i pairs = _mm256_sub_epi16(_mm256_maddubs_epi16(q, xq), _mm256_maddubs_epi16(_mm256_set1_epi8(32), xq));
    return _mm256_madd_epi16(pairs, sc.of_block(a));
  }, d, activation_scales(x).d);
}

// Two blocks per step into two accumulators, so consecutive blocks' FMAs do
// not wait on each other. A block meets Block::kElements / 32 activation
// blocks. Flattened: GCC 12 called most formats' BlockDot per block,
// spilling the other accumulator and the constants around each call.
template <typename Block, __m256 (*BlockDot)(const std::byte*, const BlockQ8Act*, __m256)>
[[gnu::flatten]] void gemv_quant(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y, size_t n_rows) {
  const auto* x = static_cast<const BlockQ8Act*>(activation);
  constexpr size_t kActBlocks = Block::kElements / 32;
  const size_t n_blocks = cols / Block::kElements;
  for (size_t r = 0; r < n_rows; ++r) {
    const std::byte* row = w + r * stride;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    size_t b = 0;
    for (; b + 2 <= n_blocks; b += 2) {
      prefetch_ahead(row + b * sizeof(Block), 2 * sizeof(Block));
      acc0 = BlockDot(row + b * sizeof(Block), x + kActBlocks * b, acc0);
      acc1 = BlockDot(row + (b + 1) * sizeof(Block), x + kActBlocks * (b + 1), acc1);
    }
    if (b < n_blocks) acc0 = BlockDot(row + b * sizeof(Block), x + kActBlocks * b, acc0);
    y[r] = hsum(_mm256_add_ps(acc0, acc1));
  }
}

float read_sum(const float* data, size_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    prefetch_ahead(data + i, 32 * sizeof(float));
    acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(data + i));
    acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(data + i + 8));
    acc2 = _mm256_add_ps(acc2, _mm256_loadu_ps(data + i + 16));
    acc3 = _mm256_add_ps(acc3, _mm256_loadu_ps(data + i + 24));
  }
  float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
  for (; i < n; ++i) sum += data[i];
  return sum;
}

// The formats with AVX2 kernels, on the file's rows.
constexpr FormatGemv kFormats[] = {
    {TensorType::F32, gemv_float<F32>, nullptr, 0},
    {TensorType::F16, gemv_float<F16>, nullptr, 0},
    {TensorType::Q4_0, gemv_quant<BlockQ4_0, legacy_block<BlockQ4_0, 8>>, nullptr, 0},
    {TensorType::Q4_1, gemv_quant<BlockQ4_1, legacy_block<BlockQ4_1, 0>>, nullptr, 0},
    {TensorType::Q5_0, gemv_quant<BlockQ5_0, legacy_block<BlockQ5_0, 16>>, nullptr, 0},
    {TensorType::Q5_1, gemv_quant<BlockQ5_1, legacy_block<BlockQ5_1, 0>>, nullptr, 0},
    {TensorType::Q8_0, gemv_quant<BlockQ8_0, q8_0_block>, nullptr, 0},
    {TensorType::Q2_K, gemv_quant<BlockQ2_K, q2_k_block>, nullptr, 0},
    {TensorType::Q3_K, gemv_quant<BlockQ3_K, q3_k_block>, nullptr, 0},
    {TensorType::Q4_K, gemv_quant<BlockQ4_K, q45_k_block<BlockQ4_K>>, nullptr, 0},
    {TensorType::Q5_K, gemv_quant<BlockQ5_K, q45_k_block<BlockQ5_K>>, nullptr, 0},
    {TensorType::Q6_K, gemv_quant<BlockQ6_K, q6_k_block>, nullptr, 0},
    {TensorType::IQ4_NL, gemv_quant<BlockIQ4_NL, iq4_nl_block>, nullptr, 0},
    {TensorType::IQ4_XS, gemv_quant<BlockIQ4_XS, iq4_xs_block>, nullptr, 0},
    {TensorType::BF16, gemv_float<BF16>, nullptr, 0},
};

}  // namespace

// The activation is a few thousand floats per matmul; the scalar quantizer
// serves AVX2 machines (AVX-512 ones have their own).
constinit const GemvKernels kAvx2Kernels{
    .formats = kFormats,
    .n_formats = sizeof(kFormats) / sizeof(kFormats[0]),
    .quantize = {nullptr, nullptr},
    .read_sum = read_sum,
};

}  // namespace pdbench::gemv_detail
