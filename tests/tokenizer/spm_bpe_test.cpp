// SentencePiece-style BPE on a small hand-made vocabulary, checking the
// run.c rules one by one, plus long inputs on tok512.
#include "engine/tokenizer/spm_bpe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/util/error.h"
#include "tests/tokenizer/test_tokenizers.h"

namespace pdbench {
namespace {

using Ids = std::vector<int32_t>;

// 0 <unk>, 1 <s>, 2 </s>, 3..258 <0x00>..<0xFF>, then these.
enum : int32_t { kSpace = 259, kA, kB, kC, kAB, kBC, kSpaceA, kVocabSize };

SpmVocab tiny_vocab(float ab_score, float bc_score) {
  SpmVocab v;
  v.source = "tiny";
  v.space = "\u2581";
  const auto add = [&](std::string piece, float score, SpmTokenKind kind) {
    v.pieces.push_back(std::move(piece));
    v.scores.push_back(score);
    v.kinds.push_back(kind);
  };
  add("<unk>", 0, SpmTokenKind::unmatched);
  add("<s>", 0, SpmTokenKind::control);
  add("</s>", 0, SpmTokenKind::control);
  for (int b = 0; b < 256; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    add(piece, 0, SpmTokenKind::byte);
    v.byte_fallback[static_cast<size_t>(b)] = 3 + b;
  }
  add("\u2581", -100, SpmTokenKind::normal);
  add("a", -100, SpmTokenKind::normal);
  add("b", -100, SpmTokenKind::normal);
  add("c", -100, SpmTokenKind::normal);
  add("ab", ab_score, SpmTokenKind::normal);
  add("bc", bc_score, SpmTokenKind::normal);
  add("\u2581a", -5, SpmTokenKind::normal);
  v.bos = 1;
  v.eos = 2;
  return v;
}

SpmBpeTokenizer tokenizer(float ab_score, float bc_score, bool add_space_prefix = false) {
  SpmVocab v = tiny_vocab(ab_score, bc_score);
  v.add_space_prefix = add_space_prefix;
  return SpmBpeTokenizer(std::move(v));
}

TEST(SpmBpe, BestScoreMergesFirstAndTheLeftmostPairWinsTies) {
  EXPECT_EQ(tokenizer(-1, -2).encode("abc", false), (Ids{kAB, kC}));
  EXPECT_EQ(tokenizer(-2, -1).encode("abc", false), (Ids{kA, kBC}));
  EXPECT_EQ(tokenizer(-1, -1).encode("abc", false), (Ids{kAB, kC}));
  EXPECT_EQ(tokenizer(-1, -1).encode("abcabc", false), (Ids{kAB, kC, kAB, kC}));
}

TEST(SpmBpe, ScoresNotAboveMinusTenBillionNeverMerge) {
  // run.c starts its search for the best pair at -1e10.
  EXPECT_EQ(tokenizer(-1e10f, -1e11f).encode("abc", false), (Ids{kA, kB, kC}));
  EXPECT_EQ(tokenizer(-9e9f, -1e11f).encode("abc", false), (Ids{kAB, kC}));
  EXPECT_EQ(tokenizer(std::numeric_limits<float>::quiet_NaN(), -1e11f).encode("abc", false), (Ids{kA, kB, kC}));
}

TEST(SpmBpe, DummyPrefixAndSpaces) {
  const SpmBpeTokenizer t = tokenizer(-1, -2, true);
  EXPECT_EQ(t.encode("a ab", false), (Ids{kSpaceA, kSpace, kAB}));
  EXPECT_EQ(t.encode("", false), Ids{});
  EXPECT_EQ(t.encode("", true), Ids{1});
  EXPECT_EQ(t.encode("ab", true), (Ids{1, kSpace, kAB}));
}

TEST(SpmBpe, UnknownCharactersFallBackToBytes) {
  const SpmBpeTokenizer t = tokenizer(-1, -2);
  EXPECT_EQ(t.encode("a\xC3\xA9", false), (Ids{kA, 3 + 0xC3, 3 + 0xA9}));
  // run.c groups a byte with at most three continuation bytes after it.
  EXPECT_EQ(t.encode("\x80\x80\x80\x80\x80", false), (Ids(5, 3 + 0x80)));
}

TEST(SpmBpe, DecodingRestoresSpacesAndBytesAndHidesControlTokens) {
  const SpmBpeTokenizer t = tokenizer(-1, -2, true);
  EXPECT_EQ(t.token_bytes(kSpaceA, -1), "a");  // start of text: dummy prefix dropped
  EXPECT_EQ(t.token_bytes(kSpaceA, 1), "a");   // after BOS too, as run.c
  EXPECT_EQ(t.token_bytes(kSpaceA, kA), " a");
  EXPECT_EQ(t.token_bytes(3 + 0x20, -1), " ");  // a byte token's space is text
  EXPECT_EQ(t.token_bytes(2, kA), "");
  EXPECT_EQ(t.token_bytes(3 + 0xE5, kA), "\xE5");
  EXPECT_EQ(t.piece(kSpaceA), "\u2581a");
  EXPECT_EQ(t.decode({1, kSpaceA, kSpace, kAB, 2}), "a ab");
}

TEST(SpmBpe, RemoveExtraWhitespacesCollapsesSpacesOnly) {
  SpmVocab v = tiny_vocab(-1, -2);
  v.remove_extra_whitespaces = true;
  const SpmBpeTokenizer t(std::move(v));
  EXPECT_EQ(t.encode("   a  \t  ab   ", false), t.encode("a \t ab", false));
  EXPECT_EQ(t.encode("     ", false), Ids{});
}

TEST(SpmBpe, BadIdsThrowNamingTheSource) {
  const SpmBpeTokenizer t = tokenizer(-1, -2);
  try {
    t.token_bytes(kVocabSize, -1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "tiny: token id 266 is outside the vocabulary (266 tokens)");
  }
  EXPECT_THROW(t.piece(-2), Error);
}

TEST(SpmBpe, Llama2cEndOfGeneration) {
  // run.c stops when BOS is sampled; EOS ends generation as everywhere.
  const Tokenizer& tok512 = *test::cached_tokenizer(test::Vocab::tok512_bin);
  EXPECT_TRUE(tok512.is_end_of_generation(1));
  EXPECT_TRUE(tok512.is_end_of_generation(2));
  EXPECT_FALSE(tok512.is_end_of_generation(0));
  EXPECT_EQ(tok512.n_vocab(), 512);
  EXPECT_EQ(tok512.piece(1), "\n<s>\n");
  EXPECT_EQ(tok512.token_bytes(1, -1), "");
}

TEST(SpmBpe, LongInputs) {
  std::string prose;
  while (prose.size() < 100'000) {
    prose +=
        "Once upon a time, there was a little girl named Lily 大模型 🦙 " + std::to_string(prose.size()) + ".\n";
  }
  const Tokenizer& tok512 = *test::cached_tokenizer(test::Vocab::tok512_bin);
  for (const std::string& text : {prose, std::string(100'000, 'a'), std::string(100'000, ' ')}) {
    EXPECT_EQ(tok512.decode(tok512.encode(text, false)), text);
  }
}

}  // namespace
}  // namespace pdbench
