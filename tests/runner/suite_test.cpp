// Synthetic models in the model cache, trace replay, the fingerprint's
// kernel and commit fields, and the compute roofs per precision. The one
// end-to-end run per feature is tiny (8-token prompts, 2 tokens out, 1
// repetition); never asserts timings.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "bench/runner/gemm_peak.h"
#include "bench/runner/models.h"
#include "bench/runner/runner.h"
#include "bench/runner/sysinfo.h"
#include "bench/runner/trace.h"
#include "engine/format/gguf.h"
#include "engine/model/synthetic_model.h"
#include "engine/profile/op_profile.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Points the model cache at a temp folder for one test.
class CacheHome {
 public:
  explicit CacheHome(const std::string& dir) {
    if (const char* old = std::getenv("XDG_CACHE_HOME")) old_ = old;
    setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~CacheHome() {
    if (old_.empty())
      unsetenv("XDG_CACHE_HOME");
    else
      setenv("XDG_CACHE_HOME", old_.c_str(), 1);
  }
  CacheHome(const CacheHome&) = delete;
  CacheHome& operator=(const CacheHome&) = delete;

 private:
  std::string old_;
};

TEST(Trace, ReadsLengthsAndArrivalTimes) {
  const std::string dir = test::temp_dir("trace");
  std::ofstream(dir + "/t.csv") << "TIMESTAMP,ContextTokens,GeneratedTokens,note\n"
                                   "2023-11-16 18:15:46.68,12,3,a\n"
                                   "2023-11-16 18:15:47.01,40,1,\"b, c\"\n";
  const Trace t = read_trace(dir + "/t.csv");
  EXPECT_EQ(t.arrival_column, "TIMESTAMP");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].line, 2u);
  EXPECT_EQ(t.rows[0].prompt_tokens, 12u);
  EXPECT_EQ(t.rows[0].output_tokens, 3u);
  EXPECT_EQ(t.rows[0].arrival, "2023-11-16 18:15:46.68");
  EXPECT_EQ(t.rows[1].line, 3u);
  EXPECT_EQ(t.rows[1].prompt_tokens, 40u);

  // Other accepted names, any case; no arrival column.
  std::ofstream(dir + "/u.csv") << "output_tokens,PROMPT_TOKENS\n5,6\n";
  const Trace u = read_trace(dir + "/u.csv");
  EXPECT_EQ(u.arrival_column, "");
  ASSERT_EQ(u.rows.size(), 1u);
  EXPECT_EQ(u.rows[0].prompt_tokens, 6u);
  EXPECT_EQ(u.rows[0].output_tokens, 5u);
  EXPECT_EQ(u.rows[0].arrival, "");
}

TEST(Trace, ErrorsNameFileAndLine) {
  const std::string dir = test::temp_dir("trace-bad");
  const std::string p = dir + "/t.csv";
  std::ofstream(p) << "Context,GeneratedTokens\n1,2\n";
  EXPECT_EQ(error_of([&] { read_trace(p); }),
            p + ":1: the trace has no prompt length column (one of: ContextTokens, prompt_tokens, input_tokens)");
  std::ofstream(p) << "ContextTokens,GeneratedTokens\n4,2\n8,2x\n";
  EXPECT_EQ(error_of([&] { read_trace(p); }), p + ":3: column 'GeneratedTokens' = '2x' is not a token count >= 1");
  std::ofstream(p) << "ContextTokens,GeneratedTokens\n4,2\n5,6\n0,2\n";
  EXPECT_EQ(error_of([&] { read_trace(p); }), p + ":4: column 'ContextTokens' = '0' is not a token count >= 1");
  std::ofstream(p) << "ContextTokens,GeneratedTokens\n-3,2\n";
  EXPECT_EQ(error_of([&] { read_trace(p); }), p + ":2: column 'ContextTokens' = '-3' is not a token count >= 1");
  std::ofstream(p) << "ContextTokens,GeneratedTokens\n";
  EXPECT_EQ(error_of([&] { read_trace(p); }), p + ":2: the trace has no rows");
  // In a scenario: the trace gives the lengths, so the axes must stay unset.
  std::ofstream(dir + "/ok.csv") << "ContextTokens,GeneratedTokens\n4,2\n";
  std::ofstream(dir + "/s.toml") << "trace = \"ok.csv\"\n[model]\npath = \"m.gguf\"\n[sweep]\noutput_tokens = 4\n";
  EXPECT_EQ(error_of([&] { load_scenario(dir + "/s.toml"); }),
            dir + "/s.toml:5: key 'output_tokens' cannot be set with 'trace' (line 1): the trace's rows give the lengths");
  std::ofstream(dir + "/s.toml") << "trace = \"missing.csv\"\n[model]\npath = \"m.gguf\"\n";
  EXPECT_NE(error_of([&] { load_scenario(dir + "/s.toml"); }).find("missing.csv"), std::string::npos);
}

