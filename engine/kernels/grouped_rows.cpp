#include "engine/kernels/grouped_rows.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "engine/format/quant_blocks.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

constexpr size_t kGroupLanes = 16, kChunkBytes = 4;

// How one file block splits into its header and its lanes (grouped_rows.h).
struct GroupedForm {
  TensorType type;
  size_t header_bytes;
  size_t lanes;       // per block
  size_t lane_bytes;  // a multiple of kChunkBytes, or 2 more (Q3_K)
  void (*split)(const std::byte* block, std::byte* header, uint8_t* lanes);
  void (*join)(const std::byte* header, const uint8_t* lanes, std::byte* block);
};

// Q8_0, Q4_0, Q4_1 and IQ4_NL: the block's scale (and min), then its one
// lane as stored. IQ4_XS: d and the sub-block scales, then its 8 lanes,
// each sub-block's 16 bytes of nibbles as stored.
template <size_t kHeader, size_t kQuantBytes>
void split_scale_first(const std::byte* block, std::byte* header, uint8_t* lanes) {
  std::memcpy(header, block, kHeader);
  std::memcpy(lanes, block + kHeader, kQuantBytes);
}
template <size_t kHeader, size_t kQuantBytes>
void join_scale_first(const std::byte* header, const uint8_t* lanes, std::byte* block) {
  std::memcpy(block, header, kHeader);
  std::memcpy(block + kHeader, lanes, kQuantBytes);
}

// Q4_K and Q5_K: d, dmin and the packed scales are the header (16 bytes);
// sub-block j's nibbles become lane j, packed as Q4_0's (nibble_at), and
// for Q5_K its 32 fifth bits follow in 4 bytes placed for the kernel's
// chunks: byte t % 4 holds weight t's (t < 16) at bit t / 4 and weight
// 16 + t's at bit 4 + t / 4, so the chunk that holds weights 4k..4k+3 and
// 16+4k.. finds theirs at bits k and 4 + k of its bytes.
constexpr size_t kQ45KHeader = 16;
static_assert(offsetof(BlockQ4_K, qs) == kQ45KHeader && offsetof(BlockQ5_K, qh) == kQ45KHeader);
BitField q5_lane_high_bit_at(size_t j) { return {16 + j % 4, static_cast<unsigned>(4 * (j / 16) + (j % 16) / 4)}; }
template <typename Block>
constexpr size_t kQ45KLaneBytes = std::is_same_v<Block, BlockQ5_K> ? 20 : 16;

template <typename Block>
void split_q45_k(const std::byte* block, std::byte* header, uint8_t* lanes) {
  constexpr size_t kLane = kQ45KLaneBytes<Block>;
  Block b;
  std::memcpy(&b, block, sizeof(b));
  std::memcpy(header, block, kQ45KHeader);
  std::memset(lanes, 0, 8 * kLane);
  for (size_t e = 0; e < kSuperBlock; ++e) {
    uint8_t* lane = lanes + kLane * (e / 32);
    put_field(lane, nibble_at(e % 32), field(b.qs, k_nibble_at(e), 4));
    if constexpr (std::is_same_v<Block, BlockQ5_K>)
      put_field(lane, q5_lane_high_bit_at(e % 32), field(b.qh, high_bit_at(e), 1));
  }
}
template <typename Block>
void join_q45_k(const std::byte* header, const uint8_t* lanes, std::byte* block) {
  constexpr size_t kLane = kQ45KLaneBytes<Block>;
  Block b{};
  std::memcpy(&b, header, kQ45KHeader);
  for (size_t e = 0; e < kSuperBlock; ++e) {
    const uint8_t* lane = lanes + kLane * (e / 32);
    put_field(b.qs, k_nibble_at(e), field(lane, nibble_at(e % 32), 4));
    if constexpr (std::is_same_v<Block, BlockQ5_K>)
      put_field(b.qh, high_bit_at(e), field(lane, q5_lane_high_bit_at(e % 32), 1));
  }
  std::memcpy(block, &b, sizeof(b));
}

