// Perplexity as llama-perplexity computes it: the chunking rule, and the
// figures on a trained model against llama.cpp's own (ppl_kld_eval.csv).
#include <gtest/gtest.h>
#include <omp.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"
#include "bench/runner/perplexity.h"
#include "engine/format/gguf.h"
#include "engine/format/gguf_writer.h"
#include "engine/kernels/float_gemm_choice.h"
#include "engine/kernels/quantize.h"
#include "engine/model/fast_forward.h"
#include "engine/util/error.h"
#include "tests/support/error_of.h"
#include "tests/support/scoped_env.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_name.h"
#include "tests/support/tiny_model.h"
#include "engine/model/synthetic_model.h"

namespace pdbench::runner {
namespace {

using test::error_of;

TEST(PerplexityChunks, EachChunkStartsWithBosAndTheTailIsDropped) {
  const std::vector<int32_t> tokens = {1, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  const PerplexityChunks c = cut_chunks(tokens, 4, 1, "text");
  EXPECT_EQ(c.text_tokens, 10u);
  ASSERT_EQ(c.chunks.size(), 2u);
  EXPECT_EQ(c.chunks[0], (std::vector<int32_t>{1, 11, 12, 13}));
  EXPECT_EQ(c.chunks[1], (std::vector<int32_t>{1, 15, 16, 17}));  // 14 became BOS
  // Logits at position 2 predict token 3: chunk/2 - 1 per chunk.
  EXPECT_EQ(c.first_scored(), 2u);
  EXPECT_EQ(c.scored_per_chunk(), 1u);
  EXPECT_EQ(cut_chunks(tokens, 4, -1, "text").chunks[1].front(), 14);  // no BOS in the vocabulary
}

TEST(PerplexityChunks, TooShortATextOrABadSizeIsAnError) {
  const std::vector<int32_t> seven(7, 5);
  EXPECT_EQ(error_of([&] { cut_chunks(seven, 4, 1, "t.txt"); }),
            "t.txt: the text is 7 tokens, but perplexity in chunks of 4 needs at least 8 (two chunks)");
  EXPECT_NE(error_of([&] { cut_chunks(seven, 0, 1, "t.txt"); }).find("even"), std::string::npos);
  EXPECT_NE(error_of([] { check_chunk_size(127, 2048, "-c"); }).find("-c 127: "), std::string::npos);
  EXPECT_NE(error_of([] { check_chunk_size(2, 2048, "-c"); }).find("at least 4"), std::string::npos);
  EXPECT_NE(error_of([] { check_chunk_size(4096, 2048, "-c"); }).find("context of 2048"), std::string::npos);
  EXPECT_EQ(error_of([] { check_chunk_size(2048, 2048, "-c"); }), "no error");
}

TEST(PerplexityChunks, DefaultIsLlamaPerplexitysCappedAtTheContext) {
  EXPECT_EQ(default_chunk_size(2048), 512u);
  EXPECT_EQ(default_chunk_size(128), 128u);
  EXPECT_EQ(default_chunk_size(127), 126u);
}

TEST(PerplexityVocabulary, AnotherSizeOrPieceNamesBothFiles) {
  const std::string dir = test::temp_dir("vocab");
  const std::string stories = test::model_path("stories260K.gguf"), tiny = dir + "/tiny.gguf";
  write_synthetic_model({"tiny", test::tiny_config("llama-3.2-1b", 64, 16, 96, 1024), TensorType::F32, 3}, tiny);
  const Engine a = Engine::load(stories), b = Engine::load(tiny);
  EXPECT_EQ(error_of([&] { require_same_vocabulary(a, b); }),
            stories + " and " + tiny + " have different vocabularies: 512 and 1024 tokens");
  EXPECT_EQ(error_of([&] { require_same_vocabulary(a, Engine::load(stories)); }), "no error");
}

std::string wide(const std::string& type) {
  return test::data_path("stories260K-wide/stories260K-wide-" + type + ".gguf");
}

// llama.cpp's figures for one file of the fixture.
struct LlamaCppFigures {
  double ppl, kld_mean, same_top_pct;
};

LlamaCppFigures llama_cpp_figures(const std::string& type) {
  const Table t = read_csv(test::data_path("stories260K-wide/ppl_kld_eval.csv"));
  for (const auto& row : t.rows)
    if (row[t.column("file")] == "stories260K-wide-" + type + ".gguf")
      return {std::stod(row[t.column("ppl")]), std::stod(row[t.column("mean_kld")]),
              std::stod(row[t.column("same_top_pct")])};
  throw Error("no row for " + type);
}

// Every path's summary over the bundled corpus in chunks of 128, as
// ppl_kld_eval.csv was measured, against the base's reference pass.
std::vector<AccuracySummary> measure(const Engine& engine, ForwardKind kind, const Engine& base_engine,
                                     KvType k_type = KvType::F32, KvType v_type = KvType::F32) {
  const PerplexityChunks text = cut_chunks(
      engine.tokenizer().encode(test::read_file(test::source_path("scenarios/corpus/stories.txt")), true), 128,
      engine.tokenizer().bos(), "stories.txt");
  ChunkLogits model(engine, kind, text.chunk, k_type, v_type);
  ChunkLogits base(base_engine, ForwardKind::Reference, text.chunk);
  constexpr LogitsPath kBothPaths[] = {LogitsPath::Prefill, LogitsPath::Decode};
  std::vector<AccuracySummary> out;
  for (const AccuracyTotals& t : score_chunks(text, model, &base, kBothPaths)) out.push_back(t.summary());
  return out;
}

// OpenMP on one thread while it lives. Decode opens a parallel region per
// token (the reference pass dozens), each a barrier that stalls while
// another process holds a core (ctest -j2); the figures do not depend on
// the thread count beyond rounding.
struct OneThread {
  int threads = omp_get_max_threads();
  OneThread() { omp_set_num_threads(1); }
  ~OneThread() { omp_set_num_threads(threads); }
};

// The reference pass computes what llama.cpp's does on f32 weights (its
// sums run in another order), and against itself moves nothing: its
// prefill and its decode give the same bits.
TEST(Perplexity, ReferencePassMatchesLlamaCppAndItselfOnTheF32File) {
  const OneThread one_thread;
  const Engine engine = Engine::load(wide("f32"));
  const Engine same = Engine::load(wide("f32"));
  require_same_vocabulary(engine, same);
  const double want = llama_cpp_figures("f32").ppl;
  for (const AccuracySummary& s : measure(engine, ForwardKind::Reference, same)) {
    EXPECT_EQ(s.tokens_scored, 630u);  // 10 chunks of 63
    EXPECT_NEAR(s.ppl, want, 1e-3 * want);
    ASSERT_TRUE(s.base);
    EXPECT_EQ(s.base->kld_mean, 0);
    EXPECT_EQ(s.base->kld_p99, 0);
    EXPECT_EQ(s.base->same_top_pct, 100);
    EXPECT_EQ(s.base->ppl_ratio, 1);
  }
}

// The KV cache's element type is part of what is measured: the reference
// pass over a q8_0 or f16 cache against its own f32-cache pass moves the
// distributions by the cache's rounding only, more for q8_0 than for f16
// (observed q8_0: mean KLD 0.0021, same top 97%; its head_dim of 8 puts
// 8 values under each scale).
TEST(Perplexity, KvCacheTypeMovesTheFiguresByItsRounding) {
  const OneThread one_thread;
  const Engine engine = Engine::load(wide("f32"));
  double kld_of[2] = {};
  for (const KvType type : {KvType::F16, KvType::Q8_0}) {
    for (const AccuracySummary& s : measure(engine, ForwardKind::Reference, engine, type, type)) {
      ASSERT_TRUE(s.base);
      EXPECT_GT(s.base->kld_mean, 0) << kv_type_name(type);
      EXPECT_LT(s.base->kld_mean, type == KvType::F16 ? 1e-3 : 5e-3) << kv_type_name(type);
      EXPECT_GT(s.base->same_top_pct, 95) << kv_type_name(type);
      kld_of[type == KvType::Q8_0] = s.base->kld_mean;
    }
  }
  EXPECT_LT(kld_of[0], kld_of[1]);
}

// The fast pass on every quantized fixture file against the f32 file's
// reference pass, no less accurate than llama.cpp on the same files (issues
// 20, 21): mean KLD at most 1.1x llama.cpp's and PPL within 1% of its,
// prefill and decode. The integer paths (every quantized format) keep the
// weights' block scales (and mins) and round activations to int8 per block
// of 32, as llama.cpp's dot products do (per 256 for the K-quants and
// IQ4_XS): observed Q8_0 1.07x, Q4_0-pure 0.99x, Q4_1 0.99x, Q5_0 0.98x,
// Q5_1 0.98x, Q2_K 1.00x, Q3_K_M 0.99x, Q4_K_M 0.99x, Q5_K_M 0.98x, Q6_K
// 0.95x, IQ4_NL 1.00x, IQ4_XS 1.00x. The prefill once requantized weights
// with one scale per row and activations with one per token (oneDNN's s8
// GEMM), which gave Q8_0 1.8x. One test per file, 13 s of CPU each, so
// ctest spreads them over the cores.
class FastPassOnQuantizedFile : public ::testing::TestWithParam<std::string> {};

TEST_P(FastPassOnQuantizedFile, StaysNearLlamaCpp) {
  const OneThread one_thread;
  const std::string type = GetParam();
  const Engine f32 = Engine::load(wide("f32"));
  const Engine engine = Engine::load(wide(type));
  require_same_vocabulary(engine, f32);
  const LlamaCppFigures want = llama_cpp_figures(type);
  for (const AccuracySummary& s : measure(engine, ForwardKind::Fast, f32)) {
    ASSERT_TRUE(s.base);
    EXPECT_NEAR(s.ppl, want.ppl, 0.01 * want.ppl);
    EXPECT_LE(s.base->kld_mean, 1.1 * want.kld_mean);
    EXPECT_GT(s.base->same_top_pct, want.same_top_pct - 5);
  }
}

INSTANTIATE_TEST_SUITE_P(Stories260KWide, FastPassOnQuantizedFile,
                         ::testing::Values("Q8_0", "Q4_0-pure", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K_S", "Q4_K_M",
                                           "Q5_K_S", "Q5_K_M", "Q6_K", "Q2_K", "Q3_K_M", "IQ4_NL", "IQ4_XS"),
                         test::StringParamName());

// The f32 fixture with every matrix rounded to BF16 (norms stay f32): a
// BF16 file of trained weights.
std::string wide_bf16() {
  const std::string path = test::temp_dir("perplexity-bf16") + "/stories260K-wide-bf16.gguf";
  const gguf::GgufFile in = gguf::GgufFile::open(wide("f32"));
  gguf::GgufWriter out(in.alignment());
  for (const auto& [key, value] : in.metadata()) out.set(key, value);
  for (const gguf::TensorInfo& t : in.tensors()) {
    const auto* values = reinterpret_cast<const float*>(t.data);
    const size_t row = t.shape[0];
    const TensorType type = t.shape.size() > 1 ? TensorType::BF16 : TensorType::F32;
    std::vector<std::byte> bytes(t.n_rows() * row_bytes(type, row));
    for (uint64_t r = 0; r < t.n_rows(); ++r)
      quantize_row(type, values + r * row, bytes.data() + r * row_bytes(type, row), row);
    out.add_tensor(t.name, type, t.shape, std::move(bytes));
  }
  out.write(path);
  return path;
}

// BF16 weights prefill in bf16 GEMMs where the CPU runs those faster
// (narrow_floats), rounding the activations to bf16 as llama.cpp's BF16 dot
// products do. On trained weights, against the f32 file's reference pass,
// that moves the figures by less than the weights' own rounding, which the
// f32 GEMM's figures show alone. Observed mean KLD: f32 GEMM 5.7e-5, bf16
// GEMM 8.2e-5; perplexity 6.317 against 6.320; same top 99.2% for both.
TEST(Perplexity, BF16GemmOnTrainedBF16WeightsStaysNearTheF32Gemm) {
  const OneThread one_thread;
  const Engine f32 = Engine::load(wide("f32"));
  const std::string bf16_file = wide_bf16();
  AccuracySummary prefill[2];
  for (const char* precision : {"f32", "bf16"}) {
    const test::ScopedEnv forced(kFloatGemmVariable, precision);
    const Engine engine = Engine::load(bf16_file);
    EXPECT_EQ(gemm_precision_name(prefill_precision(engine.model())), precision);
    prefill[precision[0] == 'b'] = measure(engine, ForwardKind::Fast, f32).front();
  }
  for (const AccuracySummary& s : prefill) ASSERT_TRUE(s.base);
  EXPECT_LT(prefill[1].base->kld_mean, 3 * prefill[0].base->kld_mean);
  EXPECT_LT(prefill[1].base->kld_mean, 5e-4);
  EXPECT_NEAR(prefill[1].ppl, prefill[0].ppl, 0.005 * prefill[0].ppl);
  EXPECT_GT(prefill[1].base->same_top_pct, 97.0);
}

// A synthetic model with a trained model's statistics (make-model
// --statistics trained: two massive residual channels, peaked
// distributions): the fast pass of its Q8_0, Q4_0 and K-quant files against their
// own reference pass. Quantizing activations per block of 32, the massive
// channels flatten only the 31 others of their blocks; with one scale per
// token they would flatten every channel of the token. Observed mean KLD
// 0.0015 (Q8_0) and 0.0003 (Q4_0), same top 94-96%, prefill and decode.
TEST(Perplexity, FastPassHoldsUpUnderMassiveActivations) {
  const OneThread one_thread;
  const std::string dir = test::temp_dir("perplexity-massive");
  for (TensorType type : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K}) {
    SyntheticSpec spec{"tiny", test::tiny_config("llama-3.2-1b", 256, 64, 512, 1024), type, 5,
                       WeightStatistics::Trained};
    const std::string path = dir + "/trained-" + std::string(traits(type).name) + ".gguf";
    write_synthetic_model(spec, path);
    const Engine engine = Engine::load(path);
    for (const AccuracySummary& s : measure(engine, ForwardKind::Fast, engine)) {
      ASSERT_TRUE(s.base);
      EXPECT_LT(s.base->kld_mean, 0.005) << traits(type).name;
      EXPECT_GT(s.base->same_top_pct, 90) << traits(type).name;
    }
  }
}

}  // namespace
}  // namespace pdbench::runner
