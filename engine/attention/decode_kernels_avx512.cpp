// Decode attention kernels for AVX-512 F/BW/VL/VNNI (+ FMA, F16C), 16 f32
// lanes. Built with those flags (engine/attention/CMakeLists.txt); see
// decode_kernels.h for why it keeps to raw pointers and intrinsics.
//
// Keys are scored 16 positions at a time so that one transpose-and-add makes
// the 16 sums (a horizontal sum per position costs about three times as
// much); q8_0 keys in groups of 32 take integer dot products against the
// query quantized once to int8. Values are added for every query head of the
// GQA group at once, so each is loaded and converted once per group.
//
// Loops over arrays of vectors carry #pragma GCC unroll: unrolled, the arrays
// live in registers (GCC 12 at -O2 otherwise keeps them on the stack).
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/attention/decode_kernels.h"
#include "engine/attention/kv_avx512.h"

namespace pdbench::decode_detail {

namespace {

using avx512_math::lanes;

// 32-bit lanes added as f32 or as int32, for sum_halves.
struct AddF32 {
  __m512i operator()(__m512i a, __m512i b) const {
    return _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b)));
  }
};
struct AddI32 {
  __m512i operator()(__m512i a, __m512i b) const { return _mm512_add_epi32(a, b); }
};

// Transposes and adds 16 vectors, one per position: lane t of `low` is the
// sum of v[t]'s lanes 0..7 and lane t of `high` that of its lanes 8..15.
// v is clobbered.
template <typename Add>
void sum_halves(__m512i (&v)[16], Add add, __m512i& low, __m512i& high) {
  // Within each 128-bit lane: v[i] element e becomes the sum of that lane's
  // four elements of v[4i + e].
#pragma GCC unroll 16
  for (int i = 0; i < 8; ++i)
    v[i] = add(_mm512_unpacklo_epi32(v[2 * i], v[2 * i + 1]),
               _mm512_unpackhi_epi32(v[2 * i], v[2 * i + 1]));
#pragma GCC unroll 16
  for (int i = 0; i < 4; ++i)
    v[i] = add(_mm512_unpacklo_epi64(v[2 * i], v[2 * i + 1]),
               _mm512_unpackhi_epi64(v[2 * i], v[2 * i + 1]));
  // Across them: 128-bit lanes 0 and 1 make the low half, 2 and 3 the high.
  constexpr int kEven = 0x88, kOdd = 0xdd;  // 128-bit lanes 0, 2 (1, 3) of each source
  const __m512i a =
      add(_mm512_shuffle_i32x4(v[0], v[1], kEven), _mm512_shuffle_i32x4(v[0], v[1], kOdd));
  const __m512i b =
      add(_mm512_shuffle_i32x4(v[2], v[3], kEven), _mm512_shuffle_i32x4(v[2], v[3], kOdd));
  low = _mm512_shuffle_i32x4(a, b, kEven);
  high = _mm512_shuffle_i32x4(a, b, kOdd);
}

// Scores n_tokens positions 16 at a time: block(t0, m) gives the dot
// products of positions t0 + lane (lanes outside m unused).
template <typename Block>
float score_blocks(size_t n_tokens, float scale, float* scores, Block block) {
  const __m512 divisor = _mm512_set1_ps(scale);
  __m512 max = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (size_t t0 = 0; t0 < n_tokens; t0 += 16) {
    const __mmask16 m = lanes(n_tokens, t0);
    const __m512 s = _mm512_div_ps(block(t0, m), divisor);  // divide, as the reference does
    _mm512_mask_storeu_ps(scores + t0, m, s);
    max = _mm512_mask_max_ps(max, m, max, s);
  }
  return _mm512_reduce_max_ps(max);
}

// q . one stored key as a vector whose lanes sum to it; head vectors are
// walked 64 elements (four registers) at a time with masked loads, so any
// head_dim works and nothing past a vector is read.
template <typename Loader>
__m512 dot_lanes(const Loader& loader, const float* q, const std::byte* k, size_t head_dim) {
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
  __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
  for (size_t i = 0; i < head_dim; i += 64) {
    const __mmask16 m0 = lanes(head_dim, i), m1 = lanes(head_dim, i + 16);
    const __mmask16 m2 = lanes(head_dim, i + 32), m3 = lanes(head_dim, i + 48);
    a0 = _mm512_fmadd_ps(load(loader, k, i, m0), _mm512_maskz_loadu_ps(m0, q + i), a0);
    a1 = _mm512_fmadd_ps(load(loader, k, i + 16, m1), _mm512_maskz_loadu_ps(m1, q + i + 16), a1);
    a2 = _mm512_fmadd_ps(load(loader, k, i + 32, m2), _mm512_maskz_loadu_ps(m2, q + i + 32), a2);
    a3 = _mm512_fmadd_ps(load(loader, k, i + 48, m3), _mm512_maskz_loadu_ps(m3, q + i + 48), a3);
  }
  return _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3));
}

