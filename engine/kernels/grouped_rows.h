#pragma once
// RowLayout::GroupedQuants (matrix_view.h): a row rearranged for the
// AVX-512 and AVX2 integer kernels, in the same bytes as the file's row. Each file
// block splits into a header (its scales, byte for byte) and lanes, the
// runs of weights one int32 lane of vpdpbusd sums: a block of 32 (Q8_0,
// Q4_0 to Q5_1, IQ4_NL) is one lane, a Q4_K, Q5_K or IQ4_XS super-block 8
// lanes of 32 weights, a Q2_K, Q3_K or Q6_K one 16 of 16. The row is every
// block's header in order, then the lanes in groups of 16, each group as
// chunks of 4n bytes (n lanes in the group, 16 but for a row's last group):
// chunk k holds bytes 4k..4k+3 of every lane in turn (a lane of 6 bytes,
// Q3_K's, ends in a chunk of 2n bytes, bytes 4..5 of every lane).
// So one 64-byte load brings 4 bytes of 16 lanes, and after a group's
// chunks every lane's integer dot product sits in its own lane, ready for
// one multiply by the 16 lanes' scales.
//
// What a lane's bytes hold, per format (x the activation, 4 bytes a chunk):
//   Q8_0: the block's 32 quants as stored.
//   Q4_0: the block's 16 bytes as stored: byte j holds weight j (low
//     nibble) and j + 16 (high), so chunk k's low nibbles are weights
//     4k..4k+3 and its high ones 16+4k..16+4k+3.
//   Q4_1: as Q4_0 (its header is d and m).
//   Q5_0, Q5_1: the nibbles as Q4_0's, then a 5th chunk of the fifth bits
//     placed as Q5_K's (below; the header is d, and m for Q5_1).
//   Q4_K: sub-block j's 32 nibbles packed as Q4_0's (the file packs
//     sub-blocks 2i and 2i+1 into the same bytes instead).
//   Q5_K: Q4_K's 16 bytes, then a 5th chunk of the fifth bits: byte i
//     holds those of weights i, 4+i, 8+i, 12+i at bits 0-3 and of 16+i,
//     20+i, 24+i, 28+i at bits 4-7 (chunk k's weights at bits k and 4+k).
//   Q2_K: 16 weights e0..e15 of 2 bits in one chunk: byte i holds e_i,
//     e_{4+i}, e_{8+i}, e_{12+i} at bits 0, 2, 4, 6 (the header is the 16
//     packed scales and mins, d and dmin).
//   Q3_K: their low 2 bits as Q2_K's, then a chunk of 2 bytes of their
//     high bits: e_{4p+i}'s at bit 4i + p (the header is the 12 bytes of
//     packed scales and d).
//   Q6_K: 16 weights e0..e15 of 6 bits in 3 chunks: chunk k byte i holds
//     e_{4k+i} in bits 0-5, and in bits 6-7 bits 2k..2k+1 of e_{12+i}: a
//     mask gives chunks 0-2 (three shifts and masks the fourth), where
//     nibbles and crumbs took three or four operations every chunk.
//   IQ4_NL: as Q4_0, each nibble an index into kIq4NlValues.
//   IQ4_XS: sub-block j's 16 bytes as stored, packed as IQ4_NL's (its
//     header is d and the sub-blocks' 6-bit scales).
#include <cstddef>

#include "engine/format/tensor_type.h"

namespace pdbench {

// Whether `type` has a grouped layout.
bool has_grouped_layout(TensorType type);

// Weights per lane of `type`'s grouped layout (32 or 16).
size_t grouped_lane_elements(TensorType type);

// Row `cols` wide as stored in the file -> grouped, and back. Both rows
// have row_bytes(type, cols) bytes.
void group_row(TensorType type, const std::byte* file_row, std::byte* grouped, size_t cols);
void ungroup_row(TensorType type, const std::byte* grouped, std::byte* file_row, size_t cols);

}  // namespace pdbench
