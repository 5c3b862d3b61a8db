// gemv kernels for AVX2 + FMA + F16C, 8 f32 lanes. Built with -mavx2 -mfma
// -mf16c (engine/kernels/CMakeLists.txt), as is gemv_avx2_k236.cpp (Q2_K,
// Q3_K, Q6_K), which its list below names; see gemv_isa.h for why they keep
// to raw pointers and intrinsics. The grouped-rows kernel their integer
// formats instantiate is gemv_avx2_grouped.h.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/format/quant_blocks.h"
#include "engine/kernels/gemv_avx2_grouped.h"

namespace pdbench::gemv_detail::PDBENCH_AVX2_KERNELS {

namespace {

// Software prefetch this far ahead of the loads, as in gemv_avx512.cpp
// (where the measurements are).
constexpr size_t kPrefetchBytes = 4096;

// Prefetches the cache lines of [p, p + bytes) kPrefetchBytes ahead.
void prefetch_ahead(const void* p, size_t bytes) {
  for (size_t line = 0; line < bytes; line += 64)
    _mm_prefetch(static_cast<const char*>(p) + kPrefetchBytes + line, _MM_HINT_T0);
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

// n <= 8 f16 values at p (of a row's last group: no load past them), the
// rest zero.
__m128i load_halves(const std::byte* p, size_t n) {
  if (n == 8) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  alignas(16) uint16_t v[8] = {};
  std::memcpy(v, p, 2 * n);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(v));
}

// Lanes of one block of 32 each (Q8_0, Q4_0, Q5_0, IQ4_NL): the headers are
// the blocks' f16 scales, 2 bytes a lane, and the quants follow them.
struct BlockScale {
  static constexpr bool kMin = false;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 2 * n_lanes; }
  static HalfScales scales(const std::byte* row, size_t lane, size_t n) {
    return {_mm256_cvtph_ps(load_halves(row + 2 * lane, n)), _mm256_setzero_ps()};
  }
};

// Q4_1 and Q5_1: each block's f16 d and m, 4 bytes a lane; w = d q + m, q
// unsigned with no offset, so m times the activation's lane sums is added
// (as a min of -m, which the kernel subtracts).
struct BlockScaleAndMin {
  static constexpr int32_t kShift = 0;
  static constexpr bool kMin = true;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 4 * n_lanes; }
  static HalfScales scales(const std::byte* row, size_t lane, size_t n) {
    const __m256i dm = _mm256_maskload_epi32(reinterpret_cast<const int*>(row + 4 * lane), first_lanes(n));
    // Per 128 bits d d d d m m m m; then the 8 d in the low half, the 8 m in the high.
    const __m256i packed = _mm256_packus_epi32(_mm256_and_si256(dm, _mm256_set1_epi32(0xffff)), _mm256_srli_epi32(dm, 16));
    const __m256i ordered = _mm256_permute4x64_epi64(packed, _MM_SHUFFLE(3, 1, 2, 0));
    const __m256 m = _mm256_cvtph_ps(_mm256_extracti128_si256(ordered, 1));
    return {_mm256_cvtph_ps(_mm256_castsi256_si128(ordered)), _mm256_sub_ps(_mm256_setzero_ps(), m)};
  }
};

// Q8_0: a half-chunk is 4 weights of 8 blocks each, signed as stored.
struct GroupedQ8_0 : BlockScale {
  static constexpr size_t kLane = 32, kLaneBytes = 32;
  static constexpr int32_t kShift = kSignedShift;
  template <size_t M, bool kWhole>
  [[gnu::always_inline]] static void add_chunks(const std::byte* group, const Half<kWhole>& half,
                                                const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                __m256i* dot) {
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) {
      meet<M, true>(half.load(group, k), xs, x_at, half, k, pairs);
      drain<M>(pairs, dot);
    }
  }
};

