// The pdbench binary as a user runs it: output, JSON, exit codes, messages.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "tests/cli/run_pdbench.h"
#include "tests/support/gguf_rewrite.h"
#include "tests/support/scoped_env.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

using test::CommandResult;
using test::pdbench;
using test::quote;

TEST(Cli, GenerateGreedyMatchesLlama2cText) {
  for (const auto& ref : test::read_jsonl(test::data_path("stories260K-reference/greedy.jsonl"))) {
    const auto prompt = ref["prompt"].get<std::string>();
    if (prompt.empty()) continue;
    const size_t n = ref["steps"].get<size_t>() + 1 - ref["prompt_ids"].size();
    for (const std::string& model : std::vector<std::string>{"-m " + quote(test::model_path("stories260K.gguf")),
                                    "-m " + quote(test::model_path("stories260K.bin")) + " --tokenizer " +
                                        quote(test::model_path("tok512.bin"))}) {
      const CommandResult r = pdbench("generate " + model + " -p " + quote(prompt) + " -n " + std::to_string(n) + " --temp 0");
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, ref["text"].get<std::string>()) << model;
      EXPECT_NE(r.err.find("TTFT"), std::string::npos) << r.err;
    }
  }
}

TEST(Cli, GenerateJsonHasIdsTextAndTimings) {
  const CommandResult r = pdbench("generate -m " + quote(test::model_path("stories260K.gguf")) +
                        " -p 'Once upon a time' -n 124 --temp 0 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto ref = test::read_jsonl(test::data_path("stories260K-reference/greedy.jsonl"))[1];
  EXPECT_EQ(j["prompt_ids"], ref["prompt_ids"]);
  EXPECT_EQ(j["ids"].size(), 124u);
  for (const char* key : {"tokenize_ms", "ttft_ms", "decode_ms", "tokens"}) EXPECT_TRUE(j["timings"].contains(key)) << key;
  EXPECT_EQ(j["timings"]["tokens"], 124);
  EXPECT_NE(ref["text"].get<std::string>().find(j["text"].get<std::string>()), std::string::npos);
}

// -t 0 means every core for generate as for run; a negative count is refused.
TEST(Cli, GenerateThreadsZeroIsAllCores) {
  const std::string generate = "generate -m " + quote(test::model_path("stories260K.gguf")) + " -p hi -n 4 --temp 0";
  EXPECT_EQ(pdbench(generate + " -t 0").exit_code, 0);
  const CommandResult bad = pdbench(generate + " -t -1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("threads"), std::string::npos) << bad.err;
}

// PDBENCH_ISA=scalar runs every kernel family's reference, attention
// included, and the greedy run still matches llama2c; a name that is no ISA
// is an error naming the variable.
TEST(Cli, PdbenchIsaPicksTheKernelsAndRejectsUnknownNames) {
  const auto ref = test::read_jsonl(test::data_path("stories260K-reference/greedy.jsonl"))[1];
  const std::string generate = "generate -m " + quote(test::model_path("stories260K.gguf")) + " -p " +
                               quote(ref["prompt"].get<std::string>()) + " -n 32 --temp 0 --json";
  {
    test::ScopedEnv isa("PDBENCH_ISA", "scalar");
    const CommandResult r = pdbench(generate);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto ids = nlohmann::json::parse(r.out)["ids"];
    const auto& want = ref["ids"];
    ASSERT_EQ(ids.size(), 32u);
    const size_t first = ref["prompt_ids"].size();
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], want[first + i]) << "token " << i;
  }
  test::ScopedEnv isa("PDBENCH_ISA", "sse2");
  const CommandResult r = pdbench(generate);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("PDBENCH_ISA=sse2"), std::string::npos) << r.err;
}

