#include "engine/model/fast_forward.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "engine/attention/attention_shape.h"
#include "engine/attention/chunk_attention.h"
#include "engine/kernels/activation.h"
#include "engine/kernels/float_gemm_choice.h"
#include "engine/kernels/reference.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/row_pairing.h"
#include "engine/kernels/stream_prefetch.h"
#include "engine/model/stacked_rows.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

using Clock = std::chrono::steady_clock;

double gemm_flops(size_t rows, size_t cols, size_t n) { return 2.0 * static_cast<double>(rows * cols * n); }

// The tokens in flight as runs of consecutive positions of one sequence (a
// prompt is one run, a batched decode step one per sequence), their queries
// in rows of qkv and outputs in rows of attn.
std::vector<QueryChunk> query_chunks(std::span<const TokenSlot> slots, const float* qkv, size_t qkv_width,
                                     float* attn, size_t q_dim) {
  std::vector<QueryChunk> chunks;
  for (size_t t = 0; t < slots.size(); ++t) {
    const TokenSlot& s = slots[t];
    if (!chunks.empty() && chunks.back().seq == s.seq && chunks.back().first_pos + chunks.back().n_queries == s.pos)
      ++chunks.back().n_queries;
    else
      chunks.push_back({s.seq, s.pos, 1, qkv + t * qkv_width, attn + t * q_dim});
  }
  return chunks;
}

// RMSNorm of each of n_heads vectors of head_dim in place (qwen3's QK norm).
void rmsnorm_heads(float* x, size_t n_heads, size_t head_dim, std::span<const float> weight, float eps) {
  for (size_t h = 0; h < n_heads; ++h) rmsnorm(x + h * head_dim, x + h * head_dim, weight.data(), head_dim, eps);
}

// Records phase times on thread 0 right after the barrier that ends a phase.
class PhaseClock {
 public:
  explicit PhaseClock(OpProfile* profile) : profile_(profile), last_(Clock::now()) {}
  void mark(Op op, int layer, double flops = 0, double bytes = 0) {
    if (profile_ == nullptr || omp_get_thread_num() != 0) return;
    const auto now = Clock::now();
    profile_->add(op, layer, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count()),
                  flops, bytes);
    last_ = now;
  }

 private:
  OpProfile* profile_;
  Clock::time_point last_;
};

}  // namespace

NarrowFloats narrow_floats(const ModelWeights& weights) {
  size_t widened = 0;
  bool bf16 = false;
  auto add = [&](const MatrixView& w) {
    if (weight_format(w.type).gemm != GemmPrecision::BF16) return;
    widened += gemm_weight_bytes(static_cast<size_t>(w.rows), static_cast<size_t>(w.cols), GemmPrecision::F32);
    bf16 = bf16 || w.type == TensorType::BF16;
  };
  for (const LayerWeights& l : weights.layers)
    for (const MatrixView* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) add(*w);
  add(weights.output);
  if (!memory_fits(2 * widened)) return {.f16 = true, .bf16 = true};
  return {.f16 = false, .bf16 = bf16 && float_gemm_choice().precision == GemmPrecision::BF16};
}

GemmPrecision prefill_precision(const Model& model) {
  const LayerWeights& layer = model.weights().layers.front();
  const MatrixView qkv[] = {layer.wq, layer.wk, layer.wv};
  return gemm_precision(qkv, narrow_floats(model.weights()));
}

FastForward::FastForward(const Model& model)
    : model_(model), narrow_floats_(narrow_floats(model.weights())) {
  const ModelWeights& w = model.weights();
  layers_.reserve(w.layers.size());
  for (const LayerWeights& l : w.layers)
    layers_.push_back({projection({&l.wq, &l.wk, &l.wv}), projection({&l.wo}), projection({&l.w_gate, &l.w_up}),
                       projection({&l.w_down})});
  lm_head_ = projection({&w.output});
}

Projection FastForward::projection(std::initializer_list<const MatrixView*> stacked) const {
  Projection p;
  std::vector<MatrixView> views;
  bool floats = true;
  for (const MatrixView* w : stacked) {
    p.parts.emplace_back(*w);
    // Measured here, not in the first prefill or decode step.
    row_pairing(selected_isa(), w->type);
    if (gemv_layout(w->type) == RowLayout::GroupedQuants) stream_prefetch(selected_isa());
    views.push_back(*w);
    p.rows += static_cast<size_t>(w->rows);
    p.weight_bytes += static_cast<double>(w->bytes());
    floats = floats && weight_format(w->type).activation == ActivationType::F32;
  }
  p.cols = static_cast<size_t>(stacked.begin()[0]->cols);
  if (floats) p.gemm.emplace(views, gemm_precision(views, narrow_floats_));
  return p;
}

