// Attention over the paged cache at the shapes of SmolLM2-135M (9 query
// heads, 3 KV heads) and Llama-3.2-1B (32, 8), head_dim 64, and Gemma 2 2B
// (8, 4, head_dim 256, scores softcapped at 50), per KV type,
// with the kernels of selected_isa() (PDBENCH_ISA=scalar to compare).
//
// BM_decode_attention/<model>/<type>/depth:D/threads:T: one decode step's
// attention in one layer, a query over D cached positions, the threads
// splitting the positions and one merging the partials as FastForward does.
// Each iteration takes the next layer of a cache with the model's layers,
// so the K/V come from where a decode step finds them (every layer's K/V is
// read once per step: SmolLM2's f32 cache at depth 4096 is 189 MB).
//
// BM_batch_decode_attention/<model>/<type>/batch:B/depth:D/threads:T: one
// batched decode step's attention in one layer, B sequences' queries at
// depth D through paged_attention_chunks (a chunk of one query each), as
// FastForward runs a batch.
//
// BM_prefill_attention/<model>/<type>/<variant>/prompt:P/threads:T: the
// attention of a P-token prompt in one layer whose K/V were just written.
// Variant tiled: paged_attention_chunks; per_token: paged_attention_decode
// for each query on OpenMP threads, what prefill ran before the tiled kernel.
//
// Counters: bytes/s of the K/V attended as stored (each position's once:
// the least any kernel reads) and FLOP/s (4 n_heads head_dim per query-key
// pair: the scores and the weighted sum).
//
// On a shared machine compare variants within one run, e.g.
// --benchmark_filter=attention --benchmark_repetitions=5
// --benchmark_enable_random_interleaving=true, by CPU time at threads:1: a
// 2-thread region waits for whichever thread the OS runs last.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/attention/decode_attention.h"
#include "engine/attention/chunk_attention.h"

