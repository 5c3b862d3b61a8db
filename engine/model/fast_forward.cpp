#include "engine/model/fast_forward.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "engine/attention/attention.h"
#include "engine/attention/prefill_attention.h"
#include "engine/kernels/activation.h"
#include "engine/kernels/reference.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

using Clock = std::chrono::steady_clock;

double gemm_flops(size_t rows, size_t cols, size_t n) { return 2.0 * static_cast<double>(rows * cols * n); }
double weight_bytes(std::initializer_list<const MatrixView*> ws) {
  double b = 0;
  for (const MatrixView* w : ws) b += static_cast<double>(w->bytes());
  return b;
}

// The rows of matrices stacked into one row space (fused Q/K/V or gate/up)
// split between threads, so the stack costs one barrier instead of one per
// matrix: fn(i, base, lo, hi) for the rows [lo, hi) of part i that `thread`
// computes, base being the rows of the parts before it.
template <typename Fn>
void split_stacked_rows(std::span<const int64_t> part_rows, int thread, int n_threads, Fn fn) {
  int64_t total = 0;
  for (int64_t rows : part_rows) total += rows;
  const RowRange mine = gemv_thread_rows(total, thread, n_threads);
  int64_t base = 0;
  size_t i = 0;
  for (int64_t rows : part_rows) {
    const int64_t lo = std::max(mine.begin, base);
    const int64_t hi = std::min(mine.end, base + rows);
    if (lo < hi) fn(i, base, lo - base, hi - base);
    base += rows;
    ++i;
  }
}

// At most Q, K and V are stacked.
constexpr size_t kMaxStacked = 3;

// One matrix of a fused GEMV for one token.
struct GemvPart {
  const MatrixView& w;
  const GemvActivation& act;
  float* y;
};

void gemv_parts(std::initializer_list<GemvPart> parts, int thread, int n_threads) {
  const GemvPart* part = parts.begin();
  int64_t rows[kMaxStacked];
  for (size_t i = 0; i < parts.size(); ++i) rows[i] = part[i].w.rows;
  split_stacked_rows(std::span(rows, parts.size()), thread, n_threads,
                     [&](size_t i, int64_t, int64_t lo, int64_t hi) { gemv_rows(part[i].w, part[i].act, part[i].y, lo, hi); });
}

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

GemmPrecision float_gemm_precision(const ModelWeights& weights) {
  size_t widened = 0;
  auto add = [&](const MatrixView& w) {
    if (weight_format(w.type).gemm == GemmPrecision::BF16)
      widened += gemm_weight_bytes(static_cast<size_t>(w.rows), static_cast<size_t>(w.cols), GemmPrecision::F32);
  };
  for (const LayerWeights& l : weights.layers)
    for (const MatrixView* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) add(*w);
  add(weights.output);
  return memory_fits(2 * widened) ? GemmPrecision::F32 : GemmPrecision::BF16;
}

FastForward::FastForward(const Model& model)
    : model_(model),
      narrow_floats_(float_gemm_precision(model.weights()) == GemmPrecision::BF16),
      lm_head_(packed_gemm(std::span(&model.weights().output, 1))),
      output_gemv_(model.weights().output) {
  pack_weights();
}

OnednnGemm FastForward::packed_gemm(std::span<const MatrixView> stacked) const {
  return OnednnGemm(stacked, gemm_precision(stacked, narrow_floats_));
}

void FastForward::pack_weights() {
  const ModelWeights& w = model_.weights();
  gemms_.reserve(w.layers.size());
  gemvs_.reserve(w.layers.size());
  for (const LayerWeights& l : w.layers) {
    const MatrixView qkv[] = {l.wq, l.wk, l.wv};
    const MatrixView gate_up[] = {l.w_gate, l.w_up};
    gemms_.push_back(LayerGemms{packed_gemm(qkv), packed_gemm(std::span(&l.wo, 1)), packed_gemm(gate_up),
                                packed_gemm(std::span(&l.w_down, 1))});
    gemvs_.push_back(LayerGemvs{GemvMatrix(l.wq), GemvMatrix(l.wk), GemvMatrix(l.wv), GemvMatrix(l.wo),
                                GemvMatrix(l.w_gate), GemvMatrix(l.w_up), GemvMatrix(l.w_down)});
  }
}