void prepare_f32(const float* q, size_t head_dim, float* prepared) {
  std::memcpy(prepared, q, head_dim * sizeof(float));
}

// With head_dim a compile-time multiple of 16 the query stays in registers
// for every key, and a key is kHeadDim / 16 loads and FMAs: at head_dim 64
// and 32 positions, a third of the time of the any-size loop.
template <typename Loader, size_t kHeadDim>
float dot_fixed(const float* q, const std::byte* keys, size_t n_tokens, float scale, float* scores) {
  constexpr size_t kVectors = kHeadDim / 16;
  const Loader loader(kHeadDim);
  const size_t stride = kv_vector_bytes(Loader::kType, kHeadDim);
  __m512 query[kVectors];
#pragma GCC unroll 16
  for (size_t v = 0; v < kVectors; ++v) query[v] = _mm512_loadu_ps(q + 16 * v);
  return score_blocks(n_tokens, scale, scores, [&](size_t t0, __mmask16) {
    __m512i part[16];
#pragma GCC unroll 16
    for (size_t j = 0; j < 16; ++j) {
      const std::byte* k = keys + (t0 + j) * stride;
      __m512 a = _mm512_setzero_ps();
#pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) a = _mm512_fmadd_ps(load(loader, k, 16 * v, 0xffff), query[v], a);
      part[j] = t0 + j < n_tokens ? _mm512_castps_si512(a) : _mm512_setzero_si512();
    }
    __m512i low, high;
    sum_halves(part, AddF32{}, low, high);
    return _mm512_add_ps(_mm512_castsi512_ps(low), _mm512_castsi512_ps(high));
  });
}

template <typename Loader>
float dot(const float* q, const std::byte* keys, size_t n_tokens, size_t head_dim, float scale,
          float* scores) {
  if (head_dim == 64) return dot_fixed<Loader, 64>(q, keys, n_tokens, scale, scores);
  if (head_dim == 128) return dot_fixed<Loader, 128>(q, keys, n_tokens, scale, scores);
  const Loader loader(head_dim);
  const size_t stride = kv_vector_bytes(Loader::kType, head_dim);
  return score_blocks(n_tokens, scale, scores, [&](size_t t0, __mmask16) {
    __m512i part[16];
#pragma GCC unroll 16
    for (size_t j = 0; j < 16; ++j)
      part[j] = t0 + j < n_tokens
                    ? _mm512_castps_si512(dot_lanes(loader, q, keys + (t0 + j) * stride, head_dim))
                    : _mm512_setzero_si512();
    __m512i low, high;
    sum_halves(part, AddF32{}, low, high);
    return _mm512_add_ps(_mm512_castsi512_ps(low), _mm512_castsi512_ps(high));
  });
}

// The query of q8_0 keys in groups of 32, quantized the same way: per group
// an f32 scale d = max|q| / 127, then 128 * sum(q8) as int32 (see dot_q8),
// then the head_dim int8 values. 1.25 head_dim bytes: within head_dim floats.
struct Q8Query {
  Q8Query(const float* prepared, size_t head_dim)
      : groups(head_dim / 32),
        scales(prepared),
        offsets(prepared + groups),
        values(reinterpret_cast<const std::byte*>(prepared + 2 * groups)) {}
  int32_t offset(size_t g) const {
    int32_t o;
    std::memcpy(&o, offsets + g, sizeof(o));
    return o;
  }
  size_t groups;
  const float* scales;
  const float* offsets;  // int32 bits
  const std::byte* values;
};

bool q8_vnni(size_t head_dim) { return kv_q8_group(head_dim) == 32; }

// Rounds q to the nearest of 255 steps of max|q| / 127 per group: each
// element moves by at most half a step.
void prepare_q8(const float* q, size_t head_dim, float* prepared) {
  if (!q8_vnni(head_dim)) return prepare_f32(q, head_dim, prepared);
  const size_t groups = head_dim / 32;
  auto* values = reinterpret_cast<std::byte*>(prepared + 2 * groups);
  for (size_t g = 0; g < groups; ++g) {
    const __m512 lo = _mm512_loadu_ps(q + 32 * g), hi = _mm512_loadu_ps(q + 32 * g + 16);
    const float max = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
    const __m512 inverse = _mm512_set1_ps(max > 0.0f ? 127.0f / max : 0.0f);
    const __m512i qlo = _mm512_cvtps_epi32(_mm512_mul_ps(lo, inverse));
    const __m512i qhi = _mm512_cvtps_epi32(_mm512_mul_ps(hi, inverse));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(values + 32 * g), _mm512_cvtepi32_epi8(qlo));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(values + 32 * g + 16), _mm512_cvtepi32_epi8(qhi));
    prepared[g] = max / 127.0f;
    const int32_t offset = 128 * _mm512_reduce_add_epi32(_mm512_add_epi32(qlo, qhi));
    std::memcpy(prepared + groups + g, &offset, sizeof(offset));
  }
}