TEST(Cli, TokenizeIdsFromGgufAndTokenizerBin) {
  const std::string text = "Hello, world!";
  const std::string want = "346 306 414 432 263 304 341 443\n";  // tok512-llama2c.jsonl
  CommandResult r = pdbench("tokenize -m " + quote(test::model_path("stories260K.gguf")) + " --ids " + quote(text));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, want);
  r = pdbench("tokenize --tokenizer " + quote(test::model_path("tok512.bin")) + " --ids " + quote(text));
  EXPECT_EQ(r.out, want);
  r = pdbench("tokenize --tokenizer " + quote(test::model_path("tok512.bin")) + " --ids --bos " + quote(text));
  EXPECT_EQ(r.out, "1 " + want);
  r = pdbench("tokenize -m " + quote(test::model_path("stories260K.gguf")) + " " + quote(text));
  EXPECT_NE(r.out.find("'\xe2\x96\x81He'"), std::string::npos) << r.out;  // pieces shown
}

TEST(Cli, TokenizeHuggingFaceJson) {
  const CommandResult r = pdbench("tokenize --tokenizer " + quote(test::data_path("tokenizers/qwen3/tokenizer.json.gz")) +
                        " --ids " + quote("大模型很好用"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto ref = test::read_jsonl(test::data_path("tokenizer-cases/qwen3.jsonl"))[3];
  std::string want;
  for (const auto& id : ref["ids"]) want += (want.empty() ? "" : " ") + std::to_string(id.get<int>());
  EXPECT_EQ(r.out, want + "\n");
}

TEST(Cli, ExplainShowsEveryStage) {
  const CommandResult r = pdbench("explain -m " + quote(test::model_path("stories260K.gguf")) + " -p " +
                        quote("请解释什么是 RAG") + " -n 8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* stage : {"[1] tokenize", "[2] embed", "[3] prefill", "[4] decode", "[5] detokenize", "chosen:",
                            "KV cache:", "attention ms"})
    EXPECT_NE(r.out.find(stage), std::string::npos) << stage << "\n" << r.out;
}

// A quantized file mixes types; explain counts the tensors of each.
TEST(Cli, ExplainCountsEveryWeightTypeOfAMix) {
  const CommandResult r =
      pdbench("explain -m " + quote(test::data_path("stories260K-wide/stories260K-wide-Q4_K_M.gguf")) + " -p Once -n 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("q4_K x32, f32 x11, q6_K x5 weights"), std::string::npos) << r.out;
}

TEST(Cli, BadInputIsAClearErrorAndNonZeroExit) {
  const std::string gguf = quote(test::model_path("stories260K.gguf"));
  struct Case {
    std::string args;
    std::string message;  // part of what stderr must say
  };
  const std::vector<Case> cases{
      {"generate -m /nonexistent.gguf -p hi", "/nonexistent.gguf"},
      {"generate -m " + gguf + " -p hi --no-such-flag", "no-such-flag"},
      {"generate -m " + gguf + " -p 'Once upon a time there was a cat' -c 4", "context"},
      {"generate -m " + gguf + " -p hi --top-p 1.5", "top_p"},
      {"generate -m " + quote(test::model_path("stories260K.bin")) + " -p hi", "tokenizer"},
      {"generate -m " + quote(test::model_path("tok512.bin")) + " -p hi", "tok512.bin"},
      {"tokenize", "model"},
      {"frobnicate", "frobnicate"},
  };
  for (const auto& c : cases) {
    const CommandResult r = pdbench(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\nstderr: " << r.err;
  }
}

// Hostile model files, sizes and scenario files: the message on one line of
// stderr, a non-zero exit, never a crash or the OOM killer.
TEST(Cli, HostileInputIsOneErrorLineAndNonZeroExit) {
  const std::string dir = test::temp_dir("cli-hostile");
  const std::string stories = test::model_path("stories260K.gguf");
  const std::string nan_norm = dir + "/nan.gguf", heads = dir + "/heads.gguf", deep = dir + "/deep.toml";
  test::rewrite_gguf(stories, nan_norm, {{}, [](const std::string& tensor, std::span<std::byte> bytes) {
                                           if (tensor == "output_norm.weight")
                                             test::poke(bytes, 0, std::numeric_limits<float>::quiet_NaN());
                                         }});
  test::rewrite_gguf(stories, heads, {{{"llama.attention.head_count", gguf::Value::u32(3'000'000'000u)}}, {}});
  std::string deep_key = "x";  // 50,000 tables deep: toml++ alone overflows its stack
  for (int i = 0; i < 50000; ++i) deep_key += ".a";
  std::ofstream(deep) << "[model]\npath = " << quote(stories) << "\n" << deep_key << " = 1\n";
  struct Case {
    std::string args;
    std::string message;            // part of the one line on stderr
    std::string mem_available_mib;  // PDBENCH_MEM_AVAILABLE_MIB, when set
  };
  const std::vector<Case> cases{
      {"generate -m " + quote(nan_norm) + " -p hi", nan_norm + ": tensor output_norm.weight: element 0 is NaN or Inf", ""},
      {"generate -m " + quote(heads) + " -p hi", heads + ": head count (llama.attention.head_count) = 3000000000", ""},
      {"generate -m " + quote(stories) + " -p hi", stories + ": model weights: ", "0"},
      {"generate -m " + quote(stories) + " -p hi -c 1000000",
       "KV cache of 1000016 tokens (f32 K, f32 V): 1.2 GiB needed, but only 64.0 MiB", "64"},
      {"run " + quote(deep) + " -o " + quote(dir + "/out"), deep + ":3: line of 100005 bytes is longer than the limit", ""},
  };
  for (const Case& c : cases) {
    std::optional<test::ScopedEnv> memory;
    if (!c.mem_available_mib.empty()) memory.emplace("PDBENCH_MEM_AVAILABLE_MIB", c.mem_available_mib);
    const CommandResult r = pdbench(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_TRUE(r.err.starts_with("pdbench: error: ")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\nstderr: " << r.err;
  }
}

// Files that are not what they claim, and what --list must refuse as run
// does: each one error line naming the file and the problem.
// More threads than CPUs run on every path (prompts of 15, 16 and 32 tokens
// through oneDNN, whose preferred weight layout follows the thread count,
// decode, a batch) and are recorded as oversubscribed; and the text does not
// depend on the thread count, greedy or sampled.
TEST(Cli, MoreThreadsThanCpusRunAndAreRecorded) {
  const std::string model = quote(test::model_path("stories260K.gguf"));
  const std::string many = std::to_string(2 * std::max(1u, std::thread::hardware_concurrency()));
  const std::string dir = test::temp_dir("cli-oversubscribed");
  const CommandResult r =
      pdbench("run -m " + model + " -p 15,16,32 -n 4 -t 1," + many + " -b 1,2 -r 1 -o " + quote(dir + "/run"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("threads " + many + " is more than"), std::string::npos) << r.err;
  const auto meta = nlohmann::json::parse(std::ifstream(dir + "/run/meta.json"));
  EXPECT_EQ(meta["oversubscribed_threads"], nlohmann::json::array({std::stoi(many)}));
  EXPECT_NE(meta["command_line"].get<std::string>().find(" -o " + dir + "/run"), std::string::npos)
      << meta["command_line"];
  for (const std::string& sampling : {std::string("--temp 0"), std::string("--temp 0.9 --seed 5")}) {
    const std::string args = "generate -m " + model + " -p 'Once upon a time' -n 60 " + sampling;
    const CommandResult one = pdbench(args + " -t 1");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    for (const std::string& threads : {std::string("2"), many}) {
      const CommandResult other = pdbench(args + " -t " + threads);
      EXPECT_EQ(other.exit_code, 0) << other.err;
      EXPECT_EQ(other.out, one.out) << sampling << ", " << threads << " threads";
    }
  }
}

// Beams that cannot all fit in the KV cache are refused before the prompt
// runs, naming both ways out; a width that fits runs.
TEST(Cli, TooManyBeamsForTheCacheAreNamed) {
  const std::string args = "generate -m " + quote(test::model_path("stories260K.gguf")) + " -p 'Once' -n 4 --beam ";
  const CommandResult wide = pdbench(args + "512");
  EXPECT_NE(wide.exit_code, 0);
  EXPECT_EQ(wide.out, "") << "nothing streamed before the refusal";
  for (const char* named : {"512 beams", "--beam", "--ctx-size / -c"}) EXPECT_NE(wide.err.find(named), std::string::npos) << wide.err;
  const CommandResult fits = pdbench(args + "512 -c 40000");
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
}

// What llama-bench users type: -ctk/-ctv set the KV types (in run, as axes
// that sweep), llama.cpp flags pdbench has no use for are refused by name
// (CLI11 read "-ctk q8_0" as "-c tk"), and -o with a format name is not
// taken for a results folder.
TEST(Cli, LlamaCppFlagsWorkOrAreNamed) {
  const std::string model = quote(test::model_path("stories260K.gguf"));
  const CommandResult listed = pdbench("run -m " + model + " -p 16 -n 4 -ctk q8_0,f16 -ctv q8_0 --list");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const char* id : {"p16_n4_d0_t0_kq8_0_vq8_0_greedy", "p16_n4_d0_t0_kf16_vq8_0_greedy"})
    EXPECT_NE(listed.out.find(id), std::string::npos) << listed.out;
  const CommandResult generated = pdbench("generate -m " + model + " -p 'Once' -n 4 -ctk q8_0 -ctv f16");
  EXPECT_EQ(generated.exit_code, 0) << generated.err;
  for (const std::string flag : {"-fa 1", "-ngl 99", "-pg 64,8"}) {
    const CommandResult r = pdbench("generate -m " + model + " -p 'Once' -n 4 " + flag);
    EXPECT_NE(r.exit_code, 0) << flag;
    EXPECT_NE(r.err.find(flag.substr(0, flag.find(' ')) + " is llama.cpp's flag"), std::string::npos) << r.err;
  }
  // llama-bench's ranges expand; what is neither a number nor a range is
  // named in a line, not with CLI11's DBL_MAX to 300 digits.
  const CommandResult ranges = pdbench("run -m " + model + " -p 128-1024*2,64-192+64 -n 4 --list");
  ASSERT_EQ(ranges.exit_code, 0) << ranges.err;
  EXPECT_NE(ranges.out.find("6 cases x"), std::string::npos) << ranges.out;  // 128 256 512 1024, 64 192
  for (const std::string value : {"0", "16,0", "x", "10-5"}) {
    const CommandResult r = pdbench("run -m " + model + " -p " + value + " -n 4 --list");
    EXPECT_NE(r.exit_code, 0) << value;
    EXPECT_NE(r.err.find("--prompt-tokens: '"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 200u) << r.err;
  }
  const CommandResult md = pdbench("run -m " + model + " -p 16 -n 4 -o md");
  EXPECT_NE(md.exit_code, 0);
  EXPECT_NE(md.err.find("-o names the results folder"), std::string::npos) << md.err;
  EXPECT_FALSE(std::filesystem::exists("md"));
}

// The results table goes to stdout, as llama-bench's -o md|csv|json|jsonl,
// and nothing else does: `pdbench run ... > out.md` holds the table alone.
TEST(Cli, RunPrintsItsResultsTableOnStdout) {
  const std::string dir = test::temp_dir("cli-format");
  const std::string args = "run -m " + quote(test::model_path("stories260K.gguf")) + " -p 16 -n 4 -t 1 -r 2 -o ";
  const CommandResult md = pdbench(args + quote(dir + "/md"));
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("| case | prompt | output |", 0), 0u) << md.out;
  EXPECT_NE(md.out.find("| p16_n4_d0_t1_greedy | 16 | 4 |"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("rep "), std::string::npos) << "progress belongs on stderr";
  const CommandResult json = pdbench(args + quote(dir + "/json") + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto rows = nlohmann::json::parse(json.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["case_id"], "p16_n4_d0_t1_greedy");
  for (const char* key : {"ttft_median_ms", "ttft_cv_pct", "tpot_median_ms", "e2e_median_ms", "decode_median_tok_s"})
    EXPECT_TRUE(rows[0][key].is_number()) << key;
  const CommandResult jsonl = pdbench(args + quote(dir + "/jsonl") + " --format jsonl");
  EXPECT_EQ(nlohmann::json::parse(jsonl.out)["samples"], 2);
}

TEST(Cli, MisleadingInputsAndImpossibleCasesAreNamedBeforeAnyWork) {
  const std::string dir = test::temp_dir("cli-misleading");
  const std::string stories = test::model_path("stories260K.gguf");
  const std::string fifo = dir + "/fifo", bad_magic = dir + "/bad.gguf", empty_json = dir + "/tokenizer.json";
  const std::string nul_arch = dir + "/nul-arch.gguf";
  test::rewrite_gguf(stories, nul_arch, {{{"general.architecture", gguf::Value::str(std::string("llama\0evil", 10))}}, {}});
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(bad_magic) << "GGUX" << std::string(64, '\0');
  std::ofstream{empty_json};
  const auto scenario = [&](const std::string& name, const std::string& model, const std::string& sweep) {
    std::ofstream(dir + "/" + name) << "[model]\npath = " << quote(model) << "\n[sweep]\n" << sweep;
    return quote(dir + "/" + name);
  };
  const std::vector<std::pair<std::string, std::string>> cases{
      {"generate -m " + quote(fifo) + " -p hi", fifo + ": not a regular file"},
      {"run " + quote(fifo) + " --list", fifo + ": not a regular file"},
      {"generate -m " + quote(bad_magic) + " -p hi", bad_magic + ": not a model file: magic 'GGUX' is not GGUF's"},
      {"tokenize --tokenizer " + quote(empty_json) + " hi", empty_json + ": empty tokenizer file"},
      {"generate -m " + quote(nul_arch) + " -p hi", "architecture 'llama\\x00evil' is not supported"},
      {"run " + scenario("missing.toml", dir + "/none.gguf", "prompt_tokens = 8\n") + " --list",
       dir + "/none.gguf: no such file"},
      {"run " + scenario("long.toml", stories, "prompt_tokens = 2000\noutput_tokens = 8\ncontext_depth = 64\n") +
           " --list",
       "context_depth + prompt_tokens + output_tokens = 2072 exceeds the model's context length of 2048 tokens"},
      {"run " + scenario("cap.toml", stories, "prompt_tokens = 64\noutput_tokens = 8\nkv_capacity = 32\n") +
           " --list",
       "context_depth + prompt_tokens + output_tokens = 72 exceeds the kv_capacity of 32 tokens"},
      {"run " + scenario("huge.toml", stories, "prompt_tokens = 4611686018427387904\n") + " --list",
       "key 'prompt_tokens' must be <= 16777216, got 4611686018427387904"},
      {"generate -m " + quote(stories) + " -p hi --seed 18446744073709551616",
       "--seed: expected a whole number from 0 to 18446744073709551615, got '18446744073709551616'"},
      {"generate -m " + quote(stories) + " -p hi --seed 1e23", "got '1e23'"},
      {"generate -m " + quote(stories) + " -p hi --seed -1", "got '-1'"},
      {"run -m " + quote(stories) + " -p 4 -n 2 -r 1 --db " + quote(bad_magic) + " -o " + quote(dir + "/db-out"),
       bad_magic + ": statement failed: file is not a database"},
  };
  for (const auto& [args, message] : cases) {
    const CommandResult r = pdbench(args);
    EXPECT_NE(r.exit_code, 0) << args;
    // The first line says it (a command-line error adds CLI11's --help hint).
    EXPECT_NE(r.err.substr(0, r.err.find('\n')).find(message), std::string::npos) << args << "\nstderr: " << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/db-out")) << "the database is checked before the run starts";
}

// Each (args, message): `pdbench run + args` fails, the first line of its
// stderr holding the message.
void expect_refusals(const std::string& run, const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [args, message] : cases) {
    const CommandResult r = pdbench(run + args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.err.substr(0, r.err.find('\n')).find(message), std::string::npos) << args << "\nstderr: " << r.err;
  }
}

// The load flags: bad values named by their flag, impossible combinations
// named like a scenario's keys, before any work; a good set lists its cases.
TEST(Cli, LoadFlagsAreCheckedAndSweep) {
  const std::string run = "run -m " + quote(test::model_path("stories260K.gguf")) + " -p 8 -n 4 --list ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--requests 4 --request-rate -1", "--request-rate: '-1': expected a number above 0 and at most 1e+12, or inf"},
      {"--requests 4 --max-concurrency 0", "--max-concurrency: '0': values start at 1"},
      {"--requests 4 --sla ttft_ms=500", "--sla: 'ttft_ms=500': the limit needs a percentile: ttft_p99_ms or tpot_p99_ms"},
      {"--requests 4 --sla ttft_p99_ms=0", "--sla: 'ttft_p99_ms=0': the limit must be a number of milliseconds above 0"},
      {"--request-rate 2", "command line: key 'request_rate' needs 'requests' or 'duration_s'"},
      {"--requests 4 -b 2", "command line: key 'requests' makes a load case, which sets its batch slots"},
      {"--duration-s 5", "command line: key 'duration_s' needs a finite request_rate"},
  };
  expect_refusals(run, cases);
  const CommandResult ok = pdbench(run + "--requests 6 --request-rate 1,inf --max-concurrency 2,4 --sla tpot_p99_ms=30");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("p8_n4_d0_t0_q6_r1_c2_greedy"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("p8_n4_d0_t0_q6_rinf_c4_greedy"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("4 cases"), std::string::npos) << ok.out;
}

// The target flags: a bad URL or timeout named by its flag, an engine axis
// named like a scenario's key, before any request; a good one is listed.
TEST(Cli, TargetFlagsAreCheckedBeforeAnyRequest) {
  const std::string run = "run -m " + quote(test::model_path("stories260K.gguf")) + " -p 8 -n 4 --list ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--target ftp://h:1", "--target: 'ftp://h:1' is not an http:// or https:// URL"},
      {"--target 127.0.0.1:8080", "--target: '127.0.0.1:8080' is not an http:// or https:// URL (write the scheme"},
      {"--target http://h:1 --target-timeout-s 0", "--target-timeout-s: must be a number of seconds above 0, got 0"},
      {"--target-model m", "--target-model needs --target URL"},
      {"--target http://h:1 -t 2", "command line: key 'threads' cannot be set with [target] kind = \"openai\""},
      {"--target http://h:1 -ctk f16", "command line: key 'kv_type_k' cannot be set with [target] kind = \"openai\""},
  };
  expect_refusals(run, cases);
  const CommandResult ok = pdbench(run + "--target http://127.0.0.1:1 --target-timeout-s 5");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("target openai: http://127.0.0.1:1"), std::string::npos) << ok.out;
}

TEST(Cli, HelpTeachesEachSubcommand) {
  for (const char* sub : {"generate", "tokenize", "explain", "perplexity"}) {
    const CommandResult r = pdbench(std::string(sub) + " --help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("Example"), std::string::npos) << sub;
  }
}

TEST(Cli, VersionNamesTheReleaseCommitAndOneDnn) {
  for (const char* flag : {"--version", "-V"}) {
    const CommandResult r = pdbench(flag);
    EXPECT_EQ(r.exit_code, 0) << flag << ": " << r.err;
    EXPECT_EQ(r.out.rfind("pdbench ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("(commit "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(", oneDNN "), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace pdbench
