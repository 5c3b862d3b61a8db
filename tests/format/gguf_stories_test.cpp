// Reading the bundled stories260K.gguf (ggml-org's conversion) and the typed
// metadata getters against it.
#include <gtest/gtest.h>

#include "engine/format/gguf.h"
#include "tests/format/format_test_util.h"

namespace pdbench::test {
namespace {

class Stories260KGguf : public ::testing::Test {
 protected:
  // Opened once for the whole suite; read-only.
  static const gguf::GgufFile& f() {
    static const auto file = gguf::GgufFile::open(model_path("stories260K.gguf"));
    return file;
  }

  // Passes when `fn` throws an Error about this file mentioning every fragment.
  template <typename Fn>
  static ::testing::AssertionResult fails(Fn&& fn, std::initializer_list<std::string_view> fragments) {
    return fails_with(std::forward<Fn>(fn), f().path(), fragments);
  }
};

TEST_F(Stories260KGguf, Header) {
  EXPECT_EQ(f().version(), 3u);
  EXPECT_EQ(f().alignment(), 32u);
  EXPECT_EQ(f().metadata().size(), 19u);
  EXPECT_EQ(f().tensors().size(), 48u);
  EXPECT_EQ(f().metadata().front().first, "tokenizer.ggml.tokens");  // file order is kept
}

TEST_F(Stories260KGguf, Metadata) {
  EXPECT_EQ(f().get_string("general.architecture"), "llama");
  EXPECT_EQ(f().get_uint("llama.embedding_length"), 64u);
  EXPECT_EQ(f().get_uint("llama.feed_forward_length"), 172u);
  EXPECT_EQ(f().get_uint("llama.block_count"), 5u);
  EXPECT_EQ(f().get_uint("llama.attention.head_count"), 8u);
  EXPECT_EQ(f().get_uint("llama.attention.head_count_kv"), 4u);
  EXPECT_EQ(f().get_uint("llama.context_length"), 2048u);
  EXPECT_FLOAT_EQ(f().get_float("llama.attention.layer_norm_rms_epsilon"), 1e-5f);
  EXPECT_EQ(f().find("llama.embedding_length")->type, gguf::ValueType::UINT32);

  const auto tokens = f().get_string_array("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.size(), 512u);
  EXPECT_EQ(tokens[0], "<unk>");
  EXPECT_EQ(tokens[1], "<s>");
  EXPECT_EQ(f().get_float_array("tokenizer.ggml.scores").size(), 512u);
  const auto token_types = f().get_int_array("tokenizer.ggml.token_type");
  ASSERT_EQ(token_types.size(), 512u);
  EXPECT_EQ(token_types[0], 2);  // unknown
  EXPECT_EQ(token_types[1], 3);  // control
}

TEST_F(Stories260KGguf, Tensors) {
  for (const auto& t : f().tensors()) EXPECT_EQ(t.type, TensorType::F32) << t.name;
  const auto& embd = f().tensor("token_embd.weight");
  EXPECT_EQ(embd.shape, (std::vector<uint64_t>{64, 512}));
  EXPECT_EQ(embd.n_elements(), 64u * 512u);
  EXPECT_EQ(embd.n_rows(), 512u);
  EXPECT_EQ(embd.size_bytes, 64u * 512u * 4u);
  EXPECT_EQ(embd.offset, 0u);
  const auto& down = f().tensor("blk.4.ffn_down.weight");
  EXPECT_EQ(down.shape, (std::vector<uint64_t>{172, 64}));
  EXPECT_EQ(down.data - embd.data, static_cast<std::ptrdiff_t>(down.offset));
  EXPECT_EQ(f().find_tensor("blk.5.ffn_down.weight"), nullptr);
  EXPECT_TRUE(fails([&] { (void)f().tensor("blk.5.ffn_down.weight"); }, {"tensor blk.5.ffn_down.weight: missing"}));
}

TEST_F(Stories260KGguf, GettersRejectMissingKeysAndWrongTypes) {
  EXPECT_EQ(f().find("no.such.key"), nullptr);
  EXPECT_FALSE(f().has("no.such.key"));
  EXPECT_TRUE(fails([&] { (void)f().get_uint("no.such.key"); }, {"metadata no.such.key: missing"}));
  EXPECT_TRUE(fails([&] { (void)f().get_string("llama.block_count"); },
                    {"metadata llama.block_count: expected a string, found uint32"}));
  EXPECT_TRUE(fails([&] { (void)f().get_uint("general.architecture"); },
                    {"expected an unsigned integer, found string"}));
  EXPECT_TRUE(fails([&] { (void)f().get_float("llama.block_count"); }, {"expected a float32 or float64"}));
  EXPECT_TRUE(fails([&] { (void)f().get_string_array("tokenizer.ggml.scores"); },
                    {"expected an array of strings, found array of float32"}));
  EXPECT_TRUE(fails([&] { (void)f().get_int_array("tokenizer.ggml.tokens"); },
                    {"expected an array of integers, found array of string"}));
  EXPECT_TRUE(fails([&] { (void)f().get_float_array("general.name"); }, {"found string"}));
}

TEST_F(Stories260KGguf, FallbacksOnlyForMissingKeys) {
  EXPECT_EQ(f().get_uint("no.such.key", 7), 7u);
  EXPECT_EQ(f().get_float("no.such.key", 0.5f), 0.5f);
  EXPECT_TRUE(f().get_bool("no.such.key", true));
  EXPECT_EQ(f().get_string("no.such.key", "x"), "x");
  EXPECT_EQ(f().get_uint("llama.block_count", 7), 5u);
  EXPECT_TRUE(fails([&] { (void)f().get_uint("general.name", 7); }, {"metadata general.name"}));
  EXPECT_TRUE(fails([&] { (void)f().get_bool("llama.block_count", false); }, {"expected a bool, found uint32"}));
  EXPECT_TRUE(fails([&] { (void)f().get_string("llama.block_count", "x"); }, {"expected a string"}));
  EXPECT_TRUE(fails([&] { (void)f().get_float("general.name", 1.0f); }, {"expected a float32"}));
}

}  // namespace
}  // namespace pdbench::test
