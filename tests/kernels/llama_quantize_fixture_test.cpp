// The reference conversions against llama.cpp's own output on
// tests/data/stories260K-wide/ (PROVENANCE-quant-types.md): llama-quantize's
// files of the trained stories260K-wide in every common GGUF type, each a
// mix of types. dequantize_row must give ggml's values bit for bit (the
// SHA-256 of each tensor's f32 values, from llama-quantize's F32
// conversion), and quantize_row llama-quantize's bytes from the f32 file.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/format/gguf.h"
#include "engine/kernels/dequantize.h"
#include "engine/kernels/quantize.h"
#include "tests/support/stories_wide.h"

namespace pdbench {
namespace {

static_assert(std::endian::native == std::endian::little, "the hashes are of little-endian f32 values");

using test::stories_wide_path;

struct HashRow {
  std::string tensor, type, ne, sha256;
};

// dequant_sha256.csv: file,tensor,type,ne,sha256_f32le,gguf_py_bit_equal.
std::map<std::string, std::vector<HashRow>> hashes_by_file() {
  std::ifstream in(stories_wide_path("dequant_sha256.csv"));
  std::map<std::string, std::vector<HashRow>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string file;
    HashRow row;
    std::getline(fields, file, ',');
    std::getline(fields, row.tensor, ',');
    std::getline(fields, row.type, ',');
    std::getline(fields, row.ne, ',');
    std::getline(fields, row.sha256, ',');
    rows[file].push_back(row);
  }
  return rows;
}

std::string sha256_hex(const std::vector<float>& values) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(values.data(), values.size() * sizeof(float), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += {kHex[digest[i] >> 4], kHex[digest[i] & 0xf]};
  return hex;
}

std::string ne_string(const std::vector<uint64_t>& shape) {
  std::string s;
  for (uint64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

std::string upper(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return u;
}

std::vector<float> dequantized(const gguf::TensorInfo& t) {
  const size_t cols = t.shape[0];
  std::vector<float> values(t.n_elements());
  for (uint64_t r = 0; r < t.n_rows(); ++r)
    dequantize_row(t.type, t.data + r * row_bytes(t.type, cols), values.data() + r * cols, cols);
  return values;
}

class LlamaQuantizeFile : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (test::awaits_the_perplexity_work(GetParam())) GTEST_SKIP() << GetParam() << test::kAwaitsThePerplexityWork;
  }
};

TEST_P(LlamaQuantizeFile, DequantizeGivesGgmlsValuesBitForBit) {
  const std::vector<HashRow> rows = hashes_by_file()[GetParam()];
  ASSERT_EQ(rows.size(), 48u);
  const gguf::GgufFile file = gguf::GgufFile::open(stories_wide_path(GetParam()));
  for (const HashRow& row : rows) {
    SCOPED_TRACE(row.tensor + " (" + row.type + ")");
    const gguf::TensorInfo& t = file.tensor(row.tensor);
    EXPECT_EQ(upper(traits(t.type).name), upper(row.type));
    EXPECT_EQ(ne_string(t.shape), row.ne);
    EXPECT_EQ(sha256_hex(dequantized(t)), row.sha256);
  }
}

// llama-quantize without an importance matrix quantizes each row with the
// functions quantize_row reproduces, from the f32 file's values.
TEST_P(LlamaQuantizeFile, QuantizeOfTheF32FileGivesLlamaQuantizesBytes) {
  const std::string f32_path = stories_wide_path("stories260K-wide-f32.gguf");
  if (test::awaits_the_perplexity_work("stories260K-wide-f32.gguf"))
    GTEST_SKIP() << "stories260K-wide-f32.gguf" << test::kAwaitsThePerplexityWork;
  const gguf::GgufFile source = gguf::GgufFile::open(f32_path);
  const gguf::GgufFile file = gguf::GgufFile::open(stories_wide_path(GetParam()));
  for (const gguf::TensorInfo& t : file.tensors()) {
    SCOPED_TRACE(t.name + " (" + std::string(traits(t.type).name) + ")");
    const gguf::TensorInfo& from = source.tensor(t.name);
    ASSERT_EQ(from.type, TensorType::F32);
    const size_t cols = t.shape[0];
    const auto* values = reinterpret_cast<const float*>(from.data);
    std::vector<std::byte> bytes(t.size_bytes);
    for (uint64_t r = 0; r < t.n_rows(); ++r)
      quantize_row(t.type, values + r * cols, bytes.data() + r * row_bytes(t.type, cols), cols);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), t.data)) << "first differing byte at "
        << std::mismatch(bytes.begin(), bytes.end(), t.data).first - bytes.begin();
  }
}

INSTANTIATE_TEST_SUITE_P(Stories260KWide, LlamaQuantizeFile, ::testing::ValuesIn(test::stories_wide_quantized_files()),
                         [](const ::testing::TestParamInfo<std::string>& file) {
                           return test::stories_wide_type(file.param);
                         });

}  // namespace
}  // namespace pdbench
