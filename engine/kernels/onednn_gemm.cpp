#include "engine/kernels/onednn_gemm.h"

#include <dnnl.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "engine/kernels/dequantize.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"
#include "engine/util/half.h"

namespace pdbench {

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Context& context() {
  static Context ctx;
  return ctx;
}

dnnl::memory::dim dim(size_t v) { return static_cast<dnnl::memory::dim>(v); }

}  // namespace

std::string_view gemm_precision_name(GemmPrecision precision) {
  switch (precision) {
    case GemmPrecision::BF16:
      return "bf16";
    case GemmPrecision::Int8:
      return "int8";
    case GemmPrecision::F32:
      break;
  }
  return "f32";
}

GemmPrecision parse_gemm_precision(std::string_view name) {
  std::string choices;
  for (GemmPrecision precision : {GemmPrecision::F32, GemmPrecision::BF16, GemmPrecision::Int8}) {
    if (gemm_precision_name(precision) == name) return precision;
    choices += (choices.empty() ? "" : ", ") + std::string(gemm_precision_name(precision));
  }
  throw Error("unknown GEMM precision '" + std::string(name) + "' (expected one of " + choices + ")");
}

GemmPrecision gemm_precision(std::span<const MatrixView> stacked, NarrowFloats narrow) {
  bool int8 = false, halves = false, narrowed = true;
  for (const MatrixView& w : stacked) {
    if (weight_format(w.type).gemm == GemmPrecision::Int8) int8 = true;
    if (weight_format(w.type).gemm != GemmPrecision::BF16) continue;
    halves = true;
    narrowed = narrowed && (w.type == TensorType::BF16 ? narrow.bf16 : narrow.f16);
  }
  if (int8) return GemmPrecision::Int8;
  return halves && narrowed ? GemmPrecision::BF16 : GemmPrecision::F32;
}

size_t gemm_weight_bytes(size_t n, size_t k, GemmPrecision precision) {
  const size_t element_bytes = precision == GemmPrecision::F32 ? 4 : precision == GemmPrecision::BF16 ? 2 : 1;
  return n * k * element_bytes;
}

struct OnednnGemm::Impl {
  GemmPrecision precision;
  dnnl::memory weights;  // in the primitive's preferred layout
  dnnl::primitive_attr attr;  // Int8: per-output-row weight scales
  std::map<size_t, std::pair<dnnl::matmul, dnnl::memory::desc>> by_m;  // primitive, src desc
  std::vector<uint16_t> x_bf16;  // activations converted once per call
  std::vector<int8_t> x_s8;
  std::vector<float> x_scale;    // Int8: one scale per activation row
  std::vector<float> x_rows;     // F32: x padded to the bucket's rows
  std::vector<float> y_rows;     // y at the bucket's rows, when padded
  std::mutex mutex;              // primitive cache; run() itself is not reentrant

  dt input_type() const {
    return precision == GemmPrecision::F32 ? dt::f32 : precision == GemmPrecision::BF16 ? dt::bf16 : dt::s8;
  }

  // The primitive for m rows, choosing its weights' layout, or taking
  // `packed` as it is.
  dnnl::matmul::primitive_desc describe(size_t m, size_t k, size_t n,
                                        const dnnl::memory::desc* packed = nullptr) const {
    const dnnl::memory::desc src({dim(m), dim(k)}, input_type(), tag::ab);
    const dnnl::memory::desc wei = packed != nullptr ? *packed : dnnl::memory::desc({dim(k), dim(n)}, input_type(), tag::any);
    const dnnl::memory::desc dst({dim(m), dim(n)}, dt::f32, tag::ab);
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), attr, context().engine);
  }

  // The primitive for m rows on the weights as packed. oneDNN's preferred
  // layout follows the thread count as well as the shape, so after
  // omp_set_num_threads (a -t sweep, more threads than cores) it can
  // differ from the one packed at construction; the primitive is then
  // made for the packed layout as it is.
  dnnl::matmul::primitive_desc describe_for_packed(size_t m, size_t k, size_t n) const {
    const auto preferred = describe(m, k, n);
    if (preferred.weights_desc() == weights.get_desc()) return preferred;
    const dnnl::memory::desc packed = weights.get_desc();
    try {
      return describe(m, k, n, &packed);
    } catch (const dnnl::error& e) {
      throw Error("oneDNN has no matmul for M = " + std::to_string(m) + " on the weights as packed at load (" +
                  e.what() + ")");
    }
  }
};

