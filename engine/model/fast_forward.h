#pragma once
// The optimized forward pass. Prefill runs each layer's projections as
// oneDNN GEMMs over all prompt tokens (Q/K/V fused into one, gate/up into
// one); decode runs the SIMD GEMV kernels inside ONE OpenMP parallel region
// per token, threads splitting every matrix's rows between barriers, so a
// step pays one thread wake-up instead of one per op.
#include <memory>
#include <vector>

#include "engine/attention/decode_attention.h"
#include "engine/kernels/gemv.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/onednn_gemm.h"
#include "engine/model/forward.h"

namespace pdbench {

// Prefill GEMM precision for the model's F16/BF16 matrices: F32, exact and
// 1.8x faster here (onednn_gemm.h), when the widened copies (twice the
// file's size) leave as much memory again for the KV cache, activations
// and the file's pages; BF16 otherwise.
GemmPrecision float_gemm_precision(const ModelWeights& weights);

class FastForward : public Forward {
 public:
  explicit FastForward(const Model& model);  // packs the GEMM and GEMV weights
  std::span<const float> run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool all_logits,
                             OpProfile* profile) override;

 private:
  struct LayerGemms {
    OnednnGemm qkv;     // rows: q_dim + 2 kv_dim
    OnednnGemm wo;
    OnednnGemm gate_up;  // rows: 2 ffn_dim
    OnednnGemm down;
  };

  // Decode weights in the layout the GEMV kernels read (a copy only where
  // that differs from the file's: Q8_0/Q4_0 on AVX-512).
  struct LayerGemvs {
    GemvMatrix wq, wk, wv, wo, w_gate, w_up, w_down;
  };

  // Every token in flight through GEMMs (prompts, or a batch of decodes).
  void run_batched(PagedKvCache& cache, std::span<const TokenSlot> slots, OpProfile* profile);
  // One token of one sequence through GEMVs in a single parallel region.
  void run_single(PagedKvCache& cache, TokenSlot slot, OpProfile* profile);
  // out[n][rows] = in[n][cols] through the matrices stacked in `gemm`, whose
  // GEMV copies are `parts`: the batch GEMV when it reads every part's
  // weights once for all n tokens (few tokens, Q8_0/Q4_0 on AVX-512; it
  // streams Q8_0 at 19-21 GB/s, where oneDNN's s8 GEMM at 8 rows reaches
  // 12-15 GB/s here), else the GEMM.
  void project(OnednnGemm& gemm, std::initializer_list<const MatrixView*> parts, const float* in, size_t n,
               float* out);
  void embed(std::span<const SequenceChunk> chunks);
  void logits_for_rows(std::span<const size_t> rows, OpProfile* profile);
  void pack_weights();
  OnednnGemm packed_gemm(std::span<const MatrixView> stacked) const;

  const Model& model_;
  const bool narrow_floats_;       // F16/BF16 prefill GEMMs in bf16 (float_gemm_precision)
  std::vector<LayerGemms> gemms_;  // packed at construction: load time, not TTFT
  OnednnGemm lm_head_;             // logits of several rows at once (batched decode)
  std::vector<LayerGemvs> gemvs_;
  GemvMatrix output_gemv_;         // logits of one row
  // Activations, one row per token in flight.
  std::vector<float> x_, xb_, qkv_, attn_, out_, gate_up_, logits_;
  std::vector<float> rotations_;  // each token's RoPE rotation (ref::rope_rotation), for every layer
  std::vector<AttentionPartial> partials_;  // one per thread
  // Decode: x prepared for the GEMV kernels once per input and weight type
  // (act_k_, act_v_, act_up_ only when a matrix's type differs from its group's first).
  GemvActivation act_q_, act_k_, act_v_, act_o_, act_gate_, act_up_, act_down_;
  std::vector<GemvActivation> batch_acts_ = std::vector<GemvActivation>(kGemvMaxBatch);  // project()'s tokens
};

}  // namespace pdbench
