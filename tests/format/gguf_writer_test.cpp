// GgufWriter round trips through GgufFile: every metadata value type, every
// tensor type, other alignments, chunked streaming, and input validation.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "engine/format/gguf.h"
#include "engine/format/gguf_writer.h"
#include "tests/format/format_test_util.h"

namespace pdbench::test {
namespace {

using gguf::GgufFile;
using gguf::GgufWriter;
using gguf::Value;
using gguf::ValueType;

// Deterministic, position-dependent bytes.
std::vector<std::byte> pattern(size_t n, unsigned seed) {
  std::vector<std::byte> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::byte>((i * 131 + seed * 17 + (i >> 8)) & 0xff);
  return bytes;
}

Value array(ValueType element, std::vector<Value::Scalar> items) {
  return {ValueType::ARRAY, uint64_t{0}, element, std::move(items)};
}

std::vector<std::pair<std::string, Value>> every_value_type() {
  return {
      {"u8", {ValueType::UINT8, uint64_t{255}, {}, {}}},
      {"i8", {ValueType::INT8, int64_t{-128}, {}, {}}},
      {"u16", {ValueType::UINT16, uint64_t{65535}, {}, {}}},
      {"i16", {ValueType::INT16, int64_t{-32768}, {}, {}}},
      {"u32", Value::u32(std::numeric_limits<uint32_t>::max())},
      {"i32", Value::i32(std::numeric_limits<int32_t>::min())},
      {"u64", Value::u64(std::numeric_limits<uint64_t>::max())},
      {"i64", {ValueType::INT64, std::numeric_limits<int64_t>::min(), {}, {}}},
      {"f32", Value::f32(0.1f)},
      {"f64", {ValueType::FLOAT64, 0.1, {}, {}}},
      {"yes", Value::boolean(true)},
      {"no", Value::boolean(false)},
      {"string", Value::str("h\xc3\xa9llo, w\xc3\xb6rld")},
      {"empty_string", Value::str("")},
      {"strings", Value::strings({"<unk>", "", "\xe2\x96\x81the"})},
      {"floats", Value::f32s({1.5f, -0.25f, 3e38f})},
      {"ints", Value::i32s({0, -1, std::numeric_limits<int32_t>::max()})},
      {"u8s", array(ValueType::UINT8, {uint64_t{0}, uint64_t{255}})},
      {"i16s", array(ValueType::INT16, {int64_t{-5}, int64_t{7}})},
      {"u64s", array(ValueType::UINT64, {uint64_t{1} << 40})},
      {"i64s", array(ValueType::INT64, {std::numeric_limits<int64_t>::min(), int64_t{3}})},
      {"f64s", array(ValueType::FLOAT64, {0.1, -2.0})},
      {"bools", array(ValueType::BOOL, {true, false, true})},
      {"empty_array", Value::i32s({})},
  };
}

class GgufWriterTest : public ::testing::Test {
 protected:
  ScratchDir dir_{"gguf-writer"};
  std::string path_ = dir_.file("out.gguf");
};

TEST_F(GgufWriterTest, RoundTripsEveryValueType) {
  GgufWriter w;
  const auto expected = every_value_type();
  for (const auto& [key, value] : expected) w.set(key, value);
  w.write(path_);

  const auto f = GgufFile::open(path_);
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.metadata(), expected);
  EXPECT_FALSE(f.has("general.alignment"));  // only written when not the default
  EXPECT_TRUE(f.tensors().empty());
}

TEST_F(GgufWriterTest, IntegerGettersAcceptAnyWidthThatFits) {
  GgufWriter w;
  for (const auto& [key, value] : every_value_type()) w.set(key, value);
  w.write(path_);
  const auto f = GgufFile::open(path_);

  EXPECT_EQ(f.get_uint("u8"), 255u);
  EXPECT_EQ(f.get_uint("u64"), std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(fails_with([&] { (void)f.get_uint("i8"); }, path_,
                         {"metadata i8: expected a non-negative integer, found -128"}));
  EXPECT_FLOAT_EQ(f.get_float("f64"), 0.1f);
  EXPECT_EQ(f.get_float("f32"), 0.1f);
  EXPECT_EQ(f.get_int_array("u8s"), (std::vector<int32_t>{0, 255}));
  EXPECT_EQ(f.get_int_array("i16s"), (std::vector<int32_t>{-5, 7}));
  EXPECT_EQ(f.get_float_array("f64s"), (std::vector<float>{0.1f, -2.0f}));
  EXPECT_TRUE(f.get_int_array("empty_array").empty());
  EXPECT_TRUE(fails_with([&] { (void)f.get_int_array("i64s"); }, path_,
                         {"metadata i64s: element 0 = -9223372036854775808 does not fit an int32"}));
  EXPECT_TRUE(fails_with([&] { (void)f.get_int_array("u64s"); }, path_, {"element 0 = 1099511627776"}));
  EXPECT_TRUE(f.get_bool("yes", false));
  EXPECT_FALSE(f.get_bool("no", true));
}

TEST_F(GgufWriterTest, SetReplacesAnExistingKeyInPlace) {
  GgufWriter w;
  w.set("a", Value::u32(1));
  w.set("b", Value::u32(2));
  w.set("a", Value::str("again"));
  w.write(path_);
  const auto f = GgufFile::open(path_);
  ASSERT_EQ(f.metadata().size(), 2u);
  EXPECT_EQ(f.metadata()[0].first, "a");
  EXPECT_EQ(f.get_string("a"), "again");
}

struct TensorCase {
  std::string name;
  TensorType type;
  std::vector<uint64_t> shape;
  size_t bytes;
};

const std::vector<TensorCase> kEveryTensorType = {
    {"f32", TensorType::F32, {3, 5}, 60},
    {"f16", TensorType::F16, {7, 2}, 28},
    {"bf16", TensorType::BF16, {5, 1, 3}, 30},
    {"q8_0", TensorType::Q8_0, {64, 3}, 2 * 34 * 3},
    {"q4_0", TensorType::Q4_0, {32, 2, 2, 2}, 18 * 8},
};

// Writes every tensor type with `alignment`, then checks it both through
// GgufFile and by locating the data in the raw bytes independently.
class GgufWriterAlignment : public GgufWriterTest, public ::testing::WithParamInterface<uint64_t> {};

TEST_P(GgufWriterAlignment, RoundTripsEveryTensorType) {
  const uint64_t alignment = GetParam();
  GgufWriter w(alignment);
  w.set("general.architecture", Value::str("llama"));
  for (size_t i = 0; i < kEveryTensorType.size(); ++i) {
    const auto& c = kEveryTensorType[i];
    w.add_tensor(c.name, c.type, c.shape, pattern(c.bytes, static_cast<unsigned>(i)));
  }
  w.write(path_);

  const auto f = GgufFile::open(path_);
  EXPECT_EQ(f.alignment(), alignment);
  EXPECT_EQ(f.has("general.alignment"), alignment != 32);
  if (alignment != 32) {
    EXPECT_EQ(f.get_uint("general.alignment"), alignment);
  }
  ASSERT_EQ(f.tensors().size(), kEveryTensorType.size());

  const auto raw = read_bytes(path_);
  uint64_t padded_data_bytes = 0;
  for (const auto& c : kEveryTensorType) padded_data_bytes += (c.bytes + alignment - 1) / alignment * alignment;
  ASSERT_GE(raw.size(), padded_data_bytes);
  const uint64_t data_start = raw.size() - padded_data_bytes;
  EXPECT_EQ(data_start % alignment, 0u);

  for (size_t i = 0; i < kEveryTensorType.size(); ++i) {
    const auto& c = kEveryTensorType[i];
    const auto& t = f.tensors()[i];
    const auto expected = pattern(c.bytes, static_cast<unsigned>(i));
    EXPECT_EQ(t.name, c.name);
    EXPECT_EQ(t.type, c.type) << c.name;
    EXPECT_EQ(t.shape, c.shape) << c.name;
    EXPECT_EQ(t.size_bytes, c.bytes) << c.name;
    EXPECT_EQ(t.offset % alignment, 0u) << c.name;
    EXPECT_EQ(std::memcmp(t.data, expected.data(), c.bytes), 0) << c.name;
    EXPECT_EQ(std::memcmp(raw.data() + data_start + t.offset, expected.data(), c.bytes), 0) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Alignments, GgufWriterAlignment, ::testing::Values(1, 8, 32, 64, 4096));

TEST_F(GgufWriterTest, StreamsLargeTensorsInChunksOfWholeRows) {
  constexpr uint64_t kCols = 1024;  // 4 KiB rows: 4096 rows fit a 16 MiB chunk
  constexpr uint64_t kRows = 4500;
  std::vector<std::pair<uint64_t, size_t>> calls;
  GgufWriter w;
  w.add_tensor("big", TensorType::F32, {kCols, kRows}, [&](uint64_t first_row, std::span<std::byte> rows) {
    calls.emplace_back(first_row, rows.size());
    std::vector<float> values(rows.size() / sizeof(float));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(first_row * kCols + i);
    std::memcpy(rows.data(), values.data(), rows.size());
  });
  w.write(path_);

  const std::vector<std::pair<uint64_t, size_t>> expected_calls = {{0, 4096 * kCols * 4}, {4096, 404 * kCols * 4}};
  EXPECT_EQ(calls, expected_calls);
  const auto f = GgufFile::open(path_);
  const auto& t = f.tensor("big");
  ASSERT_EQ(t.size_bytes, kRows * kCols * 4);
  std::vector<float> values(kRows * kCols);
  std::memcpy(values.data(), t.data, t.size_bytes);
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] != static_cast<float>(i)) FAIL() << "element " << i << " is " << values[i];
}

TEST_F(GgufWriterTest, RejectsBadTensors) {
  GgufWriter w;
  w.add_tensor("a", TensorType::F32, {4}, pattern(16, 0));
  const auto rejects = [](auto&& fn, std::string_view fragment) {
    return throws_error(fn, "GGUF writer: ", {fragment});
  };
  EXPECT_TRUE(rejects([&] { w.add_tensor("a", TensorType::F32, {4}, pattern(16, 0)); },
                      "GGUF writer: tensor a: duplicate tensor name"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("q", TensorType::Q8_0, {33}, pattern(34, 0)); },
                      "tensor q: row length (shape[0]) 33 is not a multiple of the q8_0 block size 32"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("q", TensorType::Q4_0, {16, 2}, pattern(18, 0)); }, "q4_0 block size 32"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("z", TensorType::F32, {4, 0}, pattern(0, 0)); }, "non-zero"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("e", TensorType::F32, {}, pattern(4, 0)); }, "found 0"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("five", TensorType::F32, {1, 1, 1, 1, 1}, pattern(4, 0)); }, "found 5"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("s", TensorType::F16, {4}, pattern(7, 0)); },
                      "tensor s: expected 8 bytes of data for its shape and type, found 7"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("huge", TensorType::F32, {uint64_t{1} << 62, 8}, pattern(0, 0)); },
                      "overflows"));
  EXPECT_TRUE(rejects([&] { w.add_tensor("nofill", TensorType::F32, {4}, GgufWriter::FillRows{}); },
                      "no fill callback"));
}