// Q5_0 and Q5_1: the scale (and min) are the header; the block's one lane
// is its 16 bytes of nibbles as stored, then its 32 fifth bits placed as
// a Q5_K lane's (q5_lane_high_bit_at).
template <typename Block>
void split_q5(const std::byte* block, std::byte* header, uint8_t* lanes) {
  Block b;
  std::memcpy(&b, block, sizeof(b));
  std::memcpy(header, block, offsetof(Block, qh));
  std::memcpy(lanes, b.qs, sizeof(b.qs));
  std::memset(lanes + sizeof(b.qs), 0, 4);
  for (size_t j = 0; j < 32; ++j) put_field(lanes, q5_lane_high_bit_at(j), field(b.qh, bit_at(j), 1));
}
template <typename Block>
void join_q5(const std::byte* header, const uint8_t* lanes, std::byte* block) {
  Block b{};
  std::memcpy(&b, header, offsetof(Block, qh));
  std::memcpy(b.qs, lanes, sizeof(b.qs));
  for (size_t j = 0; j < 32; ++j) put_field(b.qh, bit_at(j), field(lanes, q5_lane_high_bit_at(j), 1));
  std::memcpy(block, &b, sizeof(b));
}

// Weight t (0..15) of a lane of 16 keeps 2 bits at byte t % 4, bits
// 2 (t / 4): Q2_K's and Q3_K's low bits.
BitField lane_crumb_at(size_t t) { return {t % 4, static_cast<unsigned>(2 * (t / 4))}; }

// Q6_K: the sub-block scales and d are the header; each sub-block of 16
// weights is a lane of 12 bytes (grouped_rows.h). Weight t (0..15) of a
// lane: t < 12 whole, in bits 0-5 of byte t; t >= 12 in bits 6-7 of bytes
// t - 12, t - 8 and t - 4 (its bits 0-1, 2-3 and 4-5).
constexpr size_t kQ6KHeader = sizeof(BlockQ6_K) - offsetof(BlockQ6_K, scales);
unsigned q6_k_quant(const BlockQ6_K& b, size_t e) {
  return field(b.ql, q6_k_nibble_at(e), 4) | field(b.qh, crumb_at(e), 2) << 4;
}
void put_q6_lane_quant(uint8_t* lane, size_t t, unsigned q) {
  if (t < 12) return put_field(lane, {t, 0}, q);
  for (size_t j = 0; j < 3; ++j) put_field(lane, {4 * j + t - 12, 6}, (q >> (2 * j)) & 3);
}
unsigned q6_lane_quant(const uint8_t* lane, size_t t) {
  if (t < 12) return field(lane, {t, 0}, 6);
  unsigned q = 0;
  for (size_t j = 0; j < 3; ++j) q |= field(lane, {4 * j + t - 12, 6}, 2) << (2 * j);
  return q;
}
void split_q6_k(const std::byte* block, std::byte* header, uint8_t* lanes) {
  BlockQ6_K b;
  std::memcpy(&b, block, sizeof(b));
  std::memcpy(header, block + offsetof(BlockQ6_K, scales), kQ6KHeader);
  std::memset(lanes, 0, 16 * 12);
  for (size_t e = 0; e < kSuperBlock; ++e) put_q6_lane_quant(lanes + 12 * (e / 16), e % 16, q6_k_quant(b, e));
}
void join_q6_k(const std::byte* header, const uint8_t* lanes, std::byte* block) {
  BlockQ6_K b{};
  std::memcpy(reinterpret_cast<std::byte*>(&b) + offsetof(BlockQ6_K, scales), header, kQ6KHeader);
  for (size_t e = 0; e < kSuperBlock; ++e) {
    const unsigned q = q6_lane_quant(lanes + 12 * (e / 16), e % 16);
    put_field(b.ql, q6_k_nibble_at(e), q & 0x0f);
    put_field(b.qh, crumb_at(e), q >> 4);
  }
  std::memcpy(block, &b, sizeof(b));
}

constexpr size_t kIq4XsHeader = offsetof(BlockIQ4_XS, qs);
static_assert(kIq4XsHeader == 8 && sizeof(BlockIQ4_XS) == kIq4XsHeader + 128);