TEST(Trace, RowsAreCasesInFileOrder) {
  const std::string dir = test::temp_dir("trace-run");
  std::ofstream(dir + "/t.csv") << "arrival_ms,ContextTokens,GeneratedTokens\n0,8,2\n15.5,5,3\n40,8,2\n";
  std::ofstream(dir + "/s.toml") << "trace = \"t.csv\"\n[model]\npath = \"" << test::model_path("stories260K.gguf")
                                 << "\"\n[measure]\nrepetitions = 1\nwarmup_max = 0\n[sweep]\nthreads = 1\n";
  const Scenario s = load_scenario(dir + "/s.toml");
  const std::vector<Case> cases = expand(s);
  ASSERT_EQ(cases.size(), 3u);
  // Rows 1 and 3 have the same lengths; their line keeps them apart.
  EXPECT_EQ(cases[0].id, "r2_p8_n2_d0_t1_greedy");
  EXPECT_EQ(cases[1].id, "r3_p5_n3_d0_t1_greedy");
  EXPECT_EQ(cases[2].id, "r4_p8_n2_d0_t1_greedy");

  RunOptions o;
  o.out_dir = dir + "/out";
  EXPECT_TRUE(run_scenario(s, o, nullptr).complete);
  const Table samples = read_csv(o.out_dir + "/samples.csv");
  ASSERT_EQ(samples.rows.size(), 3u);
  EXPECT_EQ(samples.rows[1][samples.column("trace_row")], "3");
  EXPECT_EQ(samples.rows[1][samples.column("trace_arrival_ms")], "15.5");
  // Which model ran, the threads it used and its actual weight types.
  EXPECT_EQ(samples.rows[1][samples.column("model")], "stories260K.gguf");
  EXPECT_EQ(samples.rows[1][samples.column("model_sha256")].size(), 12u);
  EXPECT_EQ(samples.rows[1][samples.column("threads_used")], "1");
  EXPECT_EQ(samples.rows[1][samples.column("weights")], "f32");
  EXPECT_EQ(samples.rows[1][samples.column("generated_tokens")], "3");
  std::ifstream meta_in(o.out_dir + "/meta.json");
  const auto meta = nlohmann::json::parse(meta_in);
  EXPECT_EQ(meta["trace"]["rows"], 3);
  EXPECT_EQ(meta["trace"]["arrival_column"], "arrival_ms");
  EXPECT_EQ(meta["trace"]["sha256"].get<std::string>().size(), 64u);
}

TEST(SyntheticModel, CachePathFollowsXdgCacheHome) {
  const std::string dir = test::temp_dir("cache-path");
  {
    const CacheHome home(dir);
    EXPECT_EQ(synthetic_model_path("smollm2-135m", "q8_0", 7), dir + "/pdbench/models/smollm2-135m-q8_0-s7.gguf");
  }
  {
    const CacheHome relative("not/absolute");  // ignored, as the XDG spec says
    const char* home = std::getenv("HOME");
    ASSERT_NE(home, nullptr);
    EXPECT_EQ(model_cache_dir(), std::string(home) + "/.cache/pdbench/models");
  }
}