namespace pdbench {
namespace {

struct ModelShape {
  const char* name;
  ref::AttentionShape shape;
  size_t n_layers;
};

// Gemma 2 2B: head size 256 and its attention softcap of 50 (a tanh per score).
constexpr ModelShape kModels[] = {
    {"smollm2_135m", {9, 3, 64}, 30}, {"llama32_1b", {32, 8, 64}, 16}, {"gemma2_2b", {8, 4, 256, 0, 50.0f}, 26}};
constexpr KvType kTypes[] = {KvType::F32, KvType::F16, KvType::BF16, KvType::Q8_0};

std::vector<float> random_normal(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(n);
  std::generate(x.begin(), x.end(), [&] { return normal(gen); });
  return x;
}

// n_seqs sequences of `length` positions with random K/V in every layer.
// Rows repeat 64 random ones: speed does not depend on the values.
struct FilledCache {
  FilledCache(const ModelShape& model, KvType type, size_t n_layers, size_t length, size_t n_seqs)
      : cache(KvCacheConfig{n_layers, model.shape.n_kv_heads, model.shape.head_dim, type, type, 16,
                            n_seqs * (length + 16), 0}) {
    constexpr size_t kDistinct = 64;
    const size_t kv_dim = cache.kv_dim();
    const auto rows = random_normal(2 * kDistinct * kv_dim, 1);
    for (size_t s = 0; s < n_seqs; ++s) {
      const SequenceId seq = seqs.emplace_back(cache.create_sequence());
      cache.extend(seq, length);
      for (size_t layer = 0; layer < n_layers; ++layer)
        for (size_t pos = 0; pos < length; ++pos) {
          const float* k = &rows[(pos + s) % kDistinct * kv_dim];
          cache.write(seq, layer, pos, k, k + kDistinct * kv_dim);  // V from the second half
        }
    }
  }
  PagedKvCache cache;
  std::vector<SequenceId> seqs;
};

// One cache at a time: the benchmarks of one (model, type, layers, length,
// sequences) run back to back.
const FilledCache& filled_cache(const ModelShape& model, KvType type, size_t n_layers, size_t length,
                                size_t n_seqs = 1) {
  static std::unique_ptr<FilledCache> cached;
  static std::string key;
  const std::string want = std::string(model.name) + "/" + std::string(kv_type_name(type)) + "/" +
                           std::to_string(n_layers) + "/" + std::to_string(length) + "/" + std::to_string(n_seqs);
  if (!cached || key != want) {
    cached.reset();
    cached = std::make_unique<FilledCache>(model, type, n_layers, length, n_seqs);
    key = want;
  }
  return *cached;
}

void set_rates(benchmark::State& state, const PagedKvCache& cache, const ref::AttentionShape& shape,
               double positions_read, double query_key_pairs) {
  const auto iterations = static_cast<double>(state.iterations());
  const auto bytes = static_cast<double>(cache.pool().bytes_per_token_per_layer()) * positions_read;
  const double flop = 4.0 * static_cast<double>(shape.n_heads * shape.head_dim) * query_key_pairs;
  state.counters["bytes/s"] = benchmark::Counter(bytes * iterations, benchmark::Counter::kIsRate);
  state.counters["FLOP/s"] = benchmark::Counter(flop * iterations, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(isa_name(selected_isa())));
}

// Args: depth, threads.
void BM_decode_attention(benchmark::State& state, const ModelShape& model, KvType type) {
  const auto depth = static_cast<size_t>(state.range(0));
  const auto threads = static_cast<int>(state.range(1));
  const ref::AttentionShape& shape = model.shape;
  const FilledCache& f = filled_cache(model, type, model.n_layers, depth);
  const auto q = random_normal(shape.n_heads * shape.head_dim, 2);
  std::vector<float> out(q.size());
  std::vector<AttentionPartial> parts(static_cast<size_t>(threads));
  size_t layer = 0;
  for (auto _ : state) {
#pragma omp parallel num_threads(threads)
    {
      const auto t = static_cast<size_t>(omp_get_thread_num());
      const auto nt = static_cast<size_t>(omp_get_num_threads());
      attention_partial(q.data(), f.cache, f.seqs[0], layer, depth * t / nt, depth * (t + 1) / nt, shape, parts[t]);
#pragma omp barrier
#pragma omp single
      merge_attention(std::span(parts.data(), nt), shape, out.data());
    }
    benchmark::DoNotOptimize(out.data());
    layer = (layer + 1) % model.n_layers;
  }
  set_rates(state, f.cache, shape, static_cast<double>(depth), static_cast<double>(depth));
}

// Args: batch, depth, threads.
void BM_batch_decode_attention(benchmark::State& state, const ModelShape& model, KvType type) {
  const auto batch = static_cast<size_t>(state.range(0));
  const auto depth = static_cast<size_t>(state.range(1));
  omp_set_num_threads(static_cast<int>(state.range(2)));
  const ref::AttentionShape& shape = model.shape;
  const FilledCache& f = filled_cache(model, type, model.n_layers, depth, batch);
  const size_t width = shape.n_heads * shape.head_dim;
  const auto q = random_normal(batch * width, 2);
  std::vector<float> out(q.size());
  std::vector<QueryChunk> chunks;
  for (size_t i = 0; i < batch; ++i) chunks.push_back({f.seqs[i], depth - 1, 1, &q[i * width], &out[i * width]});
  size_t layer = 0;
  for (auto _ : state) {
    paged_attention_chunks(chunks, width, width, f.cache, layer, shape);
    benchmark::DoNotOptimize(out.data());
    layer = (layer + 1) % model.n_layers;
  }
  const auto d = static_cast<double>(depth), b = static_cast<double>(batch);
  set_rates(state, f.cache, shape, b * d, b * d);
}

enum class Prefill { Tiled, PerToken };

// Args: prompt tokens, threads.
void BM_prefill_attention(benchmark::State& state, const ModelShape& model, KvType type, Prefill variant) {
  const auto prompt = static_cast<size_t>(state.range(0));
  omp_set_num_threads(static_cast<int>(state.range(1)));
  const ref::AttentionShape& shape = model.shape;
  const FilledCache& f = filled_cache(model, type, 1, prompt);
  const size_t width = shape.n_heads * shape.head_dim;
  const auto q = random_normal(prompt * width, 3);
  std::vector<float> out(q.size());
  const QueryChunk chunk{f.seqs[0], 0, prompt, q.data(), out.data()};
  for (auto _ : state) {
    if (variant == Prefill::Tiled) {
      paged_attention_chunks(std::span(&chunk, 1), width, width, f.cache, 0, shape);
    } else {
#pragma omp parallel
      {
        AttentionPartial scratch;
#pragma omp for schedule(dynamic, 1)
        for (size_t t = 0; t < prompt; ++t)
          paged_attention_decode(&q[t * width], f.cache, f.seqs[0], 0, t + 1, shape, scratch, &out[t * width]);
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  const auto p = static_cast<double>(prompt);
  set_rates(state, f.cache, shape, p, p * (p + 1) / 2);
}

const bool registered = [] {
  const int all_threads = omp_get_max_threads();
  for (const ModelShape& model : kModels)
    for (KvType type : kTypes) {
      const std::string prefix = std::string(model.name) + "/" + std::string(kv_type_name(type));
      auto* decode =
          benchmark::RegisterBenchmark(("BM_decode_attention/" + prefix).c_str(), BM_decode_attention, model, type);
      decode->ArgNames({"depth", "threads"})->UseRealTime()->Unit(benchmark::kMicrosecond);
      for (int64_t depth : {32, 512, 1024, 4096}) {
        decode->Args({depth, 1});
        if (all_threads > 1) decode->Args({depth, all_threads});
      }
      auto* batched = benchmark::RegisterBenchmark(("BM_batch_decode_attention/" + prefix).c_str(),
                                                   BM_batch_decode_attention, model, type);
      batched->ArgNames({"batch", "depth", "threads"})->UseRealTime()->Unit(benchmark::kMicrosecond);
      for (int64_t depth : {32, 1024}) {
        batched->Args({8, depth, 1});
        if (all_threads > 1) batched->Args({8, depth, all_threads});
      }
      for (auto [variant, name] : {std::pair{Prefill::Tiled, "tiled"}, {Prefill::PerToken, "per_token"}}) {
        auto* prefill = benchmark::RegisterBenchmark(("BM_prefill_attention/" + prefix + "/" + name).c_str(),
                                                     BM_prefill_attention, model, type, variant);
        prefill->ArgNames({"prompt", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
        for (int64_t prompt : {128, 512}) {
          prefill->Args({prompt, 1});
          if (all_threads > 1) prefill->Args({prompt, all_threads});
        }
      }
    }
  return true;
}();

}  // namespace
}  // namespace pdbench
