// Tokenizers from GGUF metadata: stories260K's embedded SentencePiece
// vocabulary, byte-level vocabularies written the way llama.cpp's converter
// does, and malformed tokenizer metadata.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "engine/format/gguf.h"
#include "engine/format/gguf_writer.h"
#include "engine/tokenizer/gzip_file.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"
#include "tests/tokenizer/test_tokenizers.h"
#include "tests/tokenizer/tiny_tokenizer.h"

namespace pdbench {
namespace {

using gguf::GgufWriter;
using gguf::Value;
using nlohmann::json;

std::unique_ptr<Tokenizer> load(const GgufWriter& writer, const test::TempDir& dir) {
  const std::string path = dir.path() + "/tokenizer.gguf";
  writer.write(path);
  return load_tokenizer_from_gguf(gguf::GgufFile::open(path));
}

void expect_error(const GgufWriter& writer, const std::string& detail) {
  const test::TempDir dir("gguf-tok-error");
  try {
    load(writer, dir);
    ADD_FAILURE() << "no error (expected: " << detail << ")";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(dir.path() + "/tokenizer.gguf: "), std::string::npos) << message;
    EXPECT_NE(message.find(detail), std::string::npos) << message;
  }
}

// <unk> <s> </s>, the 256 byte tokens, then ▁ a ▁a.
GgufWriter spm_writer() {
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<int32_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    tokens.push_back(piece);
    types.push_back(6);
  }
  for (const char* piece : {"\u2581", "a", "\u2581a"}) {
    tokens.push_back(piece);
    types.push_back(1);
  }
  std::vector<float> scores(tokens.size(), 0.0f);
  scores.back() = -1;
  GgufWriter w;
  w.set("tokenizer.ggml.model", Value::str("llama"));
  w.set("tokenizer.ggml.tokens", Value::strings(tokens));
  w.set("tokenizer.ggml.scores", Value::f32s(scores));
  w.set("tokenizer.ggml.token_type", Value::i32s(types));
  return w;
}
constexpr int32_t kSpaceA = 261;

// A tokenizer.json vocabulary as llama.cpp's converter stores it: pieces by
// id, added tokens as control (special) or user-defined, merges as "a b".
GgufWriter byte_level_writer(const json& doc, const std::string& pre) {
  const json& vocab = doc["model"]["vocab"];
  const json& added = doc["added_tokens"];
  std::vector<std::string> tokens(vocab.size() + added.size());
  std::vector<int32_t> types(tokens.size(), 1);
  for (const auto& [piece, id] : vocab.items()) tokens.at(id.get<size_t>()) = piece;
  for (const json& token : added) {
    const auto id = token["id"].get<size_t>();
    tokens.at(id) = token["content"];
    types.at(id) = token.value("special", true) ? 3 : 4;
  }
  std::vector<std::string> merges;
  for (const json& merge : doc["model"]["merges"]) {
    merges.push_back(merge.is_string() ? merge.get<std::string>()
                                       : merge[0].get<std::string>() + " " + merge[1].get<std::string>());
  }
  GgufWriter w;
  w.set("tokenizer.ggml.model", Value::str("gpt2"));
  w.set("tokenizer.ggml.pre", Value::str(pre));
  w.set("tokenizer.ggml.tokens", Value::strings(std::move(tokens)));
  w.set("tokenizer.ggml.token_type", Value::i32s(types));
  w.set("tokenizer.ggml.merges", Value::strings(std::move(merges)));
  return w;
}

TEST(GgufTokenizer, Stories260KVocabulary) {
  const Tokenizer& tok = *test::cached_tokenizer(test::Vocab::tok512_gguf);
  EXPECT_EQ(tok.n_vocab(), 512);
  EXPECT_EQ(tok.bos(), 1);
  EXPECT_EQ(tok.eos(), 2);
  EXPECT_TRUE(tok.is_end_of_generation(2));
  EXPECT_EQ(tok.piece(259), "\u2581t");
  EXPECT_EQ(tok.token_bytes(259, 100), " t");
  EXPECT_EQ(tok.token_bytes(259, 1), "t");
  EXPECT_EQ(tok.token_bytes(3 + 0x0A, 100), "\n");
  EXPECT_EQ(tok.token_bytes(1, -1), "");
  // Identical to the llama2.c export of the same vocabulary, id for id.
  const Tokenizer& bin = *test::cached_tokenizer(test::Vocab::tok512_bin);
  for (int32_t id = 3; id < 512; ++id) EXPECT_EQ(tok.token_bytes(id, 100), bin.token_bytes(id, 100)) << id;
}