// Lanes of 32 nibbles packed as Q4_0's (Q4_0, Q4_1, Q4_K, IQ4_NL, IQ4_XS):
// chunk k's low nibbles are weights 4k..4k+3 and its high ones
// 16+4k..16+4k+3, which meet the activation's chunks k and k + 4. Values
// maps the nibbles to the weights' quants, signed or not.
template <__m256i (*Values)(__m256i nibbles), bool kSigned>
struct NibbleLanesOf {
  static constexpr size_t kLane = 32, kLaneBytes = 16;
  template <size_t M, bool kWhole>
  [[gnu::always_inline]] static void add_chunks(const std::byte* group, const Half<kWhole>& half,
                                                const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                __m256i* dot) {
    const __m256i nibble = _mm256_set1_epi8(0x0f);
#pragma GCC unroll 4
    for (size_t k = 0; k < 4; ++k) {
      const __m256i w = half.load(group, k);
      meet<M, kSigned>(Values(_mm256_and_si256(w, nibble)), xs, x_at, half, k, pairs);
      if constexpr (kSigned) drain<M>(pairs, dot);
      meet<M, kSigned>(Values(_mm256_and_si256(_mm256_srli_epi16(w, 4), nibble)), xs, x_at, half, k + 4, pairs);
      if constexpr (kSigned) drain<M>(pairs, dot);
    }
  }
};

// The nibble is the quant (Q4_0, Q4_1, Q4_K).
__m256i nibble_itself(__m256i nibbles) { return nibbles; }
using NibbleLanes = NibbleLanesOf<nibble_itself, false>;

// The nibble indexes IQ4's grid of s8 values, a byte shuffle away.
__m256i iq4_grid(__m256i nibbles) {
  const __m256i grid = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4NlValues)));
  return _mm256_shuffle_epi8(grid, nibbles);
}
using Iq4GridLanes = NibbleLanesOf<iq4_grid, true>;

// Lanes of 32 five-bit quants (Q5_0, Q5_1, Q5_K): the nibbles as
// NibbleLanes', and a fifth chunk of their fifth bits, chunk k's at bits k
// (low nibbles) and 4 + k (high) of its bytes (grouped_rows.h).
struct FiveBitLanes {
  static constexpr size_t kLane = 32, kLaneBytes = 20;
  template <size_t M, bool kWhole>
  [[gnu::always_inline]] static void add_chunks(const std::byte* group, const Half<kWhole>& half,
                                                const GroupedActivation* xs, size_t x_at, __m256i* pairs,
                                                __m256i* dot) {
    const __m256i nibble = _mm256_set1_epi8(0x0f), bit4 = _mm256_set1_epi8(0x10);
    const __m256i fifth = half.load(group, 4);
#pragma GCC unroll 4
    for (unsigned k = 0; k < 4; ++k) {
      const __m256i w = half.load(group, k);
      const __m256i low = _mm256_or_si256(_mm256_and_si256(w, nibble),
                                          _mm256_and_si256(_mm256_slli_epi16(fifth, 4 - k), bit4));
      const __m256i high = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(w, 4), nibble),
                                           _mm256_and_si256(_mm256_srli_epi16(fifth, k), bit4));
      meet<M, false>(low, xs, x_at, half, k, pairs);
      meet<M, false>(high, xs, x_at, half, k + 4, pairs);
      if (k == 1) drain<M>(pairs, dot);  // 4 chunks of five bits
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

// IQ4_NL: grid lanes under Q4_0's f16 scales.
struct GroupedIQ4_NL : Iq4GridLanes, BlockScale {
  static constexpr int32_t kShift = kSignedShift;
};

// Q4_K and Q5_K: lanes are sub-blocks of 32, a half-group one super-block,
// whose header is d, dmin and the packed scales (16 bytes); quants unsigned
// with no offset: w = d sc q - dmin m, the min times the activation's lane
// sums.
struct SuperBlockScalesAndMins {
  static constexpr int32_t kShift = 0;
  static constexpr bool kMin = true;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 16 * (n_lanes / 8); }
  // The header's words u0..u3 (u0 = d | dmin << 16) in one vector: scales
  // 0-3 are u1 & 0x3f (bytewise), 4-7 (u3 & 0x0f) | (u1 >> 6) << 4, mins
  // 0-3 u2 & 0x3f and 4-7 (u3 >> 4 & 0x0f) | (u2 >> 6) << 4 (k4_scale_min),
  // as one expression over the words [u1, u3, u2, u3], as AVX-512's does
  // for two headers. A word at a time in scalar registers (k_scales.h's
  // read_q4_k_header), one token through Llama-3.2-1B's gate/up on one
  // thread took Q4_K 400-405 us where this takes 367-369 and Q5_K 539-540
  // against 508; 512 tokens Q5_K 124.5-124.7 ms against 119.0-119.1, Q4_K
  // the same (BM_gemm_rows, AMD EPYC Zen 4).
  static HalfScales scales(const std::byte* row, size_t lane, size_t /*n: always 8*/) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 16 * (lane / 8)));
    const __m128i words = _mm_shuffle_epi32(h, _MM_SHUFFLE(3, 2, 3, 1));  // u1 u3 u2 u3
    const __m128i high2 = _mm_shuffle_epi32(h, _MM_SHUFFLE(2, 2, 1, 1));  // u1 u1 u2 u2
    const __m128i low = _mm_and_si128(_mm_srlv_epi32(words, _mm_setr_epi32(0, 0, 0, 4)),
                                      _mm_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f));
    const __m128i top = _mm_and_si128(_mm_srli_epi32(high2, 2), _mm_setr_epi32(0, 0x30303030, 0, 0x30303030));
    const __m128i bytes = _mm_or_si128(low, top);  // scales 0-7, then mins 0-7
    const __m128 d_dmin = _mm_cvtph_ps(h);
    return {_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)), _mm256_broadcastss_ps(d_dmin)),
            _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8))),
                          _mm256_broadcastss_ps(_mm_movehdup_ps(d_dmin)))};
  }
};