// One call of run(): its tokens, how its phases run on the threads, and the
// profile's clock. Every method is one phase. Phases that work token by
// token share the tokens out alike (gemv_thread_rows over the same count),
// so one whose successor reads only its own tokens' results goes on
// without the threads meeting (ThreadTeam::each: norms, residual adds,
// SwiGLU, each feeding the next projection's preparation); the rest end
// when every thread is done.
class FastForward::Pass {
 public:
  Pass(FastForward& f, PagedKvCache& cache, std::span<const TokenSlot> slots, const ThreadTeam& team,
       OpProfile* profile)
      : f_(f),
        c_(f.model_.config()),
        cache_(cache),
        slots_(slots),
        n_(slots.size()),
        team_(team),
        clock_(profile),
        queries_(n_ > 1 ? query_chunks(slots, f.qkv_.data(), c_.q_dim() + 2 * c_.kv_dim(), f.attn_.data(), c_.q_dim())
                        : std::vector<QueryChunk>{}) {}

  void layer(size_t layer);
  void logits(std::span<const size_t> rows);

 private:
  void normalize(std::span<const float> weight, std::span<const size_t> rows);
  void project(Projection& p, const float* in, size_t n, float* out) { project(p, in, p.cols, n, out); }
  void project(Projection& p, const float* in, size_t in_stride, size_t n, float* out);
  void rope_and_cache(const LayerWeights& l, size_t layer);
  void attend(size_t layer);
  void add_to_residual(std::span<const float> post_norm);
  void gated_activation_rows();
  void compact_gated_rows();
  void softcap_logits();

  FastForward& f_;
  const ModelConfig& c_;
  PagedKvCache& cache_;
  std::span<const TokenSlot> slots_;
  const size_t n_;
  const ThreadTeam& team_;
  PhaseClock clock_;
  // The same for every layer: the tokens' runs of positions (more than one token).
  const std::vector<QueryChunk> queries_;
};

std::span<const float> FastForward::run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool all_logits,
                                        OpProfile* profile) {
  const std::vector<TokenSlot> slots = reserve_positions(cache, chunks, model_.config().vocab);
  {
    ScopedOp op(profile, Op::Embedding, -1, 0,
                static_cast<double>(slots.size() * model_.weights().token_embedding.row_stride()));
    embed(chunks);
  }
  const ModelConfig& c = model_.config();
  const std::span<const float> rope_freqs = model_.weights().rope_freqs;
  // Global layers' rotations, then sliding layers' (their own RoPE base and scale).
  for (size_t kind = 0; kind < (c.sliding_window != 0 ? 2 : 1); ++kind) {
    ref::RopeFrequencies freqs = c.rope_frequencies(kind == 1);
    freqs.divisors = rope_freqs.empty() ? nullptr : rope_freqs.data();
    rotations_[kind].resize(slots.size() * c.rope_dim);
    for (size_t t = 0; t < slots.size(); ++t)
      ref::rope_rotation(static_cast<int64_t>(slots[t].pos), c.rope_dim, freqs, &rotations_[kind][t * c.rope_dim]);
  }
  // Each chunk's last token, or every token.
  std::vector<size_t> rows;
  for (size_t i = 0, end = 0; i < chunks.size(); ++i) {
    const size_t begin = end;
    end += chunks[i].tokens.size();
    for (size_t r = all_logits ? begin : end - 1; r < end; ++r) rows.push_back(r);
  }
  size_activations(slots.size(), rows.size());
  auto walk = [&](const ThreadTeam& team) {
    Pass pass(*this, cache, slots, team, profile);
    for (size_t layer = 0; layer < c.n_layers; ++layer) pass.layer(layer);
    pass.logits(rows);
  };
  if (slots.size() == 1) {
#pragma omp parallel
    walk(ThreadTeam(true));
  } else {
    walk(ThreadTeam(false));
  }
  return logits_;
}

void FastForward::size_activations(size_t tokens, size_t logit_rows) {
  const ModelConfig& c = model_.config();
  xb_.resize(std::max(tokens, logit_rows) * std::max(c.dim, c.q_dim()));
  qkv_.resize(tokens * (c.q_dim() + 2 * c.kv_dim()));
  attn_.resize(tokens * c.q_dim());
  out_.resize(tokens * c.dim);
  gate_up_.resize(tokens * 2 * c.ffn_dim);
  logits_.resize(logit_rows * c.vocab);
  partials_.resize(static_cast<size_t>(omp_get_max_threads()));
  if (!pieces_ || pieces_->max_threads() < omp_get_max_threads()) pieces_.emplace(omp_get_max_threads());
  for (std::vector<GemvActivation>& set : acts_) set.resize(std::max(set.size(), std::max(tokens, logit_rows)));
}

