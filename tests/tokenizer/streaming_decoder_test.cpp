#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/tokenizer/test_tokenizers.h"

namespace pdbench {
namespace {

using test::Vocab;

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

bool is_valid_utf8(const std::string& text) {
  for (size_t pos = 0; pos < text.size();) {
    const utf8::Step step = utf8::next(text, pos);
    if (step.status != utf8::Status::complete) return false;
    pos += step.length;
  }
  return true;
}

// Pushes every id; each chunk must be whole characters.
std::string stream(const Tokenizer& tokenizer, const std::vector<int32_t>& ids) {
  StreamingDecoder decoder(tokenizer);
  std::string text;
  for (const int32_t id : ids) {
    const std::string chunk = decoder.push(id);
    EXPECT_TRUE(is_valid_utf8(chunk)) << "after id " << id;
    text += chunk;
  }
  text += decoder.flush();
  return text;
}

int32_t byte_token(int b) { return 3 + b; }  // tok512: <0x00> is id 3

TEST(StreamingDecoder, HoldsCharactersSpreadOverByteTokens) {
  const Tokenizer& tok512 = *test::cached_tokenizer(Vocab::tok512_bin);
  const std::string text = "大模型很好用 🦙🚀 and 👍🏽";
  const std::vector<int32_t> ids = tok512.encode(text, false);
  // tok512 has no CJK or emoji pieces: they are spelled byte by byte.
  EXPECT_NE(std::find(ids.begin(), ids.end(), byte_token(0xE5)), ids.end());
  EXPECT_EQ(stream(tok512, ids), text);
}

TEST(StreamingDecoder, DropsTheDummyPrefixAfterBos) {
  const Tokenizer& tok512 = *test::cached_tokenizer(Vocab::tok512_gguf);
  EXPECT_EQ(stream(tok512, tok512.encode("Once upon a time, 大", true)), "Once upon a time, 大");
}

TEST(StreamingDecoder, ByteLevelBpeSplitsEmojiAcrossTokens) {
  const Tokenizer& gpt2 = *test::cached_tokenizer(Vocab::gpt2);
  const std::string text = "I love 🦙 llamas! 🚀🔥👍🏽 请解释";
  EXPECT_EQ(stream(gpt2, gpt2.encode(text, false)), text);
}

TEST(StreamingDecoder, EmitsEachCharacterOnceComplete) {
  const Tokenizer& tok512 = *test::cached_tokenizer(Vocab::tok512_bin);
  StreamingDecoder decoder(tok512);
  EXPECT_EQ(decoder.push(byte_token(0xE5)), "");  // 大 = E5 A4 A7
  EXPECT_EQ(decoder.push(byte_token(0xA4)), "");
  EXPECT_EQ(decoder.push(byte_token(0xA7)), "大");
  EXPECT_EQ(decoder.flush(), "");
}

TEST(StreamingDecoder, FlushReplacesAnIncompleteCharacter) {
  const Tokenizer& tok512 = *test::cached_tokenizer(Vocab::tok512_bin);
  StreamingDecoder decoder(tok512);
  EXPECT_EQ(decoder.push(byte_token(0xF0)), "");
  EXPECT_EQ(decoder.push(byte_token(0x9F)), "");
  EXPECT_EQ(decoder.flush(), kReplacement);
  EXPECT_EQ(decoder.flush(), "");
}

TEST(StreamingDecoder, ReplacesBytesThatCannotStartOrContinueACharacter) {
  const Tokenizer& tok512 = *test::cached_tokenizer(Vocab::tok512_bin);
  int32_t a = 0;
  while (tok512.piece(a) != "a") ++a;
  StreamingDecoder decoder(tok512);
  // A stray continuation byte, then a lead byte cut short by ASCII: neither
  // waits for more input.
  EXPECT_EQ(decoder.push(byte_token(0xA4)), kReplacement);
  EXPECT_EQ(decoder.push(byte_token(0xE5)), "");
  EXPECT_EQ(decoder.push(a), std::string(kReplacement) + "a");
  EXPECT_EQ(decoder.push(byte_token(0xFF)), kReplacement);
  EXPECT_EQ(decoder.flush(), "");
}

}  // namespace
}  // namespace pdbench
