#pragma once
// Q6_K's staged rows (StagedGemv, gemv_isa.h), one layout for every ISA:
// the grouped row's headers (18 bytes a super-block, grouped_rows.h),
// padded to a cache line, then each group's 4 chunks of 64 bytes, its
// six-bit quants as bytes (192 bytes grouped). For the ISA files only,
// each staging with its own unpacking: static, as k_scales.h's, and the
// unpacking each file's own lambda, so no copy is shared between files
// (gemv_isa.h says why that matters).
#include <cstddef>
#include <cstring>

namespace pdbench::gemv_detail {

constexpr size_t kQ6KHeaderBytes = 18, kQ6KGroupBytes = 192, kQ6KStagedGroupBytes = 256;

// Where a staged row's bytes start after its headers (n_lanes of 16).
static inline size_t q6_k_staged_headers(size_t n_lanes) {
  return (kQ6KHeaderBytes * (n_lanes / 16) + 63) / 64 * 64;
}

static inline size_t q6_k_staged_stride(size_t cols) {
  return q6_k_staged_headers(cols / 16) + kQ6KStagedGroupBytes * (cols / 256);
}

// n_rows grouped rows, `stride` bytes apart, into `out`:
// unpack_group(group's 192 bytes, its 256 staged bytes).
template <typename UnpackGroup>
static void stage_q6_k_rows(const std::byte* w, size_t stride, size_t cols, size_t n_rows, std::byte* out,
                            UnpackGroup unpack_group) {
  const size_t n_lanes = cols / 16, headers = kQ6KHeaderBytes * (n_lanes / 16);
  for (size_t r = 0; r < n_rows; ++r) {
    const std::byte* row = w + r * stride;
    std::byte* staged = out + r * q6_k_staged_stride(cols);
    std::memcpy(staged, row, headers);
    for (size_t g = 0; g < n_lanes / 16; ++g)
      unpack_group(row + headers + kQ6KGroupBytes * g,
                   staged + q6_k_staged_headers(n_lanes) + kQ6KStagedGroupBytes * g);
  }
}

}  // namespace pdbench::gemv_detail