// Q2_K and Q3_K: the scales and d (and Q2_K's dmin) are the header; each
// sub-block of 16 weights is a lane (grouped_rows.h): 4 bytes of its 2-bit
// quants (lane_crumb_at), and for Q3_K 2 bytes of its high bits, weight t's
// at bit 4 (t % 4) + t / 4.
constexpr size_t kQ2KHeader = sizeof(BlockQ2_K::scales) + 4;
constexpr size_t kQ3KHeader = sizeof(BlockQ3_K) - offsetof(BlockQ3_K, scales);
static_assert(sizeof(BlockQ2_K) == offsetof(BlockQ2_K, d) + 4, "Q2_K's d and dmin end its block");
BitField q3_lane_high_bit_at(size_t t) { return {4 + t % 4 / 2, static_cast<unsigned>(4 * (t % 2) + t / 4)}; }

// Splitting moves the fields from the file block into the header and
// lanes, joining back: one function for both directions.
template <bool kSplit, typename T>
using From = std::conditional_t<kSplit, T*, const T*>;

template <bool kSplit>
void move_field(uint8_t* file, BitField in_file, From<kSplit, uint8_t> lane, BitField in_lane, unsigned bits) {
  if constexpr (kSplit)
    put_field(lane, in_lane, field(file, in_file, bits));
  else
    put_field(file, in_file, field(lane, in_lane, bits));
}
template <bool kSplit>
void move_bytes(std::byte* file, From<kSplit, std::byte> header, size_t bytes) {
  if constexpr (kSplit)
    std::memcpy(header, file, bytes);
  else
    std::memcpy(file, header, bytes);
}

template <bool kSplit>
void move_q2_k(BlockQ2_K& b, From<kSplit, std::byte> header, From<kSplit, uint8_t> lanes) {
  auto* bytes = reinterpret_cast<std::byte*>(&b);
  move_bytes<kSplit>(bytes, header, sizeof(b.scales));
  move_bytes<kSplit>(bytes + offsetof(BlockQ2_K, d), header + sizeof(b.scales), 4);
  for (size_t e = 0; e < kSuperBlock; ++e)
    move_field<kSplit>(b.qs, crumb_at(e), lanes + 4 * (e / 16), lane_crumb_at(e % 16), 2);
}
template <bool kSplit>
void move_q3_k(BlockQ3_K& b, From<kSplit, std::byte> header, From<kSplit, uint8_t> lanes) {
  move_bytes<kSplit>(reinterpret_cast<std::byte*>(&b) + offsetof(BlockQ3_K, scales), header, kQ3KHeader);
  for (size_t e = 0; e < kSuperBlock; ++e) {
    const auto lane = lanes + 6 * (e / 16);
    move_field<kSplit>(b.qs, crumb_at(e), lane, lane_crumb_at(e % 16), 2);
    move_field<kSplit>(b.hmask, high_bit_at(e), lane, q3_lane_high_bit_at(e % 16), 1);
  }
}

template <typename Block, size_t kLaneBytes, void (*Move)(Block&, std::byte*, uint8_t*)>
void split_by(const std::byte* block, std::byte* header, uint8_t* lanes) {
  Block b;
  std::memcpy(&b, block, sizeof(b));
  std::memset(lanes, 0, 16 * kLaneBytes);
  Move(b, header, lanes);
}
template <typename Block, void (*Move)(Block&, const std::byte*, const uint8_t*)>
void join_by(const std::byte* header, const uint8_t* lanes, std::byte* block) {
  Block b{};
  Move(b, header, lanes);
  std::memcpy(block, &b, sizeof(b));
}

