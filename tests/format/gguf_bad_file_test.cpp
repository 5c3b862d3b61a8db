// Malformed GGUF files: each must be rejected with a pdbench::Error that names
// the file and says what was wrong, never a crash or a huge allocation.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/format/gguf.h"
#include "engine/format/gguf_writer.h"
#include "engine/format/tensor_type.h"
#include "tests/format/format_test_util.h"
#include "tests/format/raw_gguf.h"

namespace pdbench::test {
namespace {

constexpr uint64_t kHuge = uint64_t{1} << 62;

class GgufBadFile : public ::testing::Test {
 protected:
  ::testing::AssertionResult rejects(const RawGguf& g, std::initializer_list<std::string_view> fragments) {
    write_bytes(path_, g.bytes());
    return fails_with([&] { (void)gguf::GgufFile::open(path_); }, path_, fragments);
  }

  ScratchDir dir_{"gguf-bad"};
  std::string path_ = dir_.file("bad.gguf");
};

TEST_F(GgufBadFile, SmallRawFileIsValid) {
  write_bytes(path_, small_raw_gguf().bytes());
  const auto f = gguf::GgufFile::open(path_);
  ASSERT_EQ(f.tensors().size(), 2u);
  EXPECT_EQ(f.tensor("b").offset, 32u);
}

TEST_F(GgufBadFile, TruncatedAtEveryByte) {
  gguf::GgufWriter w;
  w.set("general.architecture", gguf::Value::str("llama"));
  w.set("llama.block_count", gguf::Value::u32(5));
  w.set("eps", gguf::Value::f32(1e-5f));
  w.set("flag", gguf::Value::boolean(true));
  w.set("tokens", gguf::Value::strings({"<unk>", "a", "bc"}));
  w.set("types", gguf::Value::i32s({1, -2, 3}));
  w.add_tensor("q8", TensorType::Q8_0, {32, 1}, std::vector<std::byte>(34, std::byte{1}));
  // The last tensor fills whole alignment units, so the file ends with its data
  // and every shorter prefix loses something the header promises.
  w.add_tensor("last", TensorType::F16, {16}, std::vector<std::byte>(32, std::byte{2}));
  const std::string whole = dir_.file("whole.gguf");
  w.write(whole);
  const auto bytes = read_bytes(whole);
  ASSERT_NO_THROW((void)gguf::GgufFile::open(whole));

  for (size_t n = 0; n < bytes.size(); ++n) {
    write_bytes(path_, std::span(bytes).first(n));
    EXPECT_TRUE(fails_with([&] { (void)gguf::GgufFile::open(path_); }, path_, {})) << "prefix of " << n << " bytes";
  }
}

TEST_F(GgufBadFile, EmptyFile) {
  write_bytes(path_, {});
  EXPECT_TRUE(fails_with([&] { (void)gguf::GgufFile::open(path_); }, path_,
                         {"expected magic of 4 bytes at offset 0, found only 0 bytes"}));
}

TEST_F(GgufBadFile, BadMagic) {
  auto g = small_raw_gguf();
  g.magic = 0x46554746;
  EXPECT_TRUE(rejects(g, {"not a GGUF file", "0x46554746"}));
}

TEST_F(GgufBadFile, Version1) {
  auto g = small_raw_gguf();
  g.version = 1;
  EXPECT_TRUE(rejects(g, {"expected GGUF version 2 or 3, found version 1"}));
}

TEST_F(GgufBadFile, Version99) {
  auto g = small_raw_gguf();
  g.version = 99;
  EXPECT_TRUE(rejects(g, {"found version 99"}));
}

TEST_F(GgufBadFile, Version2IsAccepted) {
  auto g = small_raw_gguf();
  g.version = 2;
  write_bytes(path_, g.bytes());
  EXPECT_EQ(gguf::GgufFile::open(path_).version(), 2u);
}

TEST_F(GgufBadFile, HugeTensorCount) {
  auto g = small_raw_gguf();
  g.tensor_count = kHuge;
  EXPECT_TRUE(rejects(g, {"header: expected at most 6 tensor infos", "found a count of 4611686018427387904"}));
}

TEST_F(GgufBadFile, HugeMetadataCount) {
  auto g = small_raw_gguf();
  g.kv_count = kHuge;
  EXPECT_TRUE(rejects(g, {"header: expected at most 17 metadata entries in the 232 bytes after the header, "
                          "found a count of 4611686018427387904"}));
}

TEST_F(GgufBadFile, HugeKeyLength) {
  auto g = small_raw_gguf();
  g.kvs.push_back(Bytes().put(kHuge).data);
  EXPECT_TRUE(rejects(g, {"metadata entry 2", "expected key of 4611686018427387904 bytes"}));
}

TEST_F(GgufBadFile, HugeStringValueLength) {
  auto g = small_raw_gguf();
  g.kvs.push_back(Bytes().str("s").put<uint32_t>(8).put(kHuge).data);
  EXPECT_TRUE(rejects(g, {"metadata s: expected string value of 4611686018427387904 bytes"}));
}

TEST_F(GgufBadFile, HugeArrayCount) {
  auto g = small_raw_gguf();
  g.kvs.push_back(Bytes().str("arr").put<uint32_t>(9).put<uint32_t>(4).put(kHuge).data);
  EXPECT_TRUE(rejects(g, {"metadata arr: array claims 4611686018427387904 uint32 elements"}));
}

TEST_F(GgufBadFile, NestedArray) {
  auto g = small_raw_gguf();
  g.kvs.push_back(Bytes().str("nested").put<uint32_t>(9).put<uint32_t>(9).put<uint64_t>(0).data);
  EXPECT_TRUE(rejects(g, {"metadata nested: arrays of arrays are not supported"}));
}

TEST_F(GgufBadFile, UnknownValueType) {
  auto g = small_raw_gguf();
  g.kvs.push_back(Bytes().str("odd").put<uint32_t>(13).put<uint32_t>(0).data);
  EXPECT_TRUE(rejects(g, {"metadata odd: expected a value type in 0..12, found 13"}));
}

TEST_F(GgufBadFile, BoolNotZeroOrOne) {
  auto g = small_raw_gguf();
  g.kvs.push_back(Bytes().str("flag").put<uint32_t>(7).put<uint8_t>(2).data);
  EXPECT_TRUE(rejects(g, {"metadata flag: expected a bool value of 0 or 1, found 2"}));
}

TEST_F(GgufBadFile, DuplicateKey) {
  auto g = small_raw_gguf();
  g.kvs.push_back(kv_string("general.architecture", "gpt2"));
  EXPECT_TRUE(rejects(g, {"metadata general.architecture: duplicate key"}));
}

TEST_F(GgufBadFile, HugeDimensionCount) {
  auto g = small_raw_gguf();
  g.tensors[1].n_dims = 1u << 30;
  EXPECT_TRUE(rejects(g, {"tensor b: expected 1 to 4 dimensions, found 1073741824"}));
}

TEST_F(GgufBadFile, ZeroAndFiveDimensions) {
  auto g = small_raw_gguf();
  g.tensors[1].n_dims = 0;
  EXPECT_TRUE(rejects(g, {"tensor b: expected 1 to 4 dimensions, found 0"}));
  g.tensors[1].n_dims = 5;
  EXPECT_TRUE(rejects(g, {"tensor b: expected 1 to 4 dimensions, found 5"}));
}

TEST_F(GgufBadFile, ZeroDimension) {
  auto g = small_raw_gguf();
  g.tensors[0].dims = {4, 0};
  EXPECT_TRUE(rejects(g, {"tensor a: expected non-zero dimensions, found shape[1] = 0"}));
}

TEST_F(GgufBadFile, ShapeSizeOverflows) {
  auto g = small_raw_gguf();
  g.tensors[0].dims = {uint64_t{1} << 32, uint64_t{1} << 32};
  EXPECT_TRUE(rejects(g, {"tensor a: shape {4294967296, 4294967296} is too large"}));
}

TEST_F(GgufBadFile, AbsurdDimensionPastEnd) {
  auto g = small_raw_gguf();
  g.tensors[0].dims = {4, uint64_t{1} << 40};
  EXPECT_TRUE(rejects(g, {"tensor a: expected its 17592186044416 bytes", "data section has only 64 bytes"}));
}

TEST_F(GgufBadFile, OffsetPastEnd) {
  auto g = small_raw_gguf();
  g.tensors[1].offset = 64;
  EXPECT_TRUE(rejects(g, {"tensor b: expected its 32 bytes", "at data offset 64", "has only 64 bytes"}));
}

TEST_F(GgufBadFile, OffsetNearOverflow) {
  auto g = small_raw_gguf();
  g.tensors[1].offset = ~uint64_t{0} - 31;  // aligned; offset + size wraps around
  EXPECT_TRUE(rejects(g, {"tensor b: expected its 32 bytes"}));
}

TEST_F(GgufBadFile, MisalignedOffset) {
  auto g = small_raw_gguf();
  g.tensors[1].offset = 36;
  EXPECT_TRUE(rejects(g, {"tensor b: data offset 36 is not a multiple of the alignment 32"}));
}

TEST_F(GgufBadFile, OverlappingTensors) {
  auto g = small_raw_gguf();
  g.tensors[1].offset = 0;
  EXPECT_TRUE(rejects(g, {"tensor b: expected data at or after offset 32 (the end of tensor a), found offset 0"}));
}

// Every ggml type number without a row, named as ggml names it.
TEST_F(GgufBadFile, UnsupportedTypeNamesTensorAndType) {
  auto g = small_raw_gguf();
  g.tensors[0].name = "blk.0.attn_q.weight";
  g.tensors[0].type = 16;
  EXPECT_TRUE(rejects(g, {"tensor blk.0.attn_q.weight: type iq2_xxs is not supported (supported: f32, f16, q4_0, "
                          "q4_1, q5_0, q5_1, q8_0, q2_K, q3_K, q4_K, q5_K, q6_K, iq4_nl, iq4_xs, bf16)"}));
  g.tensors[0].type = 99;
  EXPECT_TRUE(rejects(g, {"tensor blk.0.attn_q.weight: type type 99 is not supported"}));
  for (uint32_t type = 0; type < 64; ++type) {
    if (tensor_type_traits(type)) continue;
    SCOPED_TRACE(type);
    g.tensors[0].type = type;
    EXPECT_TRUE(rejects(g, {"tensor blk.0.attn_q.weight: type " + ggml_type_name(type) + " is not supported"}));
  }
}

TEST_F(GgufBadFile, RowLengthNotMultipleOfBlock) {
  auto g = small_raw_gguf();
  g.tensors = {{"q", {48}, 8, 0, {}}};
  EXPECT_TRUE(rejects(g, {"tensor q: row length (shape[0]) 48 is not a multiple of the q8_0 block size 32"}));
}

TEST_F(GgufBadFile, DataShorterThanShape) {
  auto g = small_raw_gguf();
  g.tensors[1].dims = {16};  // 64 bytes from offset 32 in a 64-byte data section
  EXPECT_TRUE(rejects(g, {"tensor b: expected its 64 bytes (shape {16}, f32) at data offset 32"}));
}

TEST_F(GgufBadFile, DuplicateTensorName) {
  auto g = small_raw_gguf();
  g.tensors[1].name = "a";
  EXPECT_TRUE(rejects(g, {"tensor a: duplicate tensor name"}));
}

TEST_F(GgufBadFile, AlignmentZeroOrNotPowerOfTwo) {
  for (uint32_t alignment : {0u, 3u, 48u}) {
    auto g = small_raw_gguf();
    g.kvs.push_back(kv_u32("general.alignment", alignment));
    EXPECT_TRUE(rejects(g, {"metadata general.alignment: expected a non-zero power of two, found " +
                            std::to_string(alignment)}));
  }
}

TEST_F(GgufBadFile, AlignmentOfWrongType) {
  auto g = small_raw_gguf();
  g.kvs.push_back(kv_string("general.alignment", "32"));
  EXPECT_TRUE(rejects(g, {"metadata general.alignment: expected an unsigned integer, found string"}));
}

TEST_F(GgufBadFile, MissingFile) {
  const std::string missing = dir_.file("missing.gguf");
  EXPECT_TRUE(fails_with([&] { (void)gguf::GgufFile::open(missing); }, missing, {"cannot open"}));
}

}  // namespace
}  // namespace pdbench::test