// Generated once, reused after; each weight_type its own file, the case's
// model chosen by its type; meta.json names the synthetic model.
TEST(SyntheticModel, GeneratedOnceAndRunPerWeightType) {
  const std::string dir = test::temp_dir("synthetic");
  const CacheHome home(dir);
  std::ofstream(dir + "/s.toml") << "[model]\nlike = \"smollm2-135m\"\ntype = \"q4_0\"\n"
                                    "[prompt]\nsource = \"random\"\n[measure]\nrepetitions = 1\nwarmup_max = 0\n"
                                    "[sweep]\nprompt_tokens = 8\noutput_tokens = 2\nthreads = 2\n"
                                    "weight_type = [\"file\", \"q8_0\"]\n";
  const Scenario s = load_scenario(dir + "/s.toml");
  const std::string q4 = synthetic_model_path("smollm2-135m", "q4_0", 0);
  const std::string q8 = synthetic_model_path("smollm2-135m", "q8_0", 0);
  EXPECT_EQ(model_file_for(s, "file", nullptr), q4);
  ASSERT_TRUE(fs::exists(q4));
  const auto written = fs::last_write_time(q4);
  EXPECT_EQ(model_file_for(s, "q4_0", nullptr), q4);  // reused, not written again
  EXPECT_EQ(fs::last_write_time(q4), written);

  RunOptions o;
  o.out_dir = dir + "/out";
  EXPECT_TRUE(run_scenario(s, o, nullptr).complete);
  EXPECT_TRUE(fs::exists(q8));
  EXPECT_EQ(fs::last_write_time(q4), written);
  const Table samples = read_csv(o.out_dir + "/samples.csv");
  ASSERT_EQ(samples.rows.size(), 2u);
  EXPECT_EQ(samples.rows[0][samples.column("case_id")], "p8_n2_d0_t2_greedy");
  EXPECT_EQ(samples.rows[1][samples.column("case_id")], "p8_n2_d0_t2_wq8_0_greedy");
  // q8_0 weights take more bytes than q4_0: each case ran its own file.
  EXPECT_LT(std::stod(samples.rows[0][samples.column("weights_bytes")]),
            std::stod(samples.rows[1][samples.column("weights_bytes")]));
  std::ifstream meta_in(o.out_dir + "/meta.json");
  const auto meta = nlohmann::json::parse(meta_in);
  EXPECT_EQ(meta["model"]["path"], q4);
  EXPECT_EQ(meta["model"]["like"], "smollm2-135m");
  EXPECT_EQ(meta["model"]["type"], "q4_0");
  EXPECT_EQ(meta["model"]["seed"], 0);
  EXPECT_EQ(meta["model"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(meta["models"]["q8_0"]["path"], q8);
  EXPECT_EQ(meta["models"]["file"]["sha256"], meta["model"]["sha256"]);
}

// A cached file whose tensor types are not its name's mix (q4_0 meant
// every matrix q4_0 before it meant llama-quantize's Q4_0, whose LM head is
// q6_K, here q8_0: 576 is no whole number of 256-blocks) is written again.
TEST(SyntheticModel, CachedFileOfAnotherMixIsWrittenAgain) {
  const std::string dir = test::temp_dir("stale-mix");
  const CacheHome home(dir);
  std::ofstream(dir + "/s.toml") << "[model]\nlike = \"smollm2-135m\"\ntype = \"q4_0\"\n";
  const Scenario s = load_scenario(dir + "/s.toml");
  const std::string path = synthetic_model_path("smollm2-135m", "q4_0", 0);
  fs::create_directories(fs::path(path).parent_path());
  write_synthetic_model({"smollm2-135m", preset_config("smollm2-135m"), TensorType::Q4_0, 0}, path);
  const auto embedding_type = [&] { return gguf::GgufFile::open(path).tensor("token_embd.weight").type; };
  ASSERT_EQ(embedding_type(), TensorType::Q4_0);
  EXPECT_EQ(model_file_for(s, "file", nullptr), path);
  EXPECT_EQ(embedding_type(), TensorType::Q8_0);
}

TEST(Sysinfo, FingerprintNamesTheKernels) {
  const nlohmann::json f = fingerprint(system_facts(), std::nullopt);
  ASSERT_TRUE(f.contains("onednn"));
  EXPECT_NE(f["onednn"].get<std::string>().find('.'), std::string::npos) << f["onednn"];  // "2.6.3 avx512_core"
  EXPECT_NE(f["onednn"].get<std::string>().find(' '), std::string::npos) << f["onednn"];
  ASSERT_TRUE(f.contains("gemv_isa"));
  const std::string gemv = f["gemv_isa"];
  EXPECT_TRUE(gemv == "scalar" || gemv == "avx2" || gemv == "avx2vnni" || gemv == "avx512") << gemv;
  const std::string bf16 = f["bf16_weights_gemm"];  // "bf16 (measured)", "f32 (PDBENCH_FLOAT_GEMM)"
  EXPECT_TRUE(bf16.starts_with("f32 (") || bf16.starts_with("bf16 (")) << bf16;
  const std::string pairs = f["grouped_row_pairs"];  // "pairs: q4_0 ...; one: q5_K (measured)", or "none"
  EXPECT_TRUE(pairs == "none" || pairs.starts_with("pairs: ")) << pairs;
  const std::string l1 = f["streamed_l1_prefetch"];  // "far (measured: near 2.46 ms, far 2.28 ms)", "near (avx512 only)"
  EXPECT_TRUE(l1.starts_with("near (") || l1.starts_with("far (")) << l1;
  const std::string commit = f["git_commit"];  // read at build time, not configure time
  EXPECT_TRUE(commit == "unknown" || commit.size() == 12) << commit;
  EXPECT_TRUE(f["git_dirty"].is_boolean());
}

TEST(Sysinfo, ComputeRoofFollowsThePrecisionOfTheWork) {
  Limits l;
  l.read_gb_s_1t = 10, l.read_gb_s_all = 20;
  l.fp32_gflop_s_1t = 60, l.fp32_gflop_s_all = 120;
  // A cache from before the GEMM peaks: every roof is FP32's.
  EXPECT_EQ(l.peak_gflop_s(1, GemmPrecision::Int8), 60);
  EXPECT_EQ(l.roof_precision(GemmPrecision::BF16), GemmPrecision::F32);
  l.bf16_gflop_s_1t = 150, l.bf16_gflop_s_all = 300;
  l.int8_gop_s_1t = 600, l.int8_gop_s_all = 1200;
  EXPECT_EQ(l.peak_gflop_s(1, GemmPrecision::BF16), 150);
  EXPECT_EQ(l.peak_gflop_s(0, GemmPrecision::Int8), 1200);
  EXPECT_EQ(l.peak_gflop_s(2, GemmPrecision::F32), 120);
  const Limits back = limits_from_json(to_json(l));
  EXPECT_EQ(to_json(back), to_json(l));
  // Weight matmuls and whole phases meet the weights' roof; the rest FP32's.
  EXPECT_EQ(op_compute_precision("ffn_down", GemmPrecision::Int8), GemmPrecision::Int8);
  EXPECT_EQ(op_compute_precision("whole phase", GemmPrecision::BF16), GemmPrecision::BF16);
  EXPECT_EQ(op_compute_precision("attention", GemmPrecision::Int8), GemmPrecision::F32);
  EXPECT_EQ(op_compute_precision("lm_head", GemmPrecision::BF16), GemmPrecision::BF16);
  EXPECT_EQ(op_compute_precision("no such op", GemmPrecision::Int8), GemmPrecision::F32);
  for (size_t i = 0; i < kOpCount; ++i) EXPECT_EQ(op_from_name(op_name(static_cast<Op>(i))), static_cast<Op>(i));
  for (GemmPrecision p : {GemmPrecision::F32, GemmPrecision::BF16, GemmPrecision::Int8})
    EXPECT_EQ(parse_gemm_precision(gemm_precision_name(p)), p);
  EXPECT_THROW(parse_gemm_precision("fp8"), Error);
  EXPECT_THROW(parse_gemm_precision(""), Error);
}

TEST(Sysinfo, OnednnGemmPeaksAreMeasured) {
  EXPECT_GT(onednn_gemm_peak(GemmPrecision::BF16, 1), 0);
  EXPECT_GT(onednn_gemm_peak(GemmPrecision::Int8, 1), 0);
  EXPECT_THROW(onednn_gemm_peak(GemmPrecision::F32, 1), Error);
}

}  // namespace
}  // namespace pdbench::runner