void FastForward::embed(std::span<const SequenceChunk> chunks) {
  const size_t dim = model_.config().dim;
  size_t n = 0;
  for (const SequenceChunk& c : chunks) n += c.tokens.size();
  x_.resize(n * dim);
  size_t t = 0;
  for (const SequenceChunk& c : chunks)
    for (int32_t id : c.tokens) ref::embedding_row(model_.weights().token_embedding, id, &x_[t++ * dim]);
  if (model_.config().scaled_embedding) scale_embeddings(x_, dim);
}

void FastForward::Pass::layer(size_t layer) {
  const LayerWeights& l = f_.model_.weights().layers[layer];
  LayerProjections& p = f_.layers_[layer];
  const int li = static_cast<int>(layer);
  const size_t qkv_rows = c_.q_dim() + 2 * c_.kv_dim();
  normalize(l.attn_norm, {});
  clock_.mark(Op::AttentionNorm, li);
  project(p.qkv, f_.xb_.data(), n_, f_.qkv_.data());
  clock_.mark(Op::QkvProjection, li, gemm_flops(qkv_rows, c_.dim, n_), p.qkv.weight_bytes);
  rope_and_cache(l, layer);
  clock_.mark(Op::Rope, li);
  attend(layer);
  const double attended = attended_positions(slots_, c_.layer_window(layer));
  clock_.mark(Op::Attention, li, 4.0 * static_cast<double>(c_.q_dim()) * attended,
              static_cast<double>(cache_.pool().bytes_per_token_per_layer()) * attended);
  project(p.wo, f_.attn_.data(), n_, f_.out_.data());
  add_to_residual(l.attn_post_norm);
  clock_.mark(Op::OutputProjection, li, gemm_flops(c_.dim, c_.q_dim(), n_), p.wo.weight_bytes);
  normalize(l.ffn_norm, {});
  clock_.mark(Op::FfnNorm, li);
  project(p.gate_up, f_.xb_.data(), n_, f_.gate_up_.data());
  gated_activation_rows();
  clock_.mark(Op::FfnGateUp, li, gemm_flops(2 * c_.ffn_dim, c_.dim, n_), p.gate_up.weight_bytes);
  // The gated outputs are the first halves of gate_up's rows, which the
  // integer formats read in place; a float GEMM takes them compacted.
  const bool compact = n_ > 1 && p.down.gemm;
  if (compact) compact_gated_rows();
  project(p.down, f_.gate_up_.data(), compact ? c_.ffn_dim : 2 * c_.ffn_dim, n_, f_.out_.data());
  add_to_residual(l.ffn_post_norm);
  clock_.mark(Op::FfnDown, li, gemm_flops(c_.dim, c_.ffn_dim, n_), p.down.weight_bytes);
}

void FastForward::Pass::logits(std::span<const size_t> rows) {
  const ModelWeights& w = f_.model_.weights();
  normalize(w.output_norm, rows);
  clock_.mark(Op::OutputNorm, -1);
  project(f_.lm_head_, f_.xb_.data(), rows.size(), f_.logits_.data());
  if (c_.final_softcap != 0) softcap_logits();
  clock_.mark(Op::LmHead, -1, gemm_flops(c_.vocab, c_.dim, rows.size()), f_.lm_head_.weight_bytes);
}

// xb row i = RMSNorm(x row rows[i]), or of x row i for every token when
// rows is empty.
void FastForward::Pass::normalize(std::span<const float> weight, std::span<const size_t> rows) {
  const size_t n = rows.empty() ? n_ : rows.size();
  team_.each([&](int thread, int n_threads) {
    const RowRange mine = gemv_thread_rows(static_cast<int64_t>(n), thread, n_threads);
    for (auto i = static_cast<size_t>(mine.begin); i < static_cast<size_t>(mine.end); ++i)
      rmsnorm(&f_.xb_[i * c_.dim], &f_.x_[(rows.empty() ? i : rows[i]) * c_.dim], weight.data(), c_.dim, c_.rms_eps);
  });
}

