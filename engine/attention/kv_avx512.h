#pragma once
// AVX-512 pieces shared by the attention kernels: stored K/V elements as f32
// lanes. Only *_kernels_avx512.cpp files include this (they alone are built
// with the AVX-512 flags), so every copy of these inline functions the linker
// may keep is an AVX-512 one called from AVX-512 code. avx512_math.h brings
// <immintrin.h>, lane masks and exp.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/attention/kv_type.h"
#include "engine/kernels/avx512_math.h"

namespace pdbench::kv_avx512 {

// Loaders of one stored K/V type. raw(vec, i, m): elements [i, i + 16) of
// one stored vector as f32 before its scale, the lanes outside m zero.
// scale(vec, i): the factor raw lanes from element i take. scales(first, i,
// m): that factor for 16 vectors back to back from `first`, one per lane (the
// lanes outside m zero), so a caller can fold it into per-position weights.

// Types that store the values themselves: every scale is 1.
struct Unscaled {
  float scale(const std::byte*, size_t) const { return 1.0f; }
  __m512 scales(const std::byte*, size_t, __mmask16) const { return _mm512_set1_ps(1.0f); }
};
struct F32 : Unscaled {
  static constexpr KvType kType = KvType::F32;
  explicit F32(size_t) {}
  __m512 raw(const std::byte* vec, size_t i, __mmask16 m) const {
    return _mm512_maskz_loadu_ps(m, vec + 4 * i);
  }
};
struct F16 : Unscaled {
  static constexpr KvType kType = KvType::F16;
  explicit F16(size_t) {}
  __m512 raw(const std::byte* vec, size_t i, __mmask16 m) const {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, vec + 2 * i));
  }
};
// bf16 is the top half of an f32: widen and shift left by 16, exact.
struct BF16 : Unscaled {
  static constexpr KvType kType = KvType::BF16;
  explicit BF16(size_t) {}
  __m512 raw(const std::byte* vec, size_t i, __mmask16 m) const {
    const __m512i wide = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, vec + 2 * i));
    return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
  }
};
// A group is 32 elements or the whole vector (kv_type.h), so 16 lanes from
// a multiple of 16 never straddle two groups: one scale per raw load.
struct Q8 {
  static constexpr KvType kType = KvType::Q8_0;
  explicit Q8(size_t head_dim)
      : dim(head_dim),
        group(kv_q8_group(head_dim)),
        vector_offsets(_mm512_mullo_epi32(
            _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
            _mm512_set1_epi32(static_cast<int>(kv_vector_bytes(kType, head_dim))))) {}
  __m512 raw(const std::byte* vec, size_t i, __mmask16 m) const {
    const __m128i q = _mm_maskz_loadu_epi8(m, group_at(vec, i) + 2 + i % group);
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q));
  }
  float scale(const std::byte* vec, size_t i) const {
    if (i >= dim) return 0.0f;  // past the vector: its scale is not there to read
    uint16_t d;
    std::memcpy(&d, group_at(vec, i), sizeof(d));
    return _cvtsh_ss(d);
  }
  // Gathers 32 bits from each scale: the f16 and the group's first two
  // int8, still inside the vector (groups hold head_dim >= 2 elements).
  __m512 scales(const std::byte* first, size_t i, __mmask16 m) const {
    const __m512i at =
        _mm512_add_epi32(vector_offsets, _mm512_set1_epi32(static_cast<int>(group_offset(i))));
    const __m512i bits = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, at, first, 1);
    return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(bits));
  }
  size_t group_offset(size_t i) const { return i / group * (2 + group); }
  const std::byte* group_at(const std::byte* vec, size_t i) const { return vec + group_offset(i); }
  size_t dim;
  size_t group;
  __m512i vector_offsets;  // byte offset of each of 16 vectors back to back
};

// Elements [i, i + 16) of one stored vector as f32, the lanes outside m zero.
template <typename Loader>
__m512 load(const Loader& loader, const std::byte* vec, size_t i, __mmask16 m) {
  return _mm512_mul_ps(_mm512_set1_ps(loader.scale(vec, i)), loader.raw(vec, i, m));
}

}  // namespace pdbench::kv_avx512