TEST_F(GgufWriterTest, RejectsValuesThatDisagreeWithTheirType) {
  GgufWriter w;
  const auto rejects = [&](Value v, std::string_view fragment) {
    return throws_error([&] { w.set("k", std::move(v)); }, "GGUF writer: ", {fragment});
  };
  EXPECT_TRUE(rejects({ValueType::UINT8, uint64_t{300}, {}, {}}, "metadata k: 300 does not fit in uint8"));
  EXPECT_TRUE(rejects({ValueType::INT8, int64_t{-129}, {}, {}}, "-129 does not fit in int8"));
  EXPECT_TRUE(rejects({ValueType::INT32, uint64_t{1}, {}, {}}, "int32 value must hold an int64_t"));
  EXPECT_TRUE(rejects({ValueType::STRING, 1.0, {}, {}}, "string value must hold a std::string"));
  EXPECT_TRUE(rejects(array(ValueType::STRING, {std::string("a"), 2.0}), "element 1: string value must hold"));
  EXPECT_TRUE(rejects(array(ValueType::ARRAY, {}), "arrays of arrays are not supported"));
  EXPECT_TRUE(rejects({static_cast<ValueType>(13), uint64_t{0}, {}, {}}, "unknown value type 13"));
  EXPECT_TRUE(rejects(array(static_cast<ValueType>(13), {}), "unknown array element type 13"));
}

