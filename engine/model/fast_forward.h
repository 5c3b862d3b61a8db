#pragma once
// The optimized forward pass: one layer loop over the tokens in flight (a
// decode token, a batch of them, or prompts), each matrix product chosen
// per call by the size of that batch and the matrix's format:
//   - Q8_0, Q4_0 to Q5_1 and Q2_K to Q6_K run their own integer dot products
//     for any number of tokens (gemm_rows: the weights' block scales kept,
//     activations quantized per block of 32, as llama.cpp does), from the
//     copy the GEMV kernels read (GemvMatrix), read once per call;
//   - float formats (F32, F16, BF16), and the quantized ones without
//     integer kernels, run the GEMV on the file's rows for one token and a
//     oneDNN GEMM on a packed copy for more.
// So each matrix is held once beside the file's pages: regrouped for the
// integer formats on AVX-512 (none elsewhere), packed for oneDNN for the
// rest. A
// single token runs the whole pass in one OpenMP parallel region
// (thread_team.h).
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "engine/attention/decode_attention.h"
#include "engine/kernels/gemv.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/onednn_gemm.h"
#include "engine/model/forward.h"
#include "engine/model/stacked_rows.h"
#include "engine/model/thread_team.h"

namespace pdbench {

// Which of the model's 16-bit float matrices prefill in bf16 (onednn_gemm.h):
// all of them when their f32 copies (twice the file's size) would not leave
// as much memory again for the KV cache, activations and the file's pages;
// else BF16 ones where this CPU's bf16 GEMM is the faster
// (float_gemm_choice()), F16 ones never, since bf16 would round their weights.
NarrowFloats narrow_floats(const ModelWeights& weights);

// The compute type of the fast pass's prefill matrix products on this
// model, as the pass picks it for the layers' Q/K/V: Int8 when they are
// quantized (gemm_rows), else F32 or BF16 (narrow_floats). What results
// files record.
GemmPrecision prefill_precision(const Model& model);

// Matrices of one column count stacked into one row space (Q/K/V fused,
// gate/up fused, or one alone): their GEMV copies, and the oneDNN GEMM
// that runs many tokens of float formats.
struct Projection {
  std::vector<GemvMatrix> parts;
  std::optional<OnednnGemm> gemm;  // only when every part is a float format
  size_t rows = 0;                 // of all parts
  size_t cols = 0;
  double weight_bytes = 0;  // as stored, read once per call
};

class FastForward : public Forward {
 public:
  explicit FastForward(const Model& model);  // packs the GEMM and GEMV weights
  std::span<const float> run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool all_logits,
                             OpProfile* profile) override;

 private:
  struct LayerProjections {
    Projection qkv;      // rows: q_dim + 2 kv_dim
    Projection wo;
    Projection gate_up;  // rows: 2 ffn_dim
    Projection down;
  };
  class Pass;  // one call's tokens, threads and clock (fast_forward.cpp)

  Projection projection(std::initializer_list<const MatrixView*> stacked) const;
  void embed(std::span<const SequenceChunk> chunks);
  void size_activations(size_t tokens, size_t logit_rows);

  const Model& model_;
  const NarrowFloats narrow_floats_;  // 16-bit float prefill GEMMs in bf16 (narrow_floats)
  std::vector<LayerProjections> layers_;  // packed at construction: load time, not TTFT
  Projection lm_head_;
  // Activations, one row per token in flight.
  std::vector<float> x_, xb_, qkv_, attn_, out_, gate_up_, logits_;
  // Each token's RoPE rotation (ref::rope_rotation) for every global layer
  // and, when the model has them, every sliding layer.
  std::array<std::vector<float>, 2> rotations_;
  std::vector<AttentionPartial> partials_;  // one per thread
  // Each token's input to the current projection, prepared for its kernels:
  // one set per distinct weight type among the stacked parts.
  static constexpr size_t kMaxStacked = 3;
  std::array<std::vector<GemvActivation>, kMaxStacked> acts_;
  // Each set's tiles packed once for all of a projection's pieces (gemm_pack_tiles).
  std::array<AlignedVector<std::byte>, kMaxStacked> packed_;
  // Who takes which piece of the current projection's rows.
  std::optional<PieceDealer> pieces_;
};

}  // namespace pdbench
