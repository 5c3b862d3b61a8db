// Bad tokenizer files: every loader error is a pdbench::Error whose message
// names the file and the problem, never a crash or a foreign exception.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"
#include "tests/tokenizer/tiny_tokenizer.h"

namespace pdbench {
namespace {

using nlohmann::json;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `load` must throw pdbench::Error mentioning `path` and `detail`.
template <typename Load>
void expect_error(Load load, const std::string& path, const std::string& detail) {
  try {
    load();
    ADD_FAILURE() << "no error for " << path << " (expected: " << detail << ")";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(detail), std::string::npos) << message;
  }
}

void expect_llama2c_error(const std::string& path, const std::string& detail, int32_t vocab_size = 0) {
  expect_error([&] { load_tokenizer_llama2c(path, vocab_size); }, path, detail);
}

void expect_json_error(const std::string& path, const std::string& detail) {
  expect_error([&] { load_tokenizer_json(path); }, path, detail);
}

std::string int32_bytes(int32_t v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); }
std::string float_bytes(float v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); }

TEST(Llama2cLoader, TruncatedFileFailsAtEveryCut) {
  const std::string whole = file_bytes(test::model_path("tok512.bin"));
  const test::TempDir dir("tok-truncated");
  // Inside the header, a score, a length, a piece; the last token's piece.
  for (const size_t cut :
       {size_t{0}, size_t{2}, size_t{6}, size_t{10}, size_t{14}, whole.size() / 2, whole.size() - 1}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    const std::string path = dir.write("tok" + std::to_string(cut) + ".bin", whole.substr(0, cut));
    expect_llama2c_error(path, "before the end of the file");
  }
  const std::string path = dir.write("tok.bin", whole);
  expect_llama2c_error(path, "token 512: expected score", 513);  // the checkpoint claims more tokens
}

TEST(Llama2cLoader, RejectsBadLengthsAndTooSmallVocabularies) {
  const test::TempDir dir("tok-lengths");
  expect_llama2c_error(dir.write("neg.bin", int32_bytes(8) + float_bytes(0) + int32_bytes(-5)), "token 0: length -5");
  expect_llama2c_error(dir.write("long.bin", int32_bytes(3) + float_bytes(0) + int32_bytes(5) + "abcde"),
                       "outside 0..max_token_length (3)");
  expect_llama2c_error(dir.write("max.bin", int32_bytes(0)), "max_token_length 0");
  std::string one_token = int32_bytes(8) + float_bytes(0) + int32_bytes(5) + "<unk>";
  expect_llama2c_error(dir.write("small.bin", one_token), "has 1 tokens; expected at least 259");
  const std::string tok512 = test::model_path("tok512.bin");
  expect_llama2c_error(tok512, "vocab_size -1 is negative", -1);
  expect_llama2c_error(tok512, "expected at least 259", 100);
}

TEST(Llama2cLoader, MissingFileOrDirectory) {
  const test::TempDir dir("tok-missing");
  expect_llama2c_error(dir.path() + "/nope.bin", "cannot open");
  expect_llama2c_error(dir.path(), "not a regular file");
}

TEST(TokenizerJsonLoader, MissingFileOrDirectory) {
  const test::TempDir dir("json-missing");
  expect_json_error(dir.path() + "/tokenizer.json", "no such file");
  expect_json_error(dir.path(), "not a regular file");
}

TEST(TokenizerJsonLoader, NotJsonOrBrokenGzip) {
  const test::TempDir dir("json-syntax");
  expect_json_error(dir.write("text.json", "this is { not json"), "not valid JSON");
  expect_json_error(dir.write("empty.json", ""), "not valid JSON");
  const std::string gz = file_bytes(test::data_path("tokenizers/gpt2/tokenizer.json.gz"));
  expect_json_error(dir.write("half.json.gz", gz.substr(0, gz.size() / 2)), "truncated gzip stream");
  std::string corrupt = gz;
  for (size_t i = 100; i < 200; ++i) corrupt[i] = static_cast<char>(~corrupt[i]);
  expect_json_error(dir.write("corrupt.json.gz", corrupt), "cannot read");
}

