// llama2.c v0 checkpoints: the bundled stories260K.bin against its GGUF twin,
// the array layout on a synthetic file, and malformed headers and sizes.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <numeric>
#include <cstring>

#include "engine/format/gguf.h"
#include "engine/format/llama2c.h"
#include "tests/format/format_test_util.h"

namespace pdbench::test {
namespace {

bool same_bytes(std::span<const float> a, const gguf::TensorInfo& t) {
  return a.size_bytes() == t.size_bytes && std::memcmp(a.data(), t.data, t.size_bytes) == 0;
}

TEST(Llama2cStories260K, HeaderAndSizes) {
  const auto ckpt = Llama2cCheckpoint::open(model_path("stories260K.bin"));
  const auto& c = ckpt.config();
  EXPECT_EQ(c.dim, 64u);
  EXPECT_EQ(c.hidden_dim, 172u);
  EXPECT_EQ(c.n_layers, 5u);
  EXPECT_EQ(c.n_heads, 8u);
  EXPECT_EQ(c.n_kv_heads, 4u);
  EXPECT_EQ(c.vocab_size, 512u);
  EXPECT_EQ(c.seq_len, 512u);
  EXPECT_TRUE(c.shared_classifier);
  EXPECT_EQ(c.head_size(), 8u);
  EXPECT_EQ(c.kv_dim(), 32u);
  EXPECT_EQ(ckpt.token_embedding().size(), 512u * 64u);
  EXPECT_EQ(ckpt.wk(4).size(), 32u * 64u);
  EXPECT_EQ(ckpt.w2(0).size(), 64u * 172u);
  EXPECT_EQ(ckpt.wcls().data(), ckpt.token_embedding().data());
}

// The .bin was rebuilt from the GGUF's tensors, so every array must match the
// GGUF tensor of the same role byte for byte.
TEST(Llama2cStories260K, EveryArrayMatchesTheGguf) {
  const auto ckpt = Llama2cCheckpoint::open(model_path("stories260K.bin"));
  const auto g = gguf::GgufFile::open(model_path("stories260K.gguf"));
  EXPECT_TRUE(same_bytes(ckpt.token_embedding(), g.tensor("token_embd.weight")));
  EXPECT_TRUE(same_bytes(ckpt.wcls(), g.tensor("output.weight")));
  EXPECT_TRUE(same_bytes(ckpt.rms_final(), g.tensor("output_norm.weight")));
  for (size_t l = 0; l < ckpt.config().n_layers; ++l) {
    const auto name = [&](const char* role) { return "blk." + std::to_string(l) + "." + role + ".weight"; };
    EXPECT_TRUE(same_bytes(ckpt.rms_att(l), g.tensor(name("attn_norm")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.wq(l), g.tensor(name("attn_q")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.wk(l), g.tensor(name("attn_k")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.wv(l), g.tensor(name("attn_v")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.wo(l), g.tensor(name("attn_output")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.rms_ffn(l), g.tensor(name("ffn_norm")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.w1(l), g.tensor(name("ffn_gate")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.w2(l), g.tensor(name("ffn_down")))) << l;
    EXPECT_TRUE(same_bytes(ckpt.w3(l), g.tensor(name("ffn_up")))) << l;
  }
  EXPECT_TRUE(fails_with([&] { (void)ckpt.wq(5); }, ckpt.path(), {"layer 5 requested, but it has 5 layers"}));
}

using Header = std::array<int32_t, 7>;  // dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len

// A checkpoint whose float at index i holds i, so positions can be read back.
std::vector<std::byte> checkpoint_bytes(const Header& h, size_t n_floats) {
  std::vector<std::byte> bytes(sizeof(Header) + n_floats * sizeof(float));
  std::memcpy(bytes.data(), h.data(), sizeof(Header));
  for (size_t i = 0; i < n_floats; ++i) {
    const auto f = static_cast<float>(i);
    std::memcpy(bytes.data() + sizeof(Header) + i * sizeof(float), &f, sizeof f);
  }
  return bytes;
}

// dim 4, hidden 6, 2 layers, 2 heads, 1 kv head (kv_dim 2), vocab 5, seq_len 3.
// Float offsets: embedding 0, rms_att 20, wq 28, wk 60, wv 76, wo 92, rms_ffn
// 124, w1 132, w2 180, w3 228, rms_final 276, freq_cis 280..285, wcls 286.
constexpr Header kTiny{4, 6, 2, 2, 1, 5, 3};
constexpr size_t kTinySharedFloats = 286;
constexpr size_t kTinyUnsharedFloats = 306;

class Llama2cFile : public ::testing::Test {
 protected:
  ::testing::AssertionResult rejects(const std::vector<std::byte>& bytes,
                                     std::initializer_list<std::string_view> fragments) {
    write_bytes(path_, bytes);
    return fails_with([&] { (void)Llama2cCheckpoint::open(path_); }, path_, fragments);
  }
  static Header with(size_t field, int32_t value) {
    Header h = kTiny;
    h[field] = value;
    return h;
  }

  ScratchDir dir_{"llama2c"};
  std::string path_ = dir_.file("model.bin");
};

TEST_F(Llama2cFile, SharedClassifierLayout) {
  write_bytes(path_, checkpoint_bytes(kTiny, kTinySharedFloats));
  const auto ckpt = Llama2cCheckpoint::open(path_);
  EXPECT_TRUE(ckpt.config().shared_classifier);
  EXPECT_EQ(ckpt.config().kv_dim(), 2u);
  EXPECT_EQ(ckpt.rms_att(1).front(), 24.0f);
  EXPECT_EQ(ckpt.wq(1).front(), 44.0f);
  EXPECT_EQ(ckpt.wk(1).front(), 68.0f);
  EXPECT_EQ(ckpt.wv(0).front(), 76.0f);
  EXPECT_EQ(ckpt.wo(1).back(), 123.0f);
  EXPECT_EQ(ckpt.rms_ffn(0).front(), 124.0f);
  EXPECT_EQ(ckpt.w1(1).front(), 156.0f);
  EXPECT_EQ(ckpt.w2(0).front(), 180.0f);
  EXPECT_EQ(ckpt.w3(1).back(), 275.0f);
  EXPECT_EQ(ckpt.rms_final().front(), 276.0f);
  EXPECT_EQ(ckpt.wcls().front(), 0.0f);
  EXPECT_EQ(ckpt.wcls().size(), 20u);
}

TEST_F(Llama2cFile, NegativeVocabMeansSeparateClassifierAtTheEnd) {
  write_bytes(path_, checkpoint_bytes(with(5, -5), kTinyUnsharedFloats));
  const auto ckpt = Llama2cCheckpoint::open(path_);
  EXPECT_FALSE(ckpt.config().shared_classifier);
  EXPECT_EQ(ckpt.config().vocab_size, 5u);
  EXPECT_EQ(ckpt.token_embedding().front(), 0.0f);
  EXPECT_EQ(ckpt.wcls().front(), 286.0f);
  EXPECT_EQ(ckpt.wcls().back(), 305.0f);
}

TEST_F(Llama2cFile, TruncatedAtEveryByte) {
  const auto bytes = checkpoint_bytes(kTiny, kTinySharedFloats);
  // Every prefix through the header and into the first floats, then the last few.
  std::vector<size_t> lengths(40);
  std::iota(lengths.begin(), lengths.end(), size_t{0});
  lengths.insert(lengths.end(), {bytes.size() - 4, bytes.size() - 1});
  for (size_t n : lengths)
    EXPECT_TRUE(rejects({bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)}, {"llama2.c checkpoint"}))
        << "prefix of " << n << " bytes";
  EXPECT_TRUE(
      rejects({bytes.begin(), bytes.begin() + 10}, {"expected at least the 28-byte header, found a file of 10"}));
}

TEST_F(Llama2cFile, SizeMismatchSaysExpectedAndActual) {
  auto bytes = checkpoint_bytes(kTiny, kTinySharedFloats);
  bytes.resize(bytes.size() + 3);
  EXPECT_TRUE(rejects(bytes, {"expected 1172 bytes for a header of dim 4, hidden_dim 6", "found 1175 bytes"}));
  // A shared-classifier header on an unshared file is a size mismatch too.
  EXPECT_TRUE(rejects(checkpoint_bytes(kTiny, kTinyUnsharedFloats), {"(shared classifier)", "found 1252 bytes"}));
}

TEST_F(Llama2cFile, NonPositiveOrAbsurdHeaderValues) {
  EXPECT_TRUE(rejects(checkpoint_bytes(with(0, -4), 0), {"header dim = -4: expected a positive value"}));
  EXPECT_TRUE(rejects(checkpoint_bytes(with(2, 0), 0), {"header n_layers = 0"}));
  EXPECT_TRUE(rejects(checkpoint_bytes(with(4, -1), 0), {"header n_kv_heads = -1"}));
  EXPECT_TRUE(rejects(checkpoint_bytes(with(6, 0), 0), {"header seq_len = 0"}));
  EXPECT_TRUE(rejects(checkpoint_bytes(with(5, 0), 0), {"header vocab_size = 0"}));
  EXPECT_TRUE(rejects(checkpoint_bytes(with(5, std::numeric_limits<int32_t>::min()), 0), {"header vocab_size"}));
  EXPECT_TRUE(rejects(checkpoint_bytes(with(1, std::numeric_limits<int32_t>::max()), 0),
                      {"header hidden_dim = 2147483647: expected a positive value of at most 1048576"}));
}

TEST_F(Llama2cFile, InconsistentHeads) {
  EXPECT_TRUE(
      rejects(checkpoint_bytes({6, 6, 1, 4, 4, 5, 3}, 0), {"header dim = 6: expected a multiple of n_heads = 4"}));
  EXPECT_TRUE(rejects(checkpoint_bytes({12, 6, 1, 4, 3, 5, 3}, 0),
                      {"header n_heads = 4: expected a multiple of n_kv_heads = 3"}));
  EXPECT_TRUE(
      rejects(checkpoint_bytes({6, 6, 1, 2, 1, 5, 3}, 0), {"head size dim / n_heads = 3: expected an even value"}));
}

TEST_F(Llama2cFile, OtherFormatsAreNamed) {
  const Header h{0x616b3432, 1, 0, 0, 0, 0, 0};
  EXPECT_TRUE(rejects(checkpoint_bytes(h, 0), {"\"ak42\" magic"}));
  const std::string gguf = model_path("stories260K.gguf");
  EXPECT_TRUE(fails_with([&] { (void)Llama2cCheckpoint::open(gguf); }, gguf, {"found a GGUF file"}));
}

}  // namespace
}  // namespace pdbench::test
