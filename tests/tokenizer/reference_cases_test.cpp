// Every string of tests/data/tokenizer-cases/ against the reference encoders
// (see the shared PROVENANCE.md section 4): encode(text) == ids and
// decode(ids) gives the text back.
#include <gtest/gtest.h>
#include <utf8proc.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "tests/support/test_paths.h"
#include "tests/tokenizer/test_tokenizers.h"

namespace pdbench {
namespace {

using test::Vocab;

constexpr int kCasesPerFile = 25;

std::string nfc(const std::string& text) {
  utf8proc_uint8_t* out = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(text.c_str()));
  std::string result(reinterpret_cast<const char*>(out));
  std::free(out);
  return result;
}

// SentencePiece's remove_extra_whitespaces: runs of spaces become one,
// leading and trailing ones go.
std::string collapse_spaces(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

struct Reference {
  const char* name;
  const char* cases;  // in tests/data/tokenizer-cases/
  Vocab vocab;
  std::string (*decoded)(const std::string& text);  // what decode(ids) gives back
};

// Names the parameter in test listings (CTest shows it).
void PrintTo(const Reference& ref, std::ostream* out) { *out << ref.cases; }

std::string same(const std::string& text) { return text; }

const std::vector<Reference>& references() {
  static const std::vector<Reference> refs = {
      {"gpt2", "gpt2.jsonl", Vocab::gpt2, same},
      {"qwen3", "qwen3.jsonl", Vocab::qwen3, nfc},
      {"llama3", "llama3.jsonl", Vocab::llama3, same},
      {"llama2_sp_via_llama2c", "llama2-sp.jsonl", Vocab::llama2, same},
      {"tok512_llama2c_bin", "tok512-llama2c.jsonl", Vocab::tok512_bin, same},
      {"tok512_llama2c_gguf", "tok512-llama2c.jsonl", Vocab::tok512_gguf, same},
      {"tok512_sp", "tok512-sp.jsonl", Vocab::tok512_sentencepiece, collapse_spaces},
  };
  return refs;
}

const std::vector<nlohmann::json>& cases(const std::string& file) {
  static std::map<std::string, std::vector<nlohmann::json>> loaded;
  auto& slot = loaded[file];
  if (slot.empty()) slot = test::read_jsonl(test::data_path("tokenizer-cases/" + file));
  return slot;
}

TEST(ReferenceFiles, EachHoldsTheTestStringsInOrder) {
  std::ifstream in(test::data_path("tokenizer-cases/strings.json"));
  const auto strings = nlohmann::json::parse(in);
  ASSERT_EQ(strings.size(), static_cast<size_t>(kCasesPerFile));
  for (const Reference& ref : references()) {
    const auto& rows = cases(ref.cases);
    ASSERT_EQ(rows.size(), static_cast<size_t>(kCasesPerFile)) << ref.cases;
    for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i]["text"], strings[i]) << ref.cases << " line " << i + 1;
  }
}

// One test per reference file (each test runs in its own process under
// CTest, and loading a vocabulary is the expensive part); a failing string
// is named by its trace.
class ReferenceCases : public testing::TestWithParam<Reference> {};

TEST_P(ReferenceCases, EncodeToTheReferenceIdsAndDecodeBack) {
  const Reference& ref = GetParam();
  const Tokenizer* tokenizer = test::cached_tokenizer(ref.vocab);
  if (tokenizer == nullptr) {
    GTEST_SKIP() << "shared data folder not found (PDBENCH_SHARED_DIR); the " << ref.name
                 << " vocabulary is only there";
  }
  const auto& rows = cases(ref.cases);
  ASSERT_EQ(rows.size(), static_cast<size_t>(kCasesPerFile));
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string text = rows[i]["text"];
    const std::vector<int32_t> ids = rows[i]["ids"];
    SCOPED_TRACE(std::string(ref.cases) + " line " + std::to_string(i + 1) + ": \"" + text + "\"");
    EXPECT_EQ(tokenizer->encode(text, false), ids);
    EXPECT_EQ(tokenizer->decode(ids), ref.decoded(text));
  }
}

INSTANTIATE_TEST_SUITE_P(All, ReferenceCases, testing::ValuesIn(references()),
                         [](const testing::TestParamInfo<Reference>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(ReferenceCase, AddBosPutsTheVocabularyBosFirst) {
  for (const Vocab vocab : {Vocab::tok512_bin, Vocab::tok512_gguf, Vocab::llama3, Vocab::qwen3}) {
    const Tokenizer* tokenizer = test::cached_tokenizer(vocab);
    if (tokenizer == nullptr) continue;  // shared folder absent: llama3 is covered where it exists
    std::vector<int32_t> expected = tokenizer->encode("Once upon a time", false);
    if (tokenizer->bos() >= 0) expected.insert(expected.begin(), tokenizer->bos());
    EXPECT_EQ(tokenizer->encode("Once upon a time", true), expected);
  }
  EXPECT_EQ(test::cached_tokenizer(Vocab::tok512_bin)->bos(), 1);
  EXPECT_EQ(test::cached_tokenizer(Vocab::tok512_gguf)->bos(), 1);
  EXPECT_EQ(test::cached_tokenizer(Vocab::qwen3)->bos(), -1);  // tokenizer_config.json: bos_token null
  if (const Tokenizer* llama3 = test::cached_tokenizer(Vocab::llama3)) {
    EXPECT_EQ(llama3->bos(), 128000);
  }
}

TEST(ReferenceCase, GreedyPromptIdsMatchRunC) {
  // greedy.jsonl's prompt_ids are BOS + run.c encode(prompt).
  for (const auto& run : test::read_jsonl(test::data_path("stories260K-reference/greedy.jsonl"))) {
    const std::string prompt = run["prompt"];
    const std::vector<int32_t> prompt_ids = run["prompt_ids"];
    EXPECT_EQ(test::cached_tokenizer(Vocab::tok512_bin)->encode(prompt, true), prompt_ids) << prompt;
    EXPECT_EQ(test::cached_tokenizer(Vocab::tok512_gguf)->encode(prompt, true), prompt_ids) << prompt;
  }
}

}  // namespace
}  // namespace pdbench