std::span<const float> FastForward::run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool all_logits,
                                        OpProfile* profile) {
  const std::vector<TokenSlot> slots = reserve_positions(cache, chunks, model_.config().vocab);
  {
    ScopedOp op(profile, Op::Embedding, -1, 0,
                static_cast<double>(slots.size() * model_.weights().token_embedding.row_stride()));
    embed(chunks);
  }
  partials_.resize(static_cast<size_t>(omp_get_max_threads()));
  const ModelConfig& c = model_.config();
  rotations_.resize(slots.size() * c.rope_dim);
  for (size_t t = 0; t < slots.size(); ++t)
    ref::rope_rotation(static_cast<int64_t>(slots[t].pos), c.rope_dim, c.rope_theta, &rotations_[t * c.rope_dim]);
  if (slots.size() == 1)
    run_single(cache, slots[0], profile);
  else
    run_batched(cache, slots, profile);
  // Each chunk's last token, or every token.
  std::vector<size_t> rows;
  for (size_t i = 0, end = 0; i < chunks.size(); ++i) {
    const size_t begin = end;
    end += chunks[i].tokens.size();
    for (size_t r = all_logits ? begin : end - 1; r < end; ++r) rows.push_back(r);
  }
  logits_for_rows(rows, profile);
  return logits_;
}

void FastForward::embed(std::span<const SequenceChunk> chunks) {
  const size_t dim = model_.config().dim;
  size_t n = 0;
  for (const SequenceChunk& c : chunks) n += c.tokens.size();
  x_.resize(n * dim);
  size_t t = 0;
  for (const SequenceChunk& c : chunks)
    for (int32_t id : c.tokens) ref::embedding_row(model_.weights().token_embedding, id, &x_[t++ * dim]);
}

void FastForward::logits_for_rows(std::span<const size_t> rows, OpProfile* profile) {
  const ModelConfig& c = model_.config();
  const ModelWeights& w = model_.weights();
  xb_.resize(std::max(xb_.size(), rows.size() * c.dim));
  {
    ScopedOp op(profile, Op::OutputNorm, -1);
    for (size_t i = 0; i < rows.size(); ++i)
      rmsnorm(&xb_[i * c.dim], &x_[rows[i] * c.dim], w.output_norm.data(), c.dim, c.rms_eps);
  }
  logits_.resize(rows.size() * c.vocab);
  ScopedOp op(profile, Op::LmHead, -1, gemm_flops(c.vocab, c.dim, rows.size()), weight_bytes({&w.output}));
  // One row streams the weights once through the GEMV; several rows (a
  // batch) share one read of them.
  if (rows.size() == 1)
    gemv(output_gemv_.view(), xb_.data(), logits_.data());
  else
    project(lm_head_, {&output_gemv_.view()}, xb_.data(), rows.size(), logits_.data());
}

void FastForward::project(OnednnGemm& gemm, std::initializer_list<const MatrixView*> parts, const float* in,
                          size_t n, float* out) {
  // One activation per token serves every part, so the parts must share a type.
  bool batch_gemv = n <= kGemvMaxBatch;
  for (const MatrixView* w : parts) batch_gemv = batch_gemv && gemv_batches(*w) && w->type == parts.begin()[0]->type;
  if (!batch_gemv) return gemm.run(in, out, n);
  const MatrixView* const* part = parts.begin();
  int64_t rows[kMaxStacked];
  int64_t width = 0;  // of a row of out
  for (size_t i = 0; i < parts.size(); ++i) width += rows[i] = part[i]->rows;
  const TensorType type = part[0]->type;
  const auto cols = static_cast<size_t>(part[0]->cols);
  const std::span<const GemvActivation> acts(batch_acts_.data(), n);
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (size_t t = 0; t < n; ++t) gemv_prepare(type, in + t * cols, cols, batch_acts_[t]);
    split_stacked_rows(std::span(rows, parts.size()), omp_get_thread_num(), omp_get_num_threads(),
                       [&](size_t i, int64_t base, int64_t lo, int64_t hi) {
                         gemm_rows(*part[i], acts, out + base, static_cast<size_t>(width), lo, hi);
                       });
  }
}