TEST_F(GgufWriterTest, RejectsBadAlignmentWithoutCreatingAFile) {
  GgufWriter w(3);
  EXPECT_TRUE(fails_with([&] { w.write(path_); }, path_, {"alignment 3 is not a power of two"}));
  GgufWriter conflicting(64);
  conflicting.set("general.alignment", Value::u32(32));
  EXPECT_TRUE(fails_with([&] { conflicting.write(path_); }, path_, {"general.alignment disagrees"}));
  EXPECT_EQ(dir_.entry_count(), 0u);
}

TEST_F(GgufWriterTest, FailedWriteLeavesNoFileAndKeepsTheOldOne) {
  write_bytes(path_, pattern(10, 0));
  GgufWriter w;
  w.add_tensor("ok", TensorType::F32, {4}, pattern(16, 0));
  w.add_tensor("boom", TensorType::F32, {4}, [](uint64_t, std::span<std::byte>) { throw Error("fill failed"); });
  EXPECT_THROW(w.write(path_), Error);
  EXPECT_EQ(read_bytes(path_), pattern(10, 0));
  EXPECT_EQ(dir_.entry_count(), 1u);  // no temporary file left behind

  const std::string fresh = dir_.file("fresh.gguf");
  EXPECT_THROW(w.write(fresh), Error);
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_EQ(dir_.entry_count(), 1u);
}

TEST_F(GgufWriterTest, ReplacesAnExistingFile) {
  write_bytes(path_, pattern(10, 0));
  GgufWriter w;
  w.set("k", Value::u32(1));
  w.write(path_);
  EXPECT_EQ(GgufFile::open(path_).get_uint("k"), 1u);
  EXPECT_EQ(dir_.entry_count(), 1u);
}

TEST_F(GgufWriterTest, UnwritableDirectoryIsAnError) {
  const std::string path = dir_.file("no/such/dir/out.gguf");
  GgufWriter w;
  EXPECT_TRUE(fails_with([&] { w.write(path); }, path, {"cannot create temporary file"}));
}

}  // namespace
}  // namespace pdbench::test