// Q4_K: nibbles as Q4_0's.
struct GroupedQ4_K : NibbleLanes, SuperBlockScalesAndMins {};

// Q5_K: Q4_K's scales with five-bit lanes.
struct GroupedQ5_K : FiveBitLanes, SuperBlockScalesAndMins {};

// IQ4_XS: lanes are sub-blocks of 32, a half-group one super-block, whose
// header is d (f16), scales_h and scales_l (8 bytes); w = d (s - 32) v, s
// sub-block j's 6 bits: nibble j of scales_l and bits 2j..2j+1 of scales_h.
// s is read here, not by quant_blocks.h's iq4_xs_scale: an inline function
// the portable files also use must not be compiled with these flags
// (gemv_isa.h).
struct GroupedIQ4_XS : Iq4GridLanes {
  static constexpr int32_t kShift = kSignedShift;
  static constexpr bool kMin = false;
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + 8 * (n_lanes / 8); }
  static HalfScales scales(const std::byte* row, size_t lane, size_t /*n: always 8*/) {
    const std::byte* header = row + 8 * (lane / 8);
    uint16_t d, high;
    uint32_t low;
    std::memcpy(&d, header + offsetof(BlockIQ4_XS, d), sizeof(d));
    std::memcpy(&high, header + offsetof(BlockIQ4_XS, scales_h), sizeof(high));
    std::memcpy(&low, header + offsetof(BlockIQ4_XS, scales_l), sizeof(low));
    const __m256i j = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i low4 = _mm256_and_si256(
        _mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(low)), _mm256_slli_epi32(j, 2)), _mm256_set1_epi32(0xf));
    const __m256i high2 =
        _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(high), _mm256_slli_epi32(j, 1)), _mm256_set1_epi32(3));
    const __m256i s = _mm256_sub_epi32(_mm256_or_si256(low4, _mm256_slli_epi32(high2, 4)), _mm256_set1_epi32(32));
    return {_mm256_mul_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(_cvtsh_ss(d))), _mm256_setzero_ps()};
  }
};

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

