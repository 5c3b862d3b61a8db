#include "engine/kernels/reference.h"

#include <cmath>
#include <vector>

#include "engine/kernels/dequantize.h"
#include "engine/util/half.h"

namespace pdbench::ref {

void rmsnorm(float* out, const float* x, const float* weight, size_t n, float eps) {
  float ss = 0.0f;
  for (size_t i = 0; i < n; ++i) ss += x[i] * x[i];
  ss /= static_cast<float>(n);
  ss += eps;
  ss = 1.0f / std::sqrt(ss);
  for (size_t i = 0; i < n; ++i) out[i] = weight[i] * (ss * x[i]);
}

void rmsnorm_heads(float* x, size_t n_heads, size_t head_dim, const float* weight, float eps) {
  for (size_t h = 0; h < n_heads; ++h) rmsnorm(x + h * head_dim, x + h * head_dim, weight, head_dim, eps);
}

void matmul(const MatrixView& w, const float* x, float* y, size_t n_tokens) {
  const auto rows = static_cast<size_t>(w.rows);
  const auto cols = static_cast<size_t>(w.cols);
  // Rows are independent and each sum keeps its sequential order, so the
  // result does not depend on the thread count.
#pragma omp parallel
  {
    std::vector<float> row(cols);
#pragma omp for schedule(static)
    for (size_t r = 0; r < rows; ++r) {
      dequantize_row(w.type, w.row(static_cast<int64_t>(r)), row.data(), cols);
      for (size_t t = 0; t < n_tokens; ++t) {
        const float* xt = x + t * cols;
        float sum = 0.0f;
        for (size_t c = 0; c < cols; ++c) sum += row[c] * xt[c];
        y[t * rows + r] = sum;
      }
    }
  }
}

void embedding_row(const MatrixView& table, int32_t id, float* out) {
  dequantize_row(table.type, table.row(id), out, static_cast<size_t>(table.cols));
}

void rope(float* x, size_t n_heads, size_t head_dim, size_t rope_dim, int64_t pos, const RopeFrequencies& freqs,
          RopeStyle style) {
  thread_local std::vector<float> cos_sin;
  cos_sin.resize(rope_dim);
  rope_rotation(pos, rope_dim, freqs, cos_sin.data());
  rope_rotate(x, n_heads, head_dim, rope_dim, cos_sin.data(), style);
}

void rope_rotation(int64_t pos, size_t rope_dim, const RopeFrequencies& freqs, float* cos_sin) {
  // Same expression as run.c: freq = 1 / theta^(2i / rope_dim); ggml scales
  // the angle after the divisor.
  for (size_t i = 0; i < rope_dim / 2; ++i) {
    const float freq = 1.0f / std::pow(freqs.theta, static_cast<float>(2 * i) / static_cast<float>(rope_dim));
    float angle = static_cast<float>(pos) * freq;
    if (freqs.divisors != nullptr) angle /= freqs.divisors[i];
    if (freqs.position_scale != 1.0f) angle *= freqs.position_scale;
    cos_sin[2 * i] = std::cos(angle);
    cos_sin[2 * i + 1] = std::sin(angle);
  }
}

void rope_rotate(float* x, size_t n_heads, size_t head_dim, size_t rope_dim, const float* cos_sin,
                 RopeStyle style) {
  const size_t half = rope_dim / 2;
  for (size_t h = 0; h < n_heads; ++h) {
    float* v = x + h * head_dim;
    for (size_t i = 0; i < half; ++i) {
      const float c = cos_sin[2 * i];
      const float s = cos_sin[2 * i + 1];
      const size_t a = style == RopeStyle::AdjacentPairs ? 2 * i : i;
      const size_t b = style == RopeStyle::AdjacentPairs ? 2 * i + 1 : i + half;
      const float v0 = v[a];
      const float v1 = v[b];
      v[a] = v0 * c - v1 * s;
      v[b] = v0 * s + v1 * c;
    }
  }
}

void softmax(float* x, size_t n) {
  float max = x[0];
  for (size_t i = 1; i < n; ++i) max = std::max(max, x[i]);
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  for (size_t i = 0; i < n; ++i) x[i] /= sum;
}

void swiglu(float* gate, const float* up, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float g = gate[i];
    gate[i] = g * (1.0f / (1.0f + std::exp(-g))) * up[i];
  }
}

float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
  constexpr float kCoefA = 0.044715f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kCoefA * x * x)));
}

float gelu(float x) {
  if (x <= -10.0f) return 0.0f;
  if (x >= 10.0f) return x;
  return fp16_to_f32(f32_to_fp16(gelu_tanh(fp16_to_f32(f32_to_fp16(x)))));
}

void geglu(float* gate, const float* up, size_t n) {
  for (size_t i = 0; i < n; ++i) gate[i] = gelu(gate[i]) * up[i];
}

void softcap(float* x, size_t n, float cap) {
  const float inverse = 1.0f / cap;
  for (size_t i = 0; i < n; ++i) x[i] = std::tanh(x[i] * inverse) * cap;
}

void add(float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] += b[i];
}

}  // namespace pdbench::ref
