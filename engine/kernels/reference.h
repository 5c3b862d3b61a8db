#pragma once
// Reference kernels: plain f32 loops in the order llama2.c's run.c computes
// them, so the reference forward pass reproduces run.c bit for bit on f32
// weights. Every optimized kernel is tested against the function here.
#include <cstddef>
#include <cstdint>

#include "engine/kernels/matrix_view.h"

namespace pdbench::ref {

// out = x / rms(x) * weight, rms with eps added to the mean square.
void rmsnorm(float* out, const float* x, const float* weight, size_t n, float eps);

// rmsnorm in place of each of n_heads vectors of head_dim, one weight for all.
void rmsnorm_heads(float* x, size_t n_heads, size_t head_dim, const float* weight, float eps);

// y[t][r] = sum_c w[r][c] * x[t][c] for n_tokens rows of x (each w.cols
// long) into n_tokens rows of y (each w.rows long). Each weight row is
// converted to f32 once and used for every token.
void matmul(const MatrixView& w, const float* x, float* y, size_t n_tokens);

// Converts row `id` of an embedding table to f32.
void embedding_row(const MatrixView& table, int32_t id, float* out);

enum class RopeStyle {
  AdjacentPairs,  // rotate (x0,x1), (x2,x3), ...: llama2.c, GGUF llama
  Neox,           // rotate (x_i, x_{i+d/2}): GGUF qwen2
};

// A rotation's frequencies: pair i of rope_dim turns by pos theta^(-2i/rope_dim)
// times position_scale (linear RoPE scaling: llama.cpp's freq_scale, 1 /
// rope.scaling.factor), divided by divisors[i] where given (Llama 3's
// rope_freqs.weight, applied as ggml's rope does with freq_factors).
struct RopeFrequencies {
  float theta = 10000.0f;
  float position_scale = 1.0f;
  const float* divisors = nullptr;
};

// Rotates the first rope_dim elements of each of n_heads vectors (head_dim
// apart) by position pos: rope_rotation, then rope_rotate.
void rope(float* x, size_t n_heads, size_t head_dim, size_t rope_dim, int64_t pos, const RopeFrequencies& freqs,
          RopeStyle style);

// The rotation at position pos: cos_sin[2i] and cos_sin[2i + 1] are the cos
// and sin of pair i's angle, i < rope_dim / 2. It depends on the position
// only, so a forward pass can make it once per token for every layer's
// queries and keys.
void rope_rotation(int64_t pos, size_t rope_dim, const RopeFrequencies& freqs, float* cos_sin);
void rope_rotate(float* x, size_t n_heads, size_t head_dim, size_t rope_dim, const float* cos_sin,
                 RopeStyle style);

// In-place softmax over n values.
void softmax(float* x, size_t n);

// gate[i] = silu(gate[i]) * up[i]
void swiglu(float* gate, const float* up, size_t n);

// GELU's tanh approximation in f32, as ggml_gelu_f32 computes it:
// 0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2))).
float gelu_tanh(float x);

// GELU as ggml's CPU backend runs it (GGML_GELU_FP16): 0 at x <= -10, x at
// x >= 10, and between them gelu_tanh of x rounded to f16, rounded to f16
// (its table of every f16 input). The roundings move a value by up to
// 2^-11 of it: with gelu_tanh in f32 instead, the reference pass missed
// llama.cpp's tiny-gemma3 logits by 1.0e-5 of the largest, twice the
// fixture's bound, against 1.7e-6 with them.
float gelu(float x);

// gate[i] = gelu(gate[i]) * up[i] (Gemma's GeGLU)
void geglu(float* gate, const float* up, size_t n);

// x[i] = cap tanh(x[i] / cap), with ggml's operations: x times 1 / cap,
// tanh, times cap (Gemma's logit softcapping).
void softcap(float* x, size_t n, float cap);

// a[i] += b[i]
void add(float* a, const float* b, size_t n);

}  // namespace pdbench::ref