TEST(TokenizerJsonLoader, MissingFieldsAndWrongTypes) {
  const test::TempDir dir("json-fields");
  const json good = test::tiny_tokenizer_json({"a b"});
  const auto expect_broken = [&](const std::string& name, const std::function<void(json&)>& edit,
                                 const std::string& detail) {
    SCOPED_TRACE(name);
    json doc = good;
    edit(doc);
    expect_json_error(dir.write(name + ".json", doc.dump()), detail);
  };
  expect_broken(
      "array", [](json& d) { d = json::array(); }, "document: expected object, found array");
  expect_broken(
      "no_model", [](json& d) { d.erase("model"); }, "model: missing");
  expect_broken(
      "vocab_array", [](json& d) { d["model"]["vocab"] = json::array(); }, "model.vocab: expected object, found array");
  expect_broken(
      "no_merges", [](json& d) { d["model"].erase("merges"); }, "model.merges: missing");
  expect_broken(
      "merge_number", [](json& d) { d["model"]["merges"][0] = 7; },
      "model.merges[0]: expected \"left right\" or [left, right], found number");
  expect_broken(
      "merge_no_space", [](json& d) { d["model"]["merges"][0] = "ab"; }, "model.merges[0]: \"ab\" is not two tokens");
  expect_broken(
      "merge_unknown", [](json& d) { d["model"]["merges"][0] = "a zz"; },
      "merge 0 \"a zz\": \"zz\" is not in the vocabulary");
  expect_broken(
      "id_string", [](json& d) { d["model"]["vocab"]["a"] = "97"; }, "model.vocab.a: expected number, found string");
  expect_broken(
      "id_negative", [](json& d) { d["model"]["vocab"]["a"] = -3; }, "model.vocab.a: id -3 out of range");
  expect_broken(
      "id_huge", [](json& d) { d["model"]["vocab"]["ab"] = 1 << 30; }, "has id 1073741824, outside");
  expect_broken(
      "no_byte",
      [](json& d) {
        d["model"]["vocab"].erase("a");
        d["model"]["vocab"]["zz"] = 97;
      },
      "the vocabulary has no token for byte 0x61");
  expect_broken(
      "unigram", [](json& d) { d["model"]["type"] = "Unigram"; }, "model.type: \"Unigram\" is not supported");
  expect_broken(
      "sentencepiece_style", [](json& d) { d["pre_tokenizer"] = nullptr; }, "no ByteLevel step");
  expect_broken(
      "pre_type",
      [](json& d) {
        d["pre_tokenizer"] = {{"type", "Whitespace"}};
      },
      "pre_tokenizer: type \"Whitespace\" is not supported");
  expect_broken(
      "bad_regex",
      [](json& d) {
        d["pre_tokenizer"] = {{"type", "Sequence"},
                              {"pretokenizers",
                               {{{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}},
                                {{"type", "ByteLevel"}, {"use_regex", false}}}}};
      },
      "pre-tokenizer pattern (unclosed");
  expect_broken(
      "normalizer",
      [](json& d) {
        d["normalizer"] = {{"type", "Lowercase"}};
      },
      "normalizer: type \"Lowercase\" is not supported");
  expect_broken(
      "added_no_content",
      [](json& d) {
        d["added_tokens"] = {{{"id", 300}}};
      },
      "added_tokens[0].content: missing");
}

TEST(TokenizerJsonLoader, TokenizerConfigNamingAMissingToken) {
  const test::TempDir dir("json-config");
  const std::string path = dir.write("tokenizer.json", test::tiny_tokenizer_json({"a b"}).dump());
  const std::string config = dir.write("tokenizer_config.json", R"({"bos_token": "<s>", "eos_token": null})");
  expect_error([&] { load_tokenizer_json(path); }, config, "bos_token: \"<s>\" is not a token of " + path);
  dir.write("tokenizer_config.json", "{ broken");
  expect_error([&] { load_tokenizer_json(path); }, config, "not valid JSON");
}

}  // namespace
}  // namespace pdbench
