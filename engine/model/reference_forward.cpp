#include "engine/model/reference_forward.h"

#include <algorithm>
#include <string>

#include "engine/attention/paged_attention.h"
#include "engine/kernels/reference.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

double matmul_flops(const MatrixView& w, size_t n) { return 2.0 * static_cast<double>(w.rows * w.cols) * static_cast<double>(n); }
double matmul_bytes(const MatrixView& w, size_t n) {
  return static_cast<double>(w.bytes()) + 4.0 * static_cast<double>((w.rows + w.cols)) * static_cast<double>(n);
}

void add_bias(float* y, std::span<const float> bias, size_t n) {
  if (bias.empty()) return;
  for (size_t t = 0; t < n; ++t) ref::add(y + t * bias.size(), bias.data(), bias.size());
}

// RMSNorm in place of each of n rows of `weight`'s width (Gemma's post
// norms); nothing when the model has none.
void post_norm(float* rows, std::span<const float> weight, size_t n, float eps) {
  for (size_t t = 0; t < n && !weight.empty(); ++t)
    ref::rmsnorm(rows + t * weight.size(), rows + t * weight.size(), weight.data(), weight.size(), eps);
}

}  // namespace

void ReferenceForward::resize(size_t n) {
  const ModelConfig& c = model_.config();
  x_.resize(n * c.dim);
  xb_.resize(n * std::max(c.dim, c.q_dim()));
  q_.resize(n * c.q_dim());
  k_.resize(n * c.kv_dim());
  v_.resize(n * c.kv_dim());
  out_.resize(n * c.dim);
  gate_.resize(n * c.ffn_dim);
  up_.resize(n * c.ffn_dim);
}

std::span<const float> ReferenceForward::run(PagedKvCache& cache, std::span<const SequenceChunk> chunks,
                                             bool all_logits, OpProfile* profile) {
  const ModelConfig& c = model_.config();
  const ModelWeights& w = model_.weights();
  const std::vector<TokenSlot> slots = reserve_positions(cache, chunks, c.vocab);
  const size_t n = slots.size();
  resize(n);

  {  // Token embedding lookup.
    ScopedOp op(profile, Op::Embedding, -1, 0, static_cast<double>(n * w.token_embedding.row_stride()));
    size_t t = 0;
    for (const SequenceChunk& chunk : chunks)
      for (int32_t id : chunk.tokens) ref::embedding_row(w.token_embedding, id, &x_[t++ * c.dim]);
    if (c.scaled_embedding) scale_embeddings(std::span(x_.data(), n * c.dim), c.dim);
  }

  for (size_t layer = 0; layer < c.n_layers; ++layer) {
    attention_block(w.layers[layer], layer, cache, slots, profile);
    ffn_block(w.layers[layer], layer, n, profile);
  }

  // Final norm and LM head: each chunk's last token, or every token.
  std::vector<size_t> rows;
  for (size_t t = 0, end = 0; t < chunks.size(); ++t) {
    const size_t begin = end;
    end += chunks[t].tokens.size();
    for (size_t r = all_logits ? begin : end - 1; r < end; ++r) rows.push_back(r);
  }
  {
    ScopedOp op(profile, Op::OutputNorm, -1);
    for (size_t i = 0; i < rows.size(); ++i)
      ref::rmsnorm(&xb_[i * c.dim], &x_[rows[i] * c.dim], w.output_norm.data(), c.dim, c.rms_eps);
  }
  logits_.resize(rows.size() * c.vocab);
  {
    ScopedOp op(profile, Op::LmHead, -1, matmul_flops(w.output, rows.size()), matmul_bytes(w.output, rows.size()));
    ref::matmul(w.output, xb_.data(), logits_.data(), rows.size());
    if (c.final_softcap != 0) ref::softcap(logits_.data(), logits_.size(), c.final_softcap);
  }
  return logits_;
}