namespace {

// Symmetric s8 quantization of n values: returns the scale, q = x / scale
// rounded to nearest even. It runs on every token of every prefill GEMM, so
// both loops must vectorize: std::nearbyint is a library call per element
// on the baseline ISA. Adding and subtracting 1.5 * 2^23 rounds a float of
// magnitude below 2^22 (here at most 127) to the nearest integer, ties to
// even, in the default rounding mode: nearbyint's result.
float quantize_s8(const float* x, int8_t* q, size_t n) {
  float amax = 0.0f;
#pragma omp simd reduction(max : amax)
  for (size_t i = 0; i < n; ++i) amax = std::max(amax, std::abs(x[i]));
  const float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
  const float inv = 1.0f / scale;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
#pragma omp simd
  for (size_t i = 0; i < n; ++i) q[i] = static_cast<int8_t>((x[i] * inv + kRound) - kRound);
  return scale;
}

}  // namespace

OnednnGemm::OnednnGemm(std::span<const MatrixView> stacked, GemmPrecision precision)
    : impl_(std::make_unique<Impl>()), precision_(precision) {
  if (stacked.empty()) throw Error("OnednnGemm: no matrices");
  k_ = static_cast<size_t>(stacked[0].cols);
  for (const MatrixView& w : stacked) {
    if (static_cast<size_t>(w.cols) != k_) throw Error("OnednnGemm: stacked matrices differ in width");
    n_ += static_cast<size_t>(w.rows);
  }
  Impl& im = *impl_;
  im.precision = precision_;
  // The plain copy and the packed one coexist until the reorder is done.
  require_memory(2 * gemm_weight_bytes(n_, k_, precision_),
                 "prefill GEMM weights (" + std::to_string(n_) + " x " + std::to_string(k_) + ")");
  Context& ctx = context();
  // W is [N][K] row-major: as oneDNN's K x N weights that is layout "ba".
  const dnnl::memory::desc plain({dim(k_), dim(n_)}, im.input_type(), tag::ba);
  dnnl::memory plain_mem(plain, ctx.engine);
  auto* dst = static_cast<std::byte*>(plain_mem.get_data_handle());
  std::vector<float> row(k_);
  std::vector<float> row_scales;
  size_t r = 0;
  for (const MatrixView& w : stacked)
    for (int64_t wr = 0; wr < w.rows; ++wr, ++r) {
      dequantize_row(w.type, w.row(wr), row.data(), k_);
      switch (precision_) {
        case GemmPrecision::F32:
          std::copy(row.begin(), row.end(), reinterpret_cast<float*>(dst) + r * k_);
          break;
        case GemmPrecision::BF16: {
          auto* out = reinterpret_cast<uint16_t*>(dst) + r * k_;
          for (size_t c = 0; c < k_; ++c) out[c] = f32_to_bf16(row[c]);
          break;
        }
        case GemmPrecision::Int8:
          row_scales.push_back(quantize_s8(row.data(), reinterpret_cast<int8_t*>(dst) + r * k_, k_));
          break;
      }
    }
  if (precision_ == GemmPrecision::Int8) im.attr.set_output_scales(1 << 1, row_scales);
  // The weights' layout does not depend on M (checked for brgemm f32, bf16
  // and s8), so one reorder serves every primitive created later
  // (describe_for_packed).
  const auto pd = im.describe(16, k_, n_);
  im.weights = dnnl::memory(pd.weights_desc(), ctx.engine);
  dnnl::reorder(plain_mem, im.weights).execute(ctx.stream, plain_mem, im.weights);
  ctx.stream.wait();
}