// out[n][p.rows] = in[n][p.cols] (rows in_stride floats apart) through
// p's stacked matrices. Threads
// prepare their share of the tokens for each distinct weight type, then
// take pieces of the stack's rows, their own first (stacked_rows.h; one
// barrier for the whole stack), reading each row once for all n tokens
// (gemm_rows); float formats with more than one token run p's oneDNN GEMM
// instead.
void FastForward::Pass::project(Projection& p, const float* in, size_t in_stride, size_t n, float* out) {
  if (n > 1 && p.gemm) {
    if (in_stride != p.cols) throw Error("FastForward: a float GEMM reads its input rows contiguous");
    return team_.forking([&] { p.gemm->run(in, out, n); });
  }
  // Parts of one type read one set of activations, prepared once.
  size_t set_of[kMaxStacked], set_part[kMaxStacked];
  TensorType set_type[kMaxStacked];
  size_t n_sets = 0;
  for (size_t i = 0; i < p.parts.size(); ++i) {
    const MatrixView& w = p.parts[i].view();
    set_of[i] = n_sets;
    for (size_t s = 0; s < n_sets; ++s)
      if (set_type[s] == w.type) set_of[i] = s;
    if (set_of[i] == n_sets) {
      set_part[n_sets] = i;
      set_type[n_sets++] = w.type;
    }
  }
  // Where the pieces' gemm_rows calls read tiles packed, each set's are
  // packed once here, by the thread that prepared their tokens.
  size_t tile_bytes[kMaxStacked];
  bool packs = false;
  for (size_t s = 0; s < n_sets; ++s) {
    tile_bytes[s] = gemm_packed_tile_bytes(p.parts[set_part[s]].view(), n);
    packs = packs || tile_bytes[s] != 0;
    f_.packed_[s].resize(std::max(f_.packed_[s].size(), n / kGemvMaxBatch * tile_bytes[s]));
  }
  team_.all([&](int thread, int n_threads) {
    // Whole tiles to each thread when packing, else tokens balanced.
    const size_t unit = packs ? kGemvMaxBatch : 1;
    const RowRange units = gemv_thread_rows(static_cast<int64_t>((n + unit - 1) / unit), thread, n_threads);
    const size_t first = static_cast<size_t>(units.begin) * unit;
    const size_t last = std::min(n, static_cast<size_t>(units.end) * unit);
    for (size_t s = 0; s < n_sets; ++s)
      for (size_t t = first; t < last; ++t) gemv_prepare(set_type[s], in + t * in_stride, p.cols, f_.acts_[s][t]);
    for (size_t s = 0; s < n_sets; ++s)
      if (tile_bytes[s] != 0)
        gemm_pack_tiles(p.parts[set_part[s]].view(), std::span(f_.acts_[s].data(), n), first / unit, last / unit,
                        f_.packed_[s].data());
    f_.pieces_->reset(thread);
#pragma omp barrier
    const size_t each = stacked_row_pieces_each(static_cast<size_t>(p.weight_bytes), n_threads);
    f_.pieces_->take(thread, n_threads, each, [&](size_t piece) {
      split_stacked_rows(std::span<const GemvMatrix>(p.parts), piece, each * static_cast<size_t>(n_threads),
                         [&](size_t i, int64_t base, int64_t lo, int64_t hi) {
                           gemm_rows_packed(p.parts[i].view(), std::span(f_.acts_[set_of[i]].data(), n),
                                            tile_bytes[set_of[i]] != 0 ? f_.packed_[set_of[i]].data() : nullptr,
                                            out + base, p.rows, lo, hi);
                         });
    });
  });
}

// QKV bias (qwen2), QK norm (qwen3, gemma3), RoPE on Q and K (the layer's
// base: global or sliding), Gemma 27B's query scale, and K/V appended to the cache.
void FastForward::Pass::rope_and_cache(const LayerWeights& l, size_t layer) {
  const size_t qkv_width = c_.q_dim() + 2 * c_.kv_dim();
  team_.all([&](int thread, int n_threads) {
    const RowRange mine = gemv_thread_rows(static_cast<int64_t>(n_), thread, n_threads);
    for (auto t = static_cast<size_t>(mine.begin); t < static_cast<size_t>(mine.end); ++t) {
      float* q = &f_.qkv_[t * qkv_width];
      float* k = q + c_.q_dim();
      float* v = k + c_.kv_dim();
      if (c_.qkv_bias) {
        ref::add(q, l.bq.data(), c_.q_dim());
        ref::add(k, l.bk.data(), c_.kv_dim());
        ref::add(v, l.bv.data(), c_.kv_dim());
      }
      if (c_.qk_norm) {
        rmsnorm_heads(q, c_.n_heads, c_.head_dim, l.q_norm, c_.rms_eps);
        rmsnorm_heads(k, c_.n_kv_heads, c_.head_dim, l.k_norm, c_.rms_eps);
      }
      const float* rotation = &f_.rotations_[c_.is_sliding(layer) ? 1 : 0][t * c_.rope_dim];
      ref::rope_rotate(q, c_.n_heads, c_.head_dim, c_.rope_dim, rotation, c_.rope_style);
      ref::rope_rotate(k, c_.n_kv_heads, c_.head_dim, c_.rope_dim, rotation, c_.rope_style);
      if (c_.attention_scale != 0) scale_queries(q, c_);
      cache_.write(slots_[t].seq, layer, slots_[t].pos, k, v);
    }
  });
}

