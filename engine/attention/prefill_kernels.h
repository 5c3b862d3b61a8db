#pragma once
// Internal to the prefill attention: the per-ISA tile kernels, one table per
// ISA, kept to raw pointers for the reasons decode_kernels.h gives.
#include <cstddef>
#include <cstdint>

#include "engine/attention/kv_type.h"

namespace pdbench::prefill_detail {

// Positions of one K/V tile: the scores of a block of rows against it fit
// in 16 registers.
inline constexpr size_t kKvTile = 16;
// Query rows are padded to a multiple of this: one AVX-512 vector of f32,
// which holds the same element of 16 rows.
inline constexpr size_t kRowBlock = 16;

// n stored vectors back to back as rows of head_dim floats.
using UnpackVectors = void (*)(const std::byte* vectors, size_t n, size_t head_dim, float* out);

// A tile of query rows and their online softmax state, transposed so one
// vector holds kRowBlock rows: element (i, r) of a head_dim x rows array is
// at [i * rows + r].
struct QueryTile {
  const float* q;      // head_dim x rows, times 1 / sqrt(head_dim): q . k is the score
  const int32_t* pos;    // rows: each row's position; it sees keys at positions <= pos
  const int32_t* first;  // rows: and at positions >= first (its window's start, or 0)
  size_t rows;           // a multiple of kRowBlock
  size_t head_dim;
  float softcap;         // scores softcapped before the softmax (ref::softcap); 0: none
  float* max;  // rows: the largest score so far (-inf before the first)
  float* sum;  // rows: sum of exp(score - max)
  float* acc;  // head_dim x rows: sum of exp(score - max) * v
};

// Folds kKvTile keys and values (rows of head_dim floats, zero past the
// sequence) at positions first, first + 1, ... into the tile's state. A row
// that sees none of them keeps its state (-inf max before its first key).
using AttendKvTile = void (*)(const QueryTile& tile, const float* keys, const float* values,
                              size_t first);

struct PrefillKernels {
  UnpackVectors unpack[kKvTypeCount];  // indexed by KvType
  AttendKvTile attend;
};

extern const PrefillKernels kScalarPrefillKernels;
extern const PrefillKernels kAvx512PrefillKernels;
// AVX2's: an attend kernel; its vectors unpack as the scalar ones do.
extern const AttendKvTile kAvx2Attend;

}  // namespace pdbench::prefill_detail
