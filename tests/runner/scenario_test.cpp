// Scenario files: values read, and every error naming FILE:LINE and the key.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/runner/scenario.h"
#include "bench/runner/sweep.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

std::string error_of(const std::string& text, bool check_supported = false) {
  try {
    const Scenario s = parse_scenario(text, "scenarios/x.toml");
    if (check_supported) require_supported(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::string kModel = "[model]\npath = \"m.gguf\"\n";

TEST(Scenario, ReadsAxesScalarsAndTables) {
  const Scenario s = parse_scenario(kModel +
                                        "[prompt]\nsource = \"random\"\nseed = 7\n"
                                        "[measure]\nrepetitions = 3\nwarmup_max = 2\n"
                                        "[sampling.hot]\ntemperature = 1.5\ntop_k = 10\n"
                                        "[sweep]\nprompt_tokens = [16, 64]\noutput_tokens = 8\nthreads = [1, 2]\n"
                                        "sampling = [\"greedy\", \"hot\"]\n",
                                    "dir/x.toml");
  EXPECT_EQ(s.model, "dir/m.gguf");  // relative to the scenario's folder
  EXPECT_EQ(s.name, "x");
  EXPECT_EQ(s.prompt_source, PromptSource::Random);
  EXPECT_EQ(s.prompt_seed, 7u);
  EXPECT_EQ(s.repetitions, 3u);
  EXPECT_EQ(s.warmup_max, 2u);
  EXPECT_EQ(s.prompt_tokens.values, (std::vector<size_t>{16, 64}));
  EXPECT_EQ(s.prompt_tokens.line, 13);
  EXPECT_EQ(s.output_tokens.values, (std::vector<size_t>{8}));
  EXPECT_FLOAT_EQ(s.strategies.at("hot").temperature, 1.5f);
  EXPECT_EQ(s.strategies.at("hot").top_k, 10);
  EXPECT_NO_THROW(require_supported(s));
}

TEST(Scenario, UnknownKeyNamesFileLineAndKey) {
  EXPECT_EQ(error_of(kModel + "[sweep]\nprompt_tokens = 4\nbatchsize = 2\n").rfind(
                "scenarios/x.toml:5: unknown key 'batchsize' in [sweep]", 0),
            0u)
      << error_of(kModel + "[sweep]\nbatchsize = 2\n");
  EXPECT_NE(error_of("colour = 1\n" + kModel).find("scenarios/x.toml:1: unknown key 'colour'"), std::string::npos);
}

TEST(Scenario, WrongTypeNamesFileLineAndKey) {
  EXPECT_EQ(error_of(kModel + "[sweep]\nprompt_tokens = \"many\"\n"),
            "scenarios/x.toml:4: key 'prompt_tokens' must be an integer");
  EXPECT_EQ(error_of(kModel + "[sweep]\nthreads = [1, 2.5]\n"), "scenarios/x.toml:4: key 'threads' must be an integer");
  EXPECT_EQ(error_of("model = 3\n"), "scenarios/x.toml:1: key 'model' must be a table");
}

TEST(Scenario, ImpossibleValuesNameFileLineAndKey) {
  EXPECT_EQ(error_of(kModel + "[sweep]\noutput_tokens = -5\n"),
            "scenarios/x.toml:4: key 'output_tokens' must be >= 1, got -5");
  EXPECT_EQ(error_of(kModel + "[sweep]\nprompt_tokens = []\n"),
            "scenarios/x.toml:4: key 'prompt_tokens' must not be an empty array");
  EXPECT_EQ(error_of(kModel + "[measure]\nrepetitions = 0\n"),
            "scenarios/x.toml:4: key 'repetitions' must be >= 1, got 0");
  EXPECT_NE(error_of(kModel + "[sweep]\nkv_type_k = \"f8\"\n").find("scenarios/x.toml:4: key 'kv_type_k' = \"f8\" is not one of"),
            std::string::npos);
  EXPECT_NE(error_of(kModel + "[sweep]\nsampling = \"spicy\"\n").find("scenarios/x.toml:4: key 'sampling' = \"spicy\""),
            std::string::npos);
  EXPECT_NE(error_of("[model]\n").find("needs exactly one of 'path' or 'like'"), std::string::npos);
  EXPECT_NE(error_of(kModel + "[sweep\n").find("scenarios/x.toml:3:"), std::string::npos);  // TOML syntax
}

TEST(Scenario, UnsupportedAxisValuesParseButDoNotRun) {
  const std::string text = kModel + "[sweep]\nbatch = [1, 4]\ncontext_depth = [0, 64]\n";
  EXPECT_EQ(error_of(text), "");
  EXPECT_EQ(error_of(text, true),
            "scenarios/x.toml:4: key 'batch' = 4 is not supported yet (a batch starts every sequence at depth 0; "
            "context_depth 64 runs at batch 1)");
  EXPECT_EQ(error_of(kModel + "[sweep]\nbatch = [1, 4]\n", true), "");
  // BatchGenerator always keeps K/V: a batch with the cache off would run it on.
  EXPECT_EQ(error_of(kModel + "[sweep]\nbatch = [1, 4]\nkv_cache = [\"on\", \"off\"]\n", true),
            "scenarios/x.toml:4: key 'batch' = 4 is not supported yet (continuous batching keeps every sequence's "
            "K/V; kv_cache \"off\" runs at batch 1)");
  EXPECT_EQ(error_of(kModel + "[sweep]\nkv_type_v = \"q8_0\"\nkv_block = 32\nkv_cache = [\"on\", \"off\"]\n", true), "");
  // A model file runs its weights as stored; only a synthetic model has other weight types.
  EXPECT_NE(error_of(kModel + "[sweep]\nweight_type = [\"file\", \"q8_0\"]\n", true)
                .find("scenarios/x.toml:4: key 'weight_type' = \"q8_0\" is not supported yet"),
            std::string::npos);
}

const std::string kLike = "[model]\nlike = \"smollm2-135m\"\ntype = \"q4_0\"\n";

TEST(Scenario, SyntheticModel) {
  const Scenario s = parse_scenario(kLike + "seed = 3\n[sweep]\nweight_type = [\"file\", \"q8_0\"]\n", "x.toml");
  EXPECT_EQ(s.model_like, "smollm2-135m");
  EXPECT_EQ(s.model_type, "q4_0");
  EXPECT_EQ(s.model_seed, 3u);
  EXPECT_TRUE(s.model.empty());
  EXPECT_NO_THROW(require_supported(s));
  EXPECT_NE(error_of("[model]\nlike = \"llama-135M\"\ntype = \"q8_0\"\n")
                .find("scenarios/x.toml:2: key 'like' = \"llama-135M\" is not one of: smollm2-135m"),
            std::string::npos);
  EXPECT_EQ(error_of("[model]\nlike = \"smollm2-135m\"\n"),
            "scenarios/x.toml:1: [model] 'like' needs 'type' (one of: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, "
            "q5_1, q2_k_s, q2_k, q3_k_s, q3_k_m, q3_k_l, q4_k_s, q4_k_m, q5_k_s, q5_k_m, q6_k, iq4_nl, iq4_xs, "
            "q3_k, q4_k, q5_k, q8_0-pure, q4_0-pure, q4_1-pure, q5_0-pure, q5_1-pure, q2_k-pure, q6_k-pure, "
            "iq4_nl-pure, iq4_xs-pure)");
  EXPECT_EQ(error_of(kModel + "type = \"f16\"\n"),
            "scenarios/x.toml:3: key 'type' needs 'like' (a model file's weights are as stored)");
  EXPECT_EQ(error_of(kModel + "seed = 1\n"), "scenarios/x.toml:3: key 'seed' needs 'like'");
  EXPECT_NE(error_of(kLike + "path = \"m.gguf\"\n").find("needs exactly one of 'path' or 'like'"), std::string::npos);
}

TEST(Scenario, SeveralSweepTablesRunTheirUnion) {
  const Scenario s = parse_scenario(kModel +
                                        "[[sweep]]\nprompt_tokens = [16, 64]\noutput_tokens = 8\n"
                                        "[[sweep]]\nprompt_tokens = 64\noutput_tokens = 8\nkv_cache = [\"on\", \"off\"]\n",
                                    "x.toml");
  ASSERT_EQ(s.more_sweeps.size(), 1u);
  EXPECT_EQ(s.sweeps().size(), 2u);
  const std::vector<Case> cases = expand(s);
  std::vector<std::string> ids;
  for (const Case& c : cases) ids.push_back(c.id);
  // p64 with the cache on is in both tables: it runs once, where it first appears.
  EXPECT_EQ(ids, (std::vector<std::string>{"p16_n8_d0_t0_greedy", "p64_n8_d0_t0_greedy", "p64_n8_d0_t0_nocache_greedy"}));
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(cases[i].index, i);
  EXPECT_EQ(error_of(kModel + "[[sweep]]\nthreads = 1\n[[sweep]]\nbatch = [1, 2]\ncontext_depth = 8\n", true),
            "scenarios/x.toml:6: key 'batch' = 2 is not supported yet (a batch starts every sequence at depth 0; "
            "context_depth 8 runs at batch 1)");
  EXPECT_EQ(error_of(kModel + "[[sweep]]\nthreads = 1\n[[sweep]]\nthreds = 1\n").rfind(
                "scenarios/x.toml:6: unknown key 'threds' in [sweep]", 0),
            0u);
}

// Every shipped scenario parses, can run with this engine, and has cases;
// nothing is loaded or generated.
TEST(Scenario, EveryShippedScenarioParses) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("scenarios"))) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    const Scenario s = load_scenario(entry.path().string());
    EXPECT_NO_THROW(require_supported(s));
    EXPECT_FALSE(expand(s).empty());
    if (s.model_like.empty()) {
      EXPECT_TRUE(std::filesystem::exists(s.model)) << s.model;
    } else {
      EXPECT_EQ(s.prompt_source, PromptSource::Random);
    }
  }
  EXPECT_GE(files, 7u);
}