OnednnGemm::~OnednnGemm() = default;
OnednnGemm::OnednnGemm(OnednnGemm&&) noexcept = default;
OnednnGemm& OnednnGemm::operator=(OnednnGemm&&) noexcept = default;

std::string OnednnGemm::implementation(size_t m) {
  return impl_->describe(gemm_rows_bucket(m), k_, n_).impl_info_str();
}

size_t OnednnGemm::primitives_made() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->by_m.size();
}

size_t gemm_rows_bucket(size_t m) {
  const size_t step = std::max<size_t>(8, std::bit_floor(std::max<size_t>(m, 1)) / 8);
  return (std::max<size_t>(m, 1) + step - 1) / step * step;
}

void OnednnGemm::run(const float* x, float* y, size_t m) {
  Impl& im = *impl_;
  const size_t bucket = gemm_rows_bucket(m);  // the rows past m are computed and dropped
  dnnl::matmul* prim;
  dnnl::memory::desc src_desc;
  {
    std::lock_guard lock(im.mutex);
    auto it = im.by_m.find(bucket);
    if (it == im.by_m.end()) {
      const auto pd = im.describe_for_packed(bucket, k_, n_);
      it = im.by_m.emplace(bucket, std::pair{dnnl::matmul(pd), pd.src_desc()}).first;
    }
    prim = &it->second.first;
    src_desc = it->second.second;
  }
  Context& ctx = context();
  void* src_data = const_cast<float*>(x);
  const auto rows = static_cast<int64_t>(m);
  if (precision_ == GemmPrecision::F32 && bucket != m) {
    im.x_rows.resize(bucket * k_);  // the padding rows hold whatever they held: their output is dropped
    std::copy(x, x + m * k_, im.x_rows.begin());
    src_data = im.x_rows.data();
  } else if (precision_ == GemmPrecision::BF16) {
    im.x_bf16.resize(bucket * k_);
    const auto count = static_cast<int64_t>(m * k_);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) im.x_bf16[static_cast<size_t>(i)] = f32_to_bf16(x[i]);
    src_data = im.x_bf16.data();
  } else if (precision_ == GemmPrecision::Int8) {
    im.x_s8.resize(bucket * k_);
    im.x_scale.resize(bucket);
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < rows; ++t) {
      const auto ut = static_cast<size_t>(t);
      im.x_scale[ut] = quantize_s8(x + ut * k_, &im.x_s8[ut * k_], k_);
    }
    src_data = im.x_s8.data();
  }
  if (bucket != m) im.y_rows.resize(bucket * n_);
  float* const dst_data = bucket != m ? im.y_rows.data() : y;
  dnnl::memory src(src_desc, ctx.engine, src_data);
  dnnl::memory dst({{dim(bucket), dim(n_)}, dt::f32, tag::ab}, ctx.engine, dst_data);
  prim->execute(ctx.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, im.weights}, {DNNL_ARG_DST, dst}});
  ctx.stream.wait();
  if (dst_data != y) std::copy(dst_data, dst_data + m * n_, y);
  if (precision_ == GemmPrecision::Int8) {
    // The primitive applied each row's weight scale; the activation's per-token
    // scale multiplies its whole output row.
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < rows; ++t) {
      float* out = y + static_cast<size_t>(t) * n_;
      const float s = im.x_scale[static_cast<size_t>(t)];
#pragma omp simd
      for (size_t j = 0; j < n_; ++j) out[j] *= s;
    }
  }
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string onednn_cpu_isa() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::all: return "all";
    case isa::sse41: return "sse41";
    case isa::avx: return "avx";
    case isa::avx2: return "avx2";
    case isa::avx2_vnni: return "avx2_vnni";
    case isa::avx512_mic: return "avx512_mic";
    case isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case isa::avx512_core: return "avx512_core";
    case isa::avx512_core_vnni: return "avx512_core_vnni";
    case isa::avx512_core_bf16: return "avx512_core_bf16";
    case isa::avx512_core_amx: return "avx512_core_amx";
  }
  return "unknown";
}

}  // namespace pdbench