// One token: threads split the positions it sees, each keeping a partial
// softmax state that one thread merges. More: the tiled prefill kernels
// over runs of consecutive positions.
void FastForward::Pass::attend(size_t layer) {
  const ref::AttentionShape shape = c_.attention_shape(layer);
  const size_t qkv_width = c_.q_dim() + 2 * c_.kv_dim();
  if (n_ > 1) {
    return team_.forking([&] { paged_attention_chunks(queries_, qkv_width, c_.q_dim(), cache_, layer, shape); });
  }
  const TokenSlot slot = slots_[0];
  const size_t first = ref::first_visible(shape, slot.pos);
  team_.all([&](int thread, int n_threads) {
    const RowRange positions = gemv_thread_rows(static_cast<int64_t>(slot.pos + 1 - first), thread, n_threads);
    attention_partial(f_.qkv_.data(), cache_, slot.seq, layer, first + static_cast<size_t>(positions.begin),
                      first + static_cast<size_t>(positions.end), shape, f_.partials_[static_cast<size_t>(thread)]);
  });
  team_.one([&] {
    merge_attention(std::span(f_.partials_.data(), static_cast<size_t>(omp_get_num_threads())), shape,
                    f_.attn_.data());
  });
}

// The logits' softcap, split between threads by logit: decode's one row
// of a 256K vocabulary is the most of them.
void FastForward::Pass::softcap_logits() {
  team_.all([&](int thread, int n_threads) {
    const RowRange mine = gemv_thread_rows(static_cast<int64_t>(f_.logits_.size()), thread, n_threads);
    ref::softcap(&f_.logits_[static_cast<size_t>(mine.begin)], static_cast<size_t>(mine.end - mine.begin),
                 c_.final_softcap);
  });
}

// x += out, each row of out first normalized with post_norm when there is
// one (Gemma's post-attention and post-FFN norms).
void FastForward::Pass::add_to_residual(std::span<const float> post_norm) {
  team_.each([&](int thread, int n_threads) {
    const RowRange mine = gemv_thread_rows(static_cast<int64_t>(n_), thread, n_threads);
    const auto begin = static_cast<size_t>(mine.begin) * c_.dim;
    for (size_t t = static_cast<size_t>(mine.begin); t < static_cast<size_t>(mine.end) && !post_norm.empty(); ++t)
      rmsnorm(&f_.out_[t * c_.dim], &f_.out_[t * c_.dim], post_norm.data(), c_.dim, c_.rms_eps);
    add(&f_.x_[begin], &f_.out_[begin], static_cast<size_t>(mine.end - mine.begin) * c_.dim);
  });
}

// SwiGLU or GeGLU in place: row t of gate_up becomes act(gate) * up in its first ffn_dim.
void FastForward::Pass::gated_activation_rows() {
  team_.each([&](int thread, int n_threads) {
    const RowRange mine = gemv_thread_rows(static_cast<int64_t>(n_), thread, n_threads);
    for (auto t = static_cast<size_t>(mine.begin); t < static_cast<size_t>(mine.end); ++t) {
      float* row = &f_.gate_up_[t * 2 * c_.ffn_dim];
      if (c_.ffn_activation == FfnActivation::GeGlu)
        geglu(row, row + c_.ffn_dim, c_.ffn_dim);
      else
        swiglu(row, row + c_.ffn_dim, c_.ffn_dim);
    }
  });
}

// The gated outputs compacted to [n][ffn_dim] for a float down projection;
// row t moves to a lower offset that no later row still needs, so one
// thread moves them in order, once every row is done: for 512 tokens of
// Llama-3.2-1B some 0.7 ms a layer while the other threads wait, which the
// integer formats, reading them in place, skip.
void FastForward::Pass::compact_gated_rows() {
  team_.meet();
  team_.one([&] {
    for (size_t t = 1; t < n_; ++t)
      std::copy_n(&f_.gate_up_[t * 2 * c_.ffn_dim], c_.ffn_dim, &f_.gate_up_[t * c_.ffn_dim]);
  });
}

}  // namespace pdbench