// q8_0 keys in groups of 32 against the prepared query: two groups per
// 512-bit vector, vpdpbusd multiplying unsigned by signed bytes, so the keys
// go in offset by 128 (k ^ 0x80) and the query's 128 * sum(q8) comes off.
// Each group's integer sum times both scales adds to the score. Other head
// sizes (one scale per vector) take the f32 path.
float dot_q8(const float* prepared, const std::byte* keys, size_t n_tokens, size_t head_dim,
             float scale, float* scores) {
  if (!q8_vnni(head_dim))
    return dot<kv_avx512::Q8>(prepared, keys, n_tokens, head_dim, scale, scores);
  const Q8Query q(prepared, head_dim);
  const kv_avx512::Q8 loader(head_dim);
  const size_t stride = kv_vector_bytes(KvType::Q8_0, head_dim);
  const __m512i to_unsigned = _mm512_set1_epi8(static_cast<char>(0x80));
  return score_blocks(n_tokens, scale, scores, [&](size_t t0, __mmask16 m) {
    const std::byte* first = keys + t0 * stride;
    // One group's 16 integer sums, scaled by both sides.
    const auto group_score = [&](__m512i sums, size_t g) {
      const __m512 products =
          _mm512_cvtepi32_ps(_mm512_sub_epi32(sums, _mm512_set1_epi32(q.offset(g))));
      return _mm512_mul_ps(_mm512_mul_ps(products, _mm512_set1_ps(q.scales[g])),
                           loader.scales(first, 32 * g, m));
    };
    __m512 score = _mm512_setzero_ps();
    for (size_t g = 0; g < q.groups; g += 2) {
      const bool pair = g + 1 < q.groups;
      const std::byte* qg = q.values + 32 * g;
      const __m512i qv =
          pair ? _mm512_loadu_si512(qg)
               : _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(qg)));
      __m512i part[16];
#pragma GCC unroll 16
      for (size_t j = 0; j < 16; ++j) {
        if (t0 + j >= n_tokens) {
          part[j] = _mm512_setzero_si512();
          continue;
        }
        // The int8 of groups g and g + 1, past their f16 scales.
        const std::byte* vec = first + j * stride;
        const auto group_bytes = [&](size_t group) {
          return _mm256_loadu_si256(
              reinterpret_cast<const __m256i*>(loader.group_at(vec, 32 * group) + 2));
        };
        const __m512i lo = _mm512_zextsi256_si512(group_bytes(g));
        const __m512i kv = pair ? _mm512_inserti64x4(lo, group_bytes(g + 1), 1) : lo;
        part[j] =
            _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_xor_si512(kv, to_unsigned), qv);
      }
      __m512i low, high;
      sum_halves(part, AddI32{}, low, high);
      score = _mm512_add_ps(score, group_score(low, g));
      if (pair) score = _mm512_add_ps(score, group_score(high, g + 1));
    }
    return score;
  });
}