// "[1, 2, ..., n]" over several lines (a line may hold at most 4096 bytes).
std::string values_1_to(size_t n) {
  std::string out = "[";
  for (size_t i = 1; i <= n; ++i) out += std::to_string(i) + (i < n ? (i % 100 == 0 ? ",\n" : ", ") : "]\n");
  return out;
}

std::string expand_error(const std::string& text) {
  try {
    expand(parse_scenario(text, "scenarios/x.toml"));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioSize, TooManyCasesIsRefusedBeforeAnyIsMade) {
  const std::string thousand = values_1_to(1000);
  EXPECT_EQ(expand_error(kModel + "[sweep]\nprompt_tokens = " + thousand + "output_tokens = " + thousand +
                         "context_depth = " + thousand),
            "scenarios/x.toml: its sweep makes 1000000000 cases (1000000 x 1000); the limit is 100000");
  std::string tables = kModel;
  for (int i = 0; i < 40; ++i) tables += "[[sweep]]\nprompt_tokens = " + thousand + "output_tokens = " + thousand;
  EXPECT_NE(expand_error(tables).find("scenarios/x.toml: 40 sweep tables make 40000000 cases"), std::string::npos)
      << expand_error(tables);
}

TEST(ScenarioSize, TooManyTokensIsRefused) {
  // 1000 cases of 2^24-token prompts, 13 runs each.
  const std::string text = kModel + "[sweep]\nprompt_tokens = 16777216\noutput_tokens = 1\nbatch = " +
                           values_1_to(1000);
  EXPECT_NE(expand_error(text).find("tokens in all (context depth + prompt + output, times batch or a load case's requests, over 20 runs "
                                    "per case); the limit is 10000000000"),
            std::string::npos)
      << expand_error(text);
  EXPECT_EQ(expand_error(kModel + "[sweep]\nprompt_tokens = [16, 64]\nbatch = [1, 8]\n"), "");
}

TEST(ScenarioSize, AnAxisValueBeyondAnyModelNamesItsKey) {
  EXPECT_EQ(error_of(kModel + "[sweep]\nprompt_tokens = 4611686018427387904\n"),
            "scenarios/x.toml:4: key 'prompt_tokens' must be <= 16777216, got 4611686018427387904");
  EXPECT_EQ(error_of(kModel + "[sweep]\nthreads = 5000\n"), "scenarios/x.toml:4: key 'threads' must be <= 4096, got 5000");
}

}  // namespace
}  // namespace pdbench::runner