// One block per step, as AVX-512's: max|x| over four ymm, vcvtps2dq (round
// to nearest even under the default MXCSR), then packed to bytes, which
// interleaves the 128-bit halves of each pack: a permute puts them back.
// Bit-identical to the scalar quantizer: same division, same products, same
// rounding. Prefill quantizes every token for every projection; the scalar
// one took some 19 instructions an element.
void quantize_q8_32(const float* x, void* blocks, size_t n_blocks) {
  auto* out = static_cast<BlockQ8Act*>(blocks);
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256i in_order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (size_t b = 0; b < n_blocks; ++b, x += 32) {
    const __m256 v0 = _mm256_loadu_ps(x), v1 = _mm256_loadu_ps(x + 8);
    const __m256 v2 = _mm256_loadu_ps(x + 16), v3 = _mm256_loadu_ps(x + 24);
    const __m256 m01 = _mm256_max_ps(_mm256_and_ps(v0, magnitude), _mm256_and_ps(v1, magnitude));
    const __m256 m23 = _mm256_max_ps(_mm256_and_ps(v2, magnitude), _mm256_and_ps(v3, magnitude));
    BlockQ8Act& block = out[b];
    block.d = avx2_math::hmax(_mm256_max_ps(m01, m23)) / 127.0f;
    const __m256 inverse = _mm256_set1_ps(block.d != 0.0f ? 1.0f / block.d : 0.0f);
    const __m256i q0 = _mm256_cvtps_epi32(_mm256_mul_ps(v0, inverse));
    const __m256i q1 = _mm256_cvtps_epi32(_mm256_mul_ps(v1, inverse));
    const __m256i q2 = _mm256_cvtps_epi32(_mm256_mul_ps(v2, inverse));
    const __m256i q3 = _mm256_cvtps_epi32(_mm256_mul_ps(v3, inverse));
    const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(block.qs), _mm256_permutevar8x32_epi32(bytes, in_order));
    const __m256i sum = _mm256_add_epi32(_mm256_add_epi32(q0, q1), _mm256_add_epi32(q2, q3));
    block.sum = avx2_math::hsum(sum);
  }
}

// Floats on the file's rows; the integer formats regrouped only (GemvMatrix
// copies them at load, so a kernel for the file's layout would never run).
constexpr FormatGemv kFormats[] = {
    {TensorType::F32, gemv_float<F32>, nullptr, 0},
    {TensorType::F16, gemv_float<F16>, nullptr, 0},
    {TensorType::Q4_0, nullptr, gemv_grouped_batch<GroupedQ4_0>, GroupedQ4_0::kShift},
    {TensorType::Q4_1, nullptr, gemv_grouped_batch<GroupedQ4_1>, GroupedQ4_1::kShift},
    {TensorType::Q5_0, nullptr, gemv_grouped_batch<GroupedQ5_0>, GroupedQ5_0::kShift},
    {TensorType::Q5_1, nullptr, gemv_grouped_batch<GroupedQ5_1>, GroupedQ5_1::kShift},
    {TensorType::Q8_0, nullptr, gemv_grouped_batch<GroupedQ8_0>, GroupedQ8_0::kShift},
    {TensorType::Q2_K, nullptr, gemv_grouped_q2_k, kGroupedQ2KShift, false, &kStagedQ2_K},
    {TensorType::Q3_K, nullptr, gemv_grouped_q3_k, kGroupedQ3KShift, false, &kStagedQ3_K},
    {TensorType::Q4_K, nullptr, gemv_grouped_batch<GroupedQ4_K>, GroupedQ4_K::kShift, false,
     &kStaged<DecodedScales<GroupedQ4_K>>},
    {TensorType::Q5_K, nullptr, gemv_grouped_batch<GroupedQ5_K>, GroupedQ5_K::kShift, false,
     &kStaged<DecodedScales<GroupedQ5_K>>},
    {TensorType::Q6_K, nullptr, gemv_grouped_q6_k, kGroupedQ6KShift, false, &kStagedQ6_K},
    {TensorType::IQ4_NL, nullptr, gemv_grouped_batch<GroupedIQ4_NL>, GroupedIQ4_NL::kShift},
    {TensorType::IQ4_XS, nullptr, gemv_grouped_batch<GroupedIQ4_XS>, GroupedIQ4_XS::kShift, false,
     &kStaged<DecodedScales<GroupedIQ4_XS>>},
    {TensorType::BF16, gemv_float<BF16>, nullptr, 0},
};

}  // namespace

}  // namespace pdbench::gemv_detail::PDBENCH_AVX2_KERNELS

namespace pdbench::gemv_detail {

constinit const GemvKernels PDBENCH_AVX2_KERNEL_TABLE{
    .formats = PDBENCH_AVX2_KERNELS::kFormats,
    .n_formats = sizeof(PDBENCH_AVX2_KERNELS::kFormats) / sizeof(PDBENCH_AVX2_KERNELS::kFormats[0]),
    .quantize = {nullptr, PDBENCH_AVX2_KERNELS::quantize_q8_32},
    .read_sum = PDBENCH_AVX2_KERNELS::read_sum,
};

}  // namespace pdbench::gemv_detail