// acc of NH heads += their weights times 16 positions' values at a time:
// head-dimension slices of 64 outer and positions inner, so the heads'
// slices of acc stay in registers while each value is loaded once for all
// of them. A value's scale (q8_0) is folded into the weights, one gather per
// 16 positions, instead of multiplying every element.
template <typename Loader, size_t NH>
void add_heads(const Loader& loader, size_t stride, const float* w, size_t w_stride,
               const std::byte* values, size_t n_tokens, size_t head_dim, float* acc) {
  for (size_t t0 = 0; t0 < n_tokens; t0 += 16) {
    const __mmask16 m = lanes(n_tokens, t0);
    const size_t n = n_tokens - t0 < 16 ? n_tokens - t0 : 16;
    const std::byte* first = values + t0 * stride;
    for (size_t i = 0; i < head_dim; i += 64) {
      // weights[h][half][t]: head h's weight of position t0 + t times the
      // scale of elements [i + 32 half, i + 32 half + 32), one group.
      alignas(64) float weights[NH][2][16];
      const __m512 scale_lo = loader.scales(first, i, m);
      const __m512 scale_hi = loader.scales(first, i + 32 < head_dim ? i + 32 : head_dim - 1, m);
#pragma GCC unroll 16
      for (size_t h = 0; h < NH; ++h) {
        const __m512 wh = _mm512_maskz_loadu_ps(m, w + h * w_stride + t0);
        _mm512_store_ps(weights[h][0], _mm512_mul_ps(wh, scale_lo));
        _mm512_store_ps(weights[h][1], _mm512_mul_ps(wh, scale_hi));
      }
      __mmask16 mask[4];
      __m512 a[NH][4];
#pragma GCC unroll 16
      for (size_t j = 0; j < 4; ++j) {
        mask[j] = lanes(head_dim, i + 16 * j);
#pragma GCC unroll 16
        for (size_t h = 0; h < NH; ++h)
          a[h][j] = _mm512_maskz_loadu_ps(mask[j], acc + h * head_dim + i + 16 * j);
      }
      for (size_t t = 0; t < n; ++t) {
        const std::byte* vec = first + t * stride;
#pragma GCC unroll 16
        for (size_t j = 0; j < 4; ++j) {
          const __m512 v = loader.raw(vec, i + 16 * j, mask[j]);
#pragma GCC unroll 16
          for (size_t h = 0; h < NH; ++h)
            a[h][j] = _mm512_fmadd_ps(_mm512_set1_ps(weights[h][j / 2][t]), v, a[h][j]);
        }
      }
#pragma GCC unroll 16
      for (size_t j = 0; j < 4; ++j)
#pragma GCC unroll 16
        for (size_t h = 0; h < NH; ++h)
          _mm512_mask_storeu_ps(acc + h * head_dim + i + 16 * j, mask[j], a[h][j]);
    }
  }
}

// Up to four heads per pass keep every accumulator in a register.
template <typename Loader>
void add(const float* w, size_t w_stride, size_t n_heads, const std::byte* values, size_t n_tokens,
         size_t head_dim, float* acc) {
  const Loader loader(head_dim);
  const size_t stride = kv_vector_bytes(Loader::kType, head_dim);
  size_t h = 0;
  const auto pass = [&](auto nh) {
    add_heads<Loader, decltype(nh)::value>(loader, stride, w + h * w_stride, w_stride, values,
                                           n_tokens, head_dim, acc + h * head_dim);
    h += nh;
  };
  while (n_heads - h >= 4) pass(std::integral_constant<size_t, 4>{});
  if (n_heads - h == 3) pass(std::integral_constant<size_t, 3>{});
  if (n_heads - h == 2) pass(std::integral_constant<size_t, 2>{});
  if (n_heads - h == 1) pass(std::integral_constant<size_t, 1>{});
}

float exp_sum(float* x, size_t n, float max) {
  const __m512 vmax = _mm512_set1_ps(max);
  __m512 sum = _mm512_setzero_ps();
  for (size_t t = 0; t < n; t += 16) {
    const __mmask16 m = lanes(n, t);
    const __m512 e =
        avx512_math::exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + t), vmax));
    _mm512_mask_storeu_ps(x + t, m, e);
    sum = _mm512_mask_add_ps(sum, m, sum, e);
  }
  return _mm512_reduce_add_ps(sum);
}

void softcap(float* x, size_t n, float cap) {
  const __m512 vcap = _mm512_set1_ps(cap), inverse = _mm512_set1_ps(1.0f / cap);
  for (size_t t = 0; t < n; t += 16) {
    const __mmask16 m = lanes(n, t);
    _mm512_mask_storeu_ps(x + t, m, avx512_math::softcap(_mm512_maskz_loadu_ps(m, x + t), vcap, inverse));
  }
}

void merge_head(const float* const* acc, const float* factor, size_t n_parts, float sum, size_t head_dim,
                float* out) {
  const __m512 divisor = _mm512_set1_ps(sum);
  for (size_t i = 0; i < head_dim; i += 16) {
    const __mmask16 m = lanes(head_dim, i);
    __m512 x = _mm512_setzero_ps();
    for (size_t p = 0; p < n_parts; ++p)
      x = _mm512_add_ps(x, _mm512_mul_ps(_mm512_set1_ps(factor[p]), _mm512_maskz_loadu_ps(m, acc[p] + i)));
    _mm512_mask_storeu_ps(out + i, m, _mm512_div_ps(x, divisor));
  }
}

}  // namespace

const DecodeKernels kAvx512DecodeKernels = {
    {prepare_f32, prepare_f32, prepare_f32, prepare_q8},
    {dot<kv_avx512::F32>, dot<kv_avx512::F16>, dot<kv_avx512::BF16>, dot_q8},
    {add<kv_avx512::F32>, add<kv_avx512::F16>, add<kv_avx512::BF16>, add<kv_avx512::Q8>},
    exp_sum,
    softcap,
    merge_head,
};

}  // namespace pdbench::decode_detail
