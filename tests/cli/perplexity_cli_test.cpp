// `pdbench perplexity` as a user runs it: its JSON and CSV, and a clear
// error with a non-zero exit for each input it cannot score.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/run_pdbench.h"
#include "tests/support/gguf_rewrite.h"
#include "tests/support/test_paths.h"

namespace pdbench::test {
namespace {

std::string corpus() { return quote(source_path("scenarios/corpus/stories.txt")); }

TEST(PerplexityCli, JsonHasTheFiguresOfEachPath) {
  const CommandResult r = pdbench("perplexity -m " + quote(model_path("stories260K.gguf")) + " -f " + corpus() +
                                  " -c 128 -t 1 --kl-divergence-base reference --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ctx"], 128);
  EXPECT_EQ(j["chunks"], 10);
  EXPECT_EQ(j["tokens_scored"], 630);
  EXPECT_EQ(j["base"]["forward"], "reference");
  for (const char* path : {"prefill", "decode"})
    for (const char* key : {"ppl", "kld_mean", "kld_p99", "same_top_pct", "ppl_ratio"})
      EXPECT_TRUE(j["paths"][path].contains(key)) << path << " " << key;
  // The fast pass on f32 weights stays within rounding of the reference.
  EXPECT_LT(j["paths"]["decode"]["kld_mean"].get<double>(), 1e-6);
  EXPECT_NE(r.err.find("[10/10] prefill PPL "), std::string::npos) << r.err;  // progress
}

// -ctk/-ctv set -m's KV cache (the base keeps f32), so a cache type's
// accuracy is measured against the f32 cache's: q8_0 moves the figures.
TEST(PerplexityCli, CacheTypesAreTheModelPassesAndMoveItsFigures) {
  const CommandResult r = pdbench("perplexity -m " + quote(model_path("stories260K.gguf")) + " -f " + corpus() +
                                  " -c 128 -t 1 --path prefill -ctk q8_0 --cache-type-v q8_0 "
                                  "--kl-divergence-base reference --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cache_type_k"], "q8_0");
  EXPECT_EQ(j["cache_type_v"], "q8_0");
  EXPECT_GT(j["paths"]["prefill"]["kld_mean"].get<double>(), 0);
  const CommandResult bad = pdbench("perplexity -m " + quote(model_path("stories260K.gguf")) + " -f " + corpus() +
                                    " -ctv q4_0");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--cache-type-v: KV cache: unknown element type 'q4_0'"), std::string::npos) << bad.err;
}

TEST(PerplexityCli, WithoutABaseOnlyPerplexityAndCsvHasARowPerPath) {
  const std::string args = "perplexity -m " + quote(model_path("stories260K.gguf")) + " -f " + corpus() + " -c 128 -t 1";
  CommandResult r = pdbench(args + " --path decode --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.contains("base"));
  EXPECT_EQ(j["paths"].size(), 1u);
  EXPECT_EQ(j["paths"]["decode"].size(), 1u) << j.dump();  // ppl alone
  r = pdbench(args + " --csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("model,forward,cache_type_k,cache_type_v,base,base_forward,ctx,chunks,tokens_scored,"
                                "path,ppl,"))
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;  // header, prefill, decode
  r = pdbench(args);
  EXPECT_NE(r.out.find("decode "), std::string::npos) << r.out;  // the table on stdout
}

TEST(PerplexityCli, InputItCannotScoreIsAClearError) {
  const std::string dir = temp_dir("cli-perplexity");
  const std::string empty = dir + "/empty.txt", other_vocab = dir + "/other-vocab.gguf";
  std::ofstream{empty};
  const std::string stories = model_path("stories260K.gguf");
  std::vector<std::string> tokens = gguf::GgufFile::open(stories).get_string_array("tokenizer.ggml.tokens");
  tokens[300] = "\xe2\x96\x81zzz";
  rewrite_gguf(stories, other_vocab, {{{"tokenizer.ggml.tokens", gguf::Value::strings(tokens)}}, {}});
  const std::string model = "perplexity -m " + quote(stories) + " -f ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {model + quote(dir + "/none.txt"), dir + "/none.txt"},
      {model + quote(empty), empty + ": the text to score is empty"},
      {model + corpus() + " -c 1024", "the text is 1372 tokens, but perplexity in chunks of 1024 needs at least 2048"},
      {model + corpus() + " -c 127", "-c 127: a perplexity chunk must be an even number of tokens, at least 4"},
      {model + corpus() + " -c 2", "-c 2: a perplexity chunk must be an even number of tokens, at least 4"},
      {model + corpus() + " -c 4096", "-c 4096: a perplexity chunk must fit the model's context of 2048 tokens"},
      {model + corpus() + " -c -4", "got '-4'"},
      {model + corpus() + " -c 128 --kl-divergence-base " + quote(other_vocab),
       stories + " and " + other_vocab + " have different vocabularies: token 300 is "},
      {model + corpus() + " --kl-divergence-base " + quote(dir + "/none.gguf"), "none.gguf"},
      {model + corpus() + " --kl-divergence-base reference --base-forward fast", "--base-forward fast: "},
      {model + corpus() + " --json --csv", "excludes"},
  };
  for (const auto& [args, message] : cases) {
    const CommandResult r = pdbench(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.err.substr(0, r.err.find('\n')).find(message), std::string::npos) << args << "\nstderr: " << r.err;
  }
}

}  // namespace
}  // namespace pdbench::test
