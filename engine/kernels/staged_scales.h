#pragma once
// The staged rows (StagedGemv, gemv_isa.h) of the formats whose scales
// (and mins) are staged decoded, one layout for every ISA: each group's 16
// scales as floats (64 bytes), then its 16 mins' for a format with mins,
// then the grouped row's quants as they are; each row starts on a cache
// line. For the ISA files only: a template over their formats, which are
// of unnamed namespaces, so no instantiation is shared between files
// (gemv_isa.h says why that matters).
#include <cstddef>

namespace pdbench::gemv_detail {

template <typename Format>
struct DecodedScalesLayout : Format {
  static constexpr size_t kGroupBytes = Format::kMin ? 128 : 64;  // the scales' floats, then the mins'
  static size_t n_groups(size_t n_lanes) { return (n_lanes + 15) / 16; }
  static size_t stride(size_t cols) {
    const size_t n_lanes = cols / Format::kLane;
    return (kGroupBytes * n_groups(n_lanes) + Format::kLaneBytes * n_lanes + 63) / 64 * 64;
  }
  static const std::byte* quants(const std::byte* row, size_t n_lanes) { return row + kGroupBytes * n_groups(n_lanes); }
};

}  // namespace pdbench::gemv_detail