constexpr GroupedForm kForms[] = {
    {TensorType::Q4_0, 2, 1, 16, split_scale_first<2, 16>, join_scale_first<2, 16>},
    {TensorType::Q4_1, 4, 1, 16, split_scale_first<4, 16>, join_scale_first<4, 16>},
    {TensorType::Q5_0, 2, 1, 20, split_q5<BlockQ5_0>, join_q5<BlockQ5_0>},
    {TensorType::Q5_1, 4, 1, 20, split_q5<BlockQ5_1>, join_q5<BlockQ5_1>},
    {TensorType::Q8_0, 2, 1, 32, split_scale_first<2, 32>, join_scale_first<2, 32>},
    {TensorType::Q4_K, kQ45KHeader, 8, 16, split_q45_k<BlockQ4_K>, join_q45_k<BlockQ4_K>},
    {TensorType::Q5_K, kQ45KHeader, 8, 20, split_q45_k<BlockQ5_K>, join_q45_k<BlockQ5_K>},
    {TensorType::Q2_K, kQ2KHeader, 16, 4, split_by<BlockQ2_K, 4, move_q2_k<true>>, join_by<BlockQ2_K, move_q2_k<false>>},
    {TensorType::Q3_K, kQ3KHeader, 16, 6, split_by<BlockQ3_K, 6, move_q3_k<true>>, join_by<BlockQ3_K, move_q3_k<false>>},
    {TensorType::Q6_K, kQ6KHeader, 16, 12, split_q6_k, join_q6_k},
    {TensorType::IQ4_NL, 2, 1, 16, split_scale_first<2, 16>, join_scale_first<2, 16>},
    {TensorType::IQ4_XS, kIq4XsHeader, 8, 16, split_scale_first<kIq4XsHeader, 128>,
     join_scale_first<kIq4XsHeader, 128>},
};

const GroupedForm* form_or_null(TensorType type) {
  for (const GroupedForm& f : kForms)
    if (f.type == type) return &f;
  return nullptr;
}

const GroupedForm& form(TensorType type) {
  const GroupedForm* f = form_or_null(type);
  if (f == nullptr) throw Error("grouped rows: no grouped layout for " + std::string(traits(type).name));
  return *f;
}

// A lane's chunks: 4 bytes each, but for a last one of 2 (Q3_K's lanes of 6).
size_t chunks(const GroupedForm& f) { return (f.lane_bytes + kChunkBytes - 1) / kChunkBytes; }
size_t chunk_bytes(const GroupedForm& f, size_t k) { return std::min(kChunkBytes, f.lane_bytes - k * kChunkBytes); }

// Where lane `lane`'s chunk k sits among a row's lanes (grouped_rows.h).
size_t chunk_offset(const GroupedForm& f, size_t n_lanes, size_t lane, size_t k) {
  const size_t group_first = lane / kGroupLanes * kGroupLanes;
  const size_t group_size = std::min(kGroupLanes, n_lanes - group_first);
  return group_first * f.lane_bytes + k * kChunkBytes * group_size + (lane - group_first) * chunk_bytes(f, k);
}

}  // namespace

bool has_grouped_layout(TensorType type) { return form_or_null(type) != nullptr; }

size_t grouped_lane_elements(TensorType type) { return traits(type).block_size / form(type).lanes; }

void group_row(TensorType type, const std::byte* file_row, std::byte* grouped, size_t cols) {
  const GroupedForm& f = form(type);
  const size_t n_blocks = cols / traits(type).block_size, n_lanes = n_blocks * f.lanes;
  std::byte* lanes = grouped + n_blocks * f.header_bytes;
  uint8_t block_lanes[16 * 32];
  for (size_t b = 0; b < n_blocks; ++b) {
    f.split(file_row + b * traits(type).block_bytes, grouped + b * f.header_bytes, block_lanes);
    for (size_t t = 0; t < f.lanes; ++t)
      for (size_t k = 0; k < chunks(f); ++k)
        std::memcpy(lanes + chunk_offset(f, n_lanes, b * f.lanes + t, k), block_lanes + t * f.lane_bytes + k * kChunkBytes,
                    chunk_bytes(f, k));
  }
}

void ungroup_row(TensorType type, const std::byte* grouped, std::byte* file_row, size_t cols) {
  const GroupedForm& f = form(type);
  const size_t n_blocks = cols / traits(type).block_size, n_lanes = n_blocks * f.lanes;
  const std::byte* lanes = grouped + n_blocks * f.header_bytes;
  uint8_t block_lanes[16 * 32];
  for (size_t b = 0; b < n_blocks; ++b) {
    for (size_t t = 0; t < f.lanes; ++t)
      for (size_t k = 0; k < chunks(f); ++k)
        std::memcpy(block_lanes + t * f.lane_bytes + k * kChunkBytes, lanes + chunk_offset(f, n_lanes, b * f.lanes + t, k),
                    chunk_bytes(f, k));
    f.join(grouped + b * f.header_bytes, block_lanes, file_row + b * traits(type).block_bytes);
  }
}

}  // namespace pdbench
