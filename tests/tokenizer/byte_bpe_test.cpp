// Byte-level BPE behaviour on small synthetic tokenizer.json files, plus long
// and hostile inputs on the real vocabularies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/util/error.h"
#include "tests/tokenizer/test_tokenizers.h"
#include "tests/tokenizer/tiny_tokenizer.h"

namespace pdbench {
namespace {

using nlohmann::json;
using test::Vocab;
using Ids = std::vector<int32_t>;

constexpr int32_t kA = 'a';  // tiny tokenizers: byte b is id b
constexpr int32_t kB = 'b';
constexpr int32_t kC = 'c';

std::unique_ptr<Tokenizer> load(const json& doc) {
  const test::TempDir dir("byte-bpe");
  return load_tokenizer_json(dir.write("tokenizer.json", doc.dump()));
}

TEST(ByteBpe, LowerRankMergesFirst) {
  // Vocabulary ids: "bc" 256, "ab" 257.
  EXPECT_EQ(load(test::tiny_tokenizer_json({"b c", "a b"}))->encode("abc", false), (Ids{kA, 256}));
  // "ab" 256, "bc" 257.
  EXPECT_EQ(load(test::tiny_tokenizer_json({"a b", "b c"}))->encode("abc", false), (Ids{256, kC}));
}

TEST(ByteBpe, LeftmostPairWinsTiesAndMergesChain) {
  const auto tokenizer = load(test::tiny_tokenizer_json({"a a", "aa b"}));  // "aa" 256, "aab" 257
  EXPECT_EQ(tokenizer->encode("aaa", false), (Ids{256, kA}));
  EXPECT_EQ(tokenizer->encode("aab", false), (Ids{257}));
  EXPECT_EQ(tokenizer->encode("aaab", false), (Ids{256, kA, kB}));
}

TEST(ByteBpe, IgnoreMergesKeepsAWholeVocabularyPreToken) {
  json doc = test::tiny_tokenizer_json({"a b"});  // "ab" 256
  doc["model"]["vocab"]["abc"] = 257;             // no merge builds it
  EXPECT_EQ(load(doc)->encode("abc", false), (Ids{256, kC}));
  doc["model"]["ignore_merges"] = true;
  EXPECT_EQ(load(doc)->encode("abc", false), (Ids{257}));
  EXPECT_EQ(load(doc)->encode("abcd,abc", false), (Ids{256, kC, 'd', ',', 257}));
}

TEST(ByteBpe, AddedTokensAreMatchedLeftmostLongestBeforeSplitting) {
  json doc = test::tiny_tokenizer_json({"a b"});
  doc["added_tokens"] = {{{"id", 257}, {"content", "<x>"}}, {{"id", 258}, {"content", "<x>y"}}};
  const auto tokenizer = load(doc);
  EXPECT_EQ(tokenizer->encode("ab<x>yab<x>", false), (Ids{256, 258, 256, 257}));
  EXPECT_EQ(tokenizer->decode({256, 258, 256, 257}), "ab<x>yab<x>");
  EXPECT_EQ(tokenizer->piece(258), "<x>y");
}

TEST(ByteBpe, LiteralSplitPatternBoundsMerges) {
  json doc = test::tiny_tokenizer_json({"a -", "a- b"});
  doc["pre_tokenizer"] = {{"type", "Sequence"},
                          {"pretokenizers",
                           {{{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", "Isolated"}},
                            {{"type", "ByteLevel"}, {"use_regex", false}}}}};
  EXPECT_EQ(load(doc)->encode("a-b", false), (Ids{kA, '-', kB}));
}

TEST(ByteBpe, NfcNormalizerComposes) {
  json doc = test::tiny_tokenizer_json({});
  doc["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}}}};
  EXPECT_EQ(load(doc)->encode("e\xCC\x81", false), (Ids{0xC3, 0xA9}));  // é, composed
  const Tokenizer& qwen3 = *test::cached_tokenizer(Vocab::qwen3);
  EXPECT_EQ(qwen3.encode("cafe\xCC\x81", false), qwen3.encode("caf\xC3\xA9", false));
  EXPECT_EQ(qwen3.decode(qwen3.encode("cafe\xCC\x81", false)), "caf\xC3\xA9");
}

TEST(ByteBpe, InvalidUtf8RoundTrips) {
  for (const Vocab vocab : {Vocab::gpt2, Vocab::qwen3}) {
    const Tokenizer& tokenizer = *test::cached_tokenizer(vocab);
    const std::string text = std::string("ok \xFF\xFE then \xE5\xA4 cut, surrogate \xED\xA0\x80, nul ") +
                             std::string(1, '\0') + " and \xF0\x9F\xA6";
    EXPECT_EQ(tokenizer.decode(tokenizer.encode(text, false)), text);
  }
}

TEST(ByteBpe, EndOfGenerationTokens) {
  const Tokenizer& qwen3 = *test::cached_tokenizer(Vocab::qwen3);
  EXPECT_EQ(qwen3.eos(), 151645);  // <|im_end|>, from tokenizer_config.json
  EXPECT_TRUE(qwen3.is_end_of_generation(151645));
  EXPECT_TRUE(qwen3.is_end_of_generation(151643));   // <|endoftext|>
  EXPECT_FALSE(qwen3.is_end_of_generation(151644));  // <|im_start|>
  const Tokenizer& gpt2 = *test::cached_tokenizer(Vocab::gpt2);
  EXPECT_EQ(gpt2.eos(), 50256);
  EXPECT_EQ(gpt2.bos(), -1);
  EXPECT_EQ(gpt2.piece(gpt2.encode(" the", false).at(0)), "\xC4\xA0the");  // "Ġthe"
}

TEST(ByteBpe, BadIdsThrow) {
  const Tokenizer& gpt2 = *test::cached_tokenizer(Vocab::gpt2);
  EXPECT_THROW(gpt2.token_bytes(gpt2.n_vocab(), -1), Error);
  EXPECT_THROW(gpt2.piece(-1), Error);
  EXPECT_THROW(gpt2.decode({0, 1 << 30}), Error);
}

// 100 KB inputs must go through in reasonable time (the test suite's
// timeout catches quadratic behaviour) and round-trip.
TEST(ByteBpe, LongInputs) {
  std::string prose;
  while (prose.size() < 100'000) {
    prose += "Once upon a time, 大模型很好用 there were 12345 llamas 🦙 named Lily-" +
             std::to_string(prose.size()) + ".\n\t";
  }
  const std::vector<std::string> texts = {prose, std::string(100'000, ' '), std::string(100'000, 'a'),
                                          std::string(50'000, '\n') + std::string(50'000, ' ') + "x"};
  for (const Vocab vocab : {Vocab::gpt2, Vocab::qwen3, Vocab::llama3}) {
    const Tokenizer* tokenizer = test::cached_tokenizer(vocab);
    if (tokenizer == nullptr) continue;  // llama3 without the shared folder
    for (const std::string& text : texts) EXPECT_EQ(tokenizer->decode(tokenizer->encode(text, false)), text);
  }
}

}  // namespace
}  // namespace pdbench