TEST(GgufTokenizer, ByteLevelVocabulariesMatchTheirTokenizerJson) {
  struct Case {
    const char* name;
    std::string path;
    const char* pre;
    const char* cases;
  };
  const Case cases[] = {
      {"qwen3", test::data_path("tokenizers/qwen3/tokenizer.json.gz"), "qwen2", "qwen3.jsonl"},
      {"llama3", test::shared_path("models/tokenizers/llama3/tokenizer.json.gz"), "llama-bpe", "llama3.jsonl"},
      {"gpt2", test::data_path("tokenizers/gpt2/tokenizer.json.gz"), "gpt2", "gpt2.jsonl"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.path.empty()) {
      std::printf("note: %s skipped, shared data folder not found\n", c.name);
      continue;
    }
    const test::TempDir dir("gguf-byte-level");
    const auto tokenizer = load(byte_level_writer(json::parse(read_maybe_gzip(c.path, size_t{1} << 30)), c.pre), dir);
    for (const json& row : test::read_jsonl(test::data_path(std::string("tokenizer-cases/") + c.cases))) {
      const std::string text = row["text"];
      const std::vector<int32_t> ids = row["ids"];
      EXPECT_EQ(tokenizer->encode(text, false), ids) << text;
      EXPECT_EQ(tokenizer->decode(ids), text);
    }
  }
}

TEST(GgufTokenizer, SpecialIdsAndAddBos) {
  const test::TempDir dir("gguf-special");
  GgufWriter w = spm_writer();
  EXPECT_EQ(load(w, dir)->bos(), 1);  // llama.cpp's defaults for "llama" vocabularies
  w.set("tokenizer.ggml.bos_token_id", Value::u32(2));
  w.set("tokenizer.ggml.eos_token_id", Value::u32(0xFFFFFFFF));  // "none"
  w.set("tokenizer.ggml.eot_token_id", Value::u32(kSpaceA));
  auto tokenizer = load(w, dir);
  EXPECT_EQ(tokenizer->bos(), 2);
  EXPECT_EQ(tokenizer->eos(), -1);
  EXPECT_TRUE(tokenizer->is_end_of_generation(kSpaceA));
  w.set("tokenizer.ggml.add_bos_token", Value::boolean(false));
  EXPECT_EQ(load(w, dir)->bos(), -1);
  EXPECT_EQ(load(w, dir)->encode("a", true), std::vector<int32_t>{kSpaceA});
  w.set("tokenizer.ggml.add_space_prefix", Value::boolean(false));
  EXPECT_EQ(load(w, dir)->encode("a a", false), (std::vector<int32_t>{260, kSpaceA}));
}

TEST(GgufTokenizer, MalformedTokenizerMetadata) {
  const auto broken = [](const std::function<void(GgufWriter&)>& edit) {
    GgufWriter w = spm_writer();
    edit(w);
    return w;
  };
  expect_error(broken([](GgufWriter& w) { w.set("tokenizer.ggml.model", Value::str("bert")); }),
               "tokenizer.ggml.model \"bert\" is not supported");
  expect_error(broken([](GgufWriter& w) {
                 w.set("tokenizer.ggml.token_type", Value::i32s({1, 2}));
               }),
               "tokenizer.ggml.token_type has 2 entries but tokenizer.ggml.tokens has 262");
  expect_error(broken([](GgufWriter& w) { w.set("tokenizer.ggml.scores", Value::f32s({0})); }),
               "tokenizer.ggml.scores has 1 entries but tokenizer.ggml.tokens has 262");
  expect_error(broken([](GgufWriter& w) { w.set("tokenizer.ggml.tokens", Value::str("oops")); }),
               "tokenizer.ggml.tokens");
  expect_error(broken([](GgufWriter& w) { w.set("tokenizer.ggml.bos_token_id", Value::u32(100000)); }),
               "tokenizer.ggml.bos_token_id = 100000 is outside the vocabulary (262 tokens)");
  expect_error(broken([](GgufWriter& w) {
                 std::vector<int32_t> types(262, 1);
                 types[0] = 9;
                 w.set("tokenizer.ggml.token_type", Value::i32s(types));
               }),
               "tokenizer.ggml.token_type[0] = 9 is not a token type");
  expect_error(broken([](GgufWriter& w) {
                 std::vector<int32_t> types(262, 6);
                 w.set("tokenizer.ggml.token_type", Value::i32s(types));
               }),
               "token 0 is a byte token but its piece \"<unk>\" is not <0xXX>");
  expect_error(broken([](GgufWriter& w) {
                 w.set("tokenizer.ggml.token_type", Value::i32s(std::vector<int32_t>(262, 1)));
                 w.set("tokenizer.ggml.unknown_token_id", Value::u32(0xFFFFFFFF));
               }),
               "no byte token <0x00> and no unknown token");

  const json tiny = test::tiny_tokenizer_json({"a b"});
  GgufWriter w = byte_level_writer(tiny, "gpt2");
  w.set("tokenizer.ggml.pre", Value::str("starcoder"));
  expect_error(w, "tokenizer.ggml.pre \"starcoder\" is not supported");
  w = byte_level_writer(tiny, "gpt2");
  w.set("tokenizer.ggml.merges", Value::strings({"ab"}));
  expect_error(w, "tokenizer.ggml.merges[0] = \"ab\" is not two tokens");
  w.set("tokenizer.ggml.merges", Value::strings({"a q9"}));
  expect_error(w, "merge 0 \"a q9\": \"q9\" is not in the vocabulary");
}

}  // namespace
}  // namespace pdbench