void FastForward::run_batched(PagedKvCache& cache, std::span<const TokenSlot> slots, OpProfile* profile) {
  const ModelConfig& c = model_.config();
  const ModelWeights& w = model_.weights();
  const size_t n = slots.size();
  const size_t qkv_width = c.q_dim() + 2 * c.kv_dim();
  const auto rows = static_cast<int64_t>(n);
  xb_.resize(n * std::max(c.dim, c.q_dim()));
  qkv_.resize(n * qkv_width);
  attn_.resize(n * c.q_dim());
  out_.resize(n * c.dim);
  gate_up_.resize(n * 2 * c.ffn_dim);
  const ref::AttentionShape shape{c.n_heads, c.n_kv_heads, c.head_dim};
  double ctx_sum = 0;  // sum of n_ctx over tokens, for the attention's FLOPs and bytes
  for (const TokenSlot& s : slots) ctx_sum += static_cast<double>(s.pos + 1);
  const std::vector<QueryChunk> queries = query_chunks(slots, qkv_.data(), qkv_width, attn_.data(), c.q_dim());

  for (size_t layer = 0; layer < c.n_layers; ++layer) {
    const LayerWeights& l = w.layers[layer];
    LayerGemms& g = gemms_[layer];
    const LayerGemvs& gv = gemvs_[layer];
    const int li = static_cast<int>(layer);
    {
      ScopedOp op(profile, Op::AttentionNorm, li);
#pragma omp parallel for schedule(static)
      for (int64_t t = 0; t < rows; ++t)
        rmsnorm(&xb_[static_cast<size_t>(t) * c.dim], &x_[static_cast<size_t>(t) * c.dim], l.attn_norm.data(),
                c.dim, c.rms_eps);
    }
    {
      ScopedOp op(profile, Op::QkvProjection, li, gemm_flops(qkv_width, c.dim, n), weight_bytes({&l.wq, &l.wk, &l.wv}));
      project(g.qkv, {&gv.wq.view(), &gv.wk.view(), &gv.wv.view()}, xb_.data(), n, qkv_.data());
    }
    {
      ScopedOp op(profile, Op::Rope, li);
#pragma omp parallel for schedule(static)
      for (int64_t t = 0; t < rows; ++t) {
        const auto ut = static_cast<size_t>(t);
        float* q = &qkv_[ut * qkv_width];
        float* k = q + c.q_dim();
        float* v = k + c.kv_dim();
        if (c.qkv_bias) {
          ref::add(q, l.bq.data(), c.q_dim());
          ref::add(k, l.bk.data(), c.kv_dim());
          ref::add(v, l.bv.data(), c.kv_dim());
        }
        const float* rotation = &rotations_[ut * c.rope_dim];
        ref::rope_rotate(q, c.n_heads, c.head_dim, c.rope_dim, rotation, c.rope_style);
        ref::rope_rotate(k, c.n_kv_heads, c.head_dim, c.rope_dim, rotation, c.rope_style);
        cache.write(slots[ut].seq, layer, slots[ut].pos, k, v);
      }
    }
    {
      ScopedOp op(profile, Op::Attention, li, 4.0 * static_cast<double>(c.q_dim()) * ctx_sum,
                  static_cast<double>(cache.pool().bytes_per_token_per_layer()) * ctx_sum);
      paged_attention_prefill(queries, qkv_width, c.q_dim(), cache, layer, shape);
    }
    {
      ScopedOp op(profile, Op::OutputProjection, li, gemm_flops(c.dim, c.q_dim(), n), weight_bytes({&l.wo}));
      project(g.wo, {&gv.wo.view()}, attn_.data(), n, out_.data());
      add(x_.data(), out_.data(), n * c.dim);
    }
    {
      ScopedOp op(profile, Op::FfnNorm, li);
#pragma omp parallel for schedule(static)
      for (int64_t t = 0; t < rows; ++t)
        rmsnorm(&xb_[static_cast<size_t>(t) * c.dim], &x_[static_cast<size_t>(t) * c.dim], l.ffn_norm.data(),
                c.dim, c.rms_eps);
    }
    {
      ScopedOp op(profile, Op::FfnGateUp, li, gemm_flops(2 * c.ffn_dim, c.dim, n), weight_bytes({&l.w_gate, &l.w_up}));
      project(g.gate_up, {&gv.w_gate.view(), &gv.w_up.view()}, xb_.data(), n, gate_up_.data());
      // SwiGLU in place: row t becomes silu(gate) * up in its first ffn_dim.
#pragma omp parallel for schedule(static)
      for (int64_t t = 0; t < rows; ++t) {
        float* row = &gate_up_[static_cast<size_t>(t) * 2 * c.ffn_dim];
        swiglu(row, row + c.ffn_dim, c.ffn_dim);
      }
    }
    {
      ScopedOp op(profile, Op::FfnDown, li, gemm_flops(c.dim, c.ffn_dim, n), weight_bytes({&l.w_down}));
      // Compact the SwiGLU outputs to [n][ffn_dim] for the down GEMM; row t
      // moves to a lower offset that no later row still needs.
      for (size_t t = 1; t < n; ++t)
        std::copy_n(&gate_up_[t * 2 * c.ffn_dim], c.ffn_dim, &gate_up_[t * c.ffn_dim]);
      project(g.down, {&gv.w_down.view()}, gate_up_.data(), n, out_.data());
      add(x_.data(), out_.data(), n * c.dim);
    }
  }
}