void ReferenceForward::attention_block(const LayerWeights& w, size_t layer, PagedKvCache& cache,
                                       std::span<const TokenSlot> slots, OpProfile* profile) {
  const ModelConfig& c = model_.config();
  const std::span<const float> rope_freqs = model_.weights().rope_freqs;
  const size_t n = slots.size();
  const int li = static_cast<int>(layer);
  {
    ScopedOp op(profile, Op::AttentionNorm, li);
    for (size_t t = 0; t < n; ++t)
      ref::rmsnorm(&xb_[t * c.dim], &x_[t * c.dim], w.attn_norm.data(), c.dim, c.rms_eps);
  }
  {
    ScopedOp op(profile, Op::QkvProjection, li,
                matmul_flops(w.wq, n) + matmul_flops(w.wk, n) + matmul_flops(w.wv, n),
                matmul_bytes(w.wq, n) + matmul_bytes(w.wk, n) + matmul_bytes(w.wv, n));
    ref::matmul(w.wq, xb_.data(), q_.data(), n);
    ref::matmul(w.wk, xb_.data(), k_.data(), n);
    ref::matmul(w.wv, xb_.data(), v_.data(), n);
    add_bias(q_.data(), w.bq, n);
    add_bias(k_.data(), w.bk, n);
    add_bias(v_.data(), w.bv, n);
  }
  {  // QK norm (qwen3, gemma3), then RoPE, then Gemma 27B's query scale.
    ScopedOp op(profile, Op::Rope, li);
    ref::RopeFrequencies freqs = c.layer_rope(layer);
    freqs.divisors = rope_freqs.empty() ? nullptr : rope_freqs.data();
    for (size_t t = 0; t < n; ++t) {
      if (c.qk_norm) {
        ref::rmsnorm_heads(&q_[t * c.q_dim()], c.n_heads, c.head_dim, w.q_norm.data(), c.rms_eps);
        ref::rmsnorm_heads(&k_[t * c.kv_dim()], c.n_kv_heads, c.head_dim, w.k_norm.data(), c.rms_eps);
      }
      const auto pos = static_cast<int64_t>(slots[t].pos);
      ref::rope(&q_[t * c.q_dim()], c.n_heads, c.head_dim, c.rope_dim, pos, freqs, c.rope_style);
      ref::rope(&k_[t * c.kv_dim()], c.n_kv_heads, c.head_dim, c.rope_dim, pos, freqs, c.rope_style);
    }
    for (size_t t = 0; t < n && c.attention_scale != 0; ++t) scale_queries(&q_[t * c.q_dim()], c);
  }
  // Store every token's K/V, then attend causally: a token sees its own
  // sequence's positions up to and including its own (in a sliding layer,
  // the window's last ones).
  for (size_t t = 0; t < n; ++t) cache.write(slots[t].seq, layer, slots[t].pos, &k_[t * c.kv_dim()], &v_[t * c.kv_dim()]);
  {
    const double ctx_sum = attended_positions(slots, c.layer_window(layer));
    ScopedOp op(profile, Op::Attention, li, 4.0 * static_cast<double>(c.q_dim()) * ctx_sum,
                static_cast<double>(cache.pool().bytes_per_token_per_layer()) * ctx_sum);
    const ref::AttentionShape shape = c.attention_shape(layer);
    for (size_t t = 0; t < n; ++t) {
      scores_.resize(std::max(scores_.size(), slots[t].pos + 1));
      ref::paged_attention(&q_[t * c.q_dim()], cache, slots[t].seq, layer, slots[t].pos + 1, shape, scores_.data(),
                           &xb_[t * c.q_dim()]);
    }
  }
  {
    ScopedOp op(profile, Op::OutputProjection, li, matmul_flops(w.wo, n), matmul_bytes(w.wo, n));
    ref::matmul(w.wo, xb_.data(), out_.data(), n);
    post_norm(out_.data(), w.attn_post_norm, n, c.rms_eps);
    ref::add(x_.data(), out_.data(), n * c.dim);
  }
}

void ReferenceForward::ffn_block(const LayerWeights& w, size_t layer, size_t n, OpProfile* profile) {
  const ModelConfig& c = model_.config();
  const int li = static_cast<int>(layer);
  {
    ScopedOp op(profile, Op::FfnNorm, li);
    for (size_t t = 0; t < n; ++t)
      ref::rmsnorm(&xb_[t * c.dim], &x_[t * c.dim], w.ffn_norm.data(), c.dim, c.rms_eps);
  }
  {
    ScopedOp op(profile, Op::FfnGateUp, li, matmul_flops(w.w_gate, n) + matmul_flops(w.w_up, n),
                matmul_bytes(w.w_gate, n) + matmul_bytes(w.w_up, n));
    ref::matmul(w.w_gate, xb_.data(), gate_.data(), n);
    ref::matmul(w.w_up, xb_.data(), up_.data(), n);
    if (c.ffn_activation == FfnActivation::GeGlu)
      ref::geglu(gate_.data(), up_.data(), n * c.ffn_dim);
    else
      ref::swiglu(gate_.data(), up_.data(), n * c.ffn_dim);
  }
  {
    ScopedOp op(profile, Op::FfnDown, li, matmul_flops(w.w_down, n), matmul_bytes(w.w_down, n));
    ref::matmul(w.w_down, gate_.data(), out_.data(), n);
    post_norm(out_.data(), w.ffn_post_norm, n, c.rms_eps);
    ref::add(x_.data(), out_.data(), n * c.dim);
  }
}

}  // namespace pdbench