void FastForward::run_single(PagedKvCache& cache, TokenSlot slot, OpProfile* profile) {
  const ModelConfig& c = model_.config();
  const ModelWeights& w = model_.weights();
  const size_t n_ctx = slot.pos + 1;
  const ref::AttentionShape shape{c.n_heads, c.n_kv_heads, c.head_dim};
  xb_.resize(std::max(c.dim, c.q_dim()));
  qkv_.resize(c.q_dim() + 2 * c.kv_dim());
  attn_.resize(c.q_dim());
  out_.resize(c.dim);
  gate_up_.resize(2 * c.ffn_dim);
  logits_.resize(c.vocab);
  float* q = qkv_.data();
  float* k = q + c.q_dim();
  float* v = k + c.kv_dim();
  float* gate = gate_up_.data();
  float* up = gate + c.ffn_dim;
  PhaseClock clock(profile);

#pragma omp parallel
  {
    const int tid = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    // Attention splits the context's positions across threads; each thread
    // keeps a partial softmax state that one thread merges.
    const RowRange positions = gemv_thread_rows(static_cast<int64_t>(n_ctx), tid, nt);
    AttentionPartial& part = partials_[static_cast<size_t>(tid)];
    for (size_t layer = 0; layer < c.n_layers; ++layer) {
      const LayerWeights& l = w.layers[layer];
      const LayerGemvs& g = gemvs_[layer];
      const int li = static_cast<int>(layer);
#pragma omp single
      {
        rmsnorm(xb_.data(), x_.data(), l.attn_norm.data(), c.dim, c.rms_eps);
        // One input, so one preparation serves every matrix of its type.
        gemv_prepare(l.wq.type, xb_.data(), c.dim, act_q_);
        if (l.wk.type != l.wq.type) gemv_prepare(l.wk.type, xb_.data(), c.dim, act_k_);
        if (l.wv.type != l.wq.type) gemv_prepare(l.wv.type, xb_.data(), c.dim, act_v_);
      }
      clock.mark(Op::AttentionNorm, li);
      gemv_parts({{g.wq.view(), act_q_, q},
                  {g.wk.view(), l.wk.type == l.wq.type ? act_q_ : act_k_, k},
                  {g.wv.view(), l.wv.type == l.wq.type ? act_q_ : act_v_, v}},
                 tid, nt);
#pragma omp barrier
      clock.mark(Op::QkvProjection, li, gemm_flops(c.q_dim() + 2 * c.kv_dim(), c.dim, 1), weight_bytes({&l.wq, &l.wk, &l.wv}));
#pragma omp single
      {
        if (c.qkv_bias) {
          ref::add(q, l.bq.data(), c.q_dim());
          ref::add(k, l.bk.data(), c.kv_dim());
          ref::add(v, l.bv.data(), c.kv_dim());
        }
        ref::rope_rotate(q, c.n_heads, c.head_dim, c.rope_dim, rotations_.data(), c.rope_style);
        ref::rope_rotate(k, c.n_kv_heads, c.head_dim, c.rope_dim, rotations_.data(), c.rope_style);
        cache.write(slot.seq, layer, slot.pos, k, v);
      }
      clock.mark(Op::Rope, li);
      attention_partial(q, cache, slot.seq, layer, static_cast<size_t>(positions.begin),
                        static_cast<size_t>(positions.end), shape, part);
#pragma omp barrier
#pragma omp single
      {
        merge_attention(std::span(partials_.data(), static_cast<size_t>(nt)), shape, attn_.data());
        gemv_prepare(l.wo.type, attn_.data(), c.q_dim(), act_o_);
      }
      clock.mark(Op::Attention, li, 4.0 * static_cast<double>(c.q_dim() * n_ctx),
                 static_cast<double>(cache.pool().bytes_per_token_per_layer() * n_ctx));
      gemv_parts({{g.wo.view(), act_o_, out_.data()}}, tid, nt);
#pragma omp barrier
#pragma omp single
      add(x_.data(), out_.data(), c.dim);
      clock.mark(Op::OutputProjection, li, gemm_flops(c.dim, c.q_dim(), 1), weight_bytes({&l.wo}));
#pragma omp single
      {
        rmsnorm(xb_.data(), x_.data(), l.ffn_norm.data(), c.dim, c.rms_eps);
        gemv_prepare(l.w_gate.type, xb_.data(), c.dim, act_gate_);
        if (l.w_up.type != l.w_gate.type) gemv_prepare(l.w_up.type, xb_.data(), c.dim, act_up_);
      }
      clock.mark(Op::FfnNorm, li);
      gemv_parts({{g.w_gate.view(), act_gate_, gate},
                  {g.w_up.view(), l.w_up.type == l.w_gate.type ? act_gate_ : act_up_, up}},
                 tid, nt);
#pragma omp barrier
#pragma omp single
      {
        swiglu(gate, up, c.ffn_dim);
        gemv_prepare(l.w_down.type, gate, c.ffn_dim, act_down_);
      }
      clock.mark(Op::FfnGateUp, li, gemm_flops(2 * c.ffn_dim, c.dim, 1), weight_bytes({&l.w_gate, &l.w_up}));
      gemv_parts({{g.w_down.view(), act_down_, out_.data()}}, tid, nt);
#pragma omp barrier
#pragma omp single
      add(x_.data(), out_.data(), c.dim);
      clock.mark(Op::FfnDown, li, gemm_flops(c.dim, c.ffn_dim, 1), weight_bytes({&l.w_down}));
    }
  }
}

}  // namespace pdbench
