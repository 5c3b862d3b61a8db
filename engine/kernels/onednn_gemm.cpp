#include "engine/kernels/onednn_gemm.h"

#include <dnnl.hpp>

#include <cstdint>

#include "engine/kernels/dequantize.h"
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

struct OnednnGemm::Impl {
  dt compute_type;
  dnnl::memory weights;  // in the primitive's preferred layout
  std::map<size_t, std::pair<dnnl::matmul, dnnl::memory::desc>> by_m;  // primitive, src desc
  std::vector<uint16_t> x_bf16;  // activations converted once per call
  std::mutex mutex;              // primitive cache; run() itself is not reentrant

  dnnl::matmul::primitive_desc describe(size_t m, size_t k, size_t n) const {
    const dnnl::memory::desc src({dim(m), dim(k)}, compute_type, tag::ab);
    const dnnl::memory::desc wei({dim(k), dim(n)}, compute_type, tag::any);
    const dnnl::memory::desc dst({dim(m), dim(n)}, dt::f32, tag::ab);
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), context().engine);
  }
};

OnednnGemm::OnednnGemm(std::span<const MatrixView> stacked) : impl_(std::make_unique<Impl>()) {
  if (stacked.empty()) throw Error("OnednnGemm: no matrices");
  k_ = static_cast<size_t>(stacked[0].cols);
  for (const MatrixView& w : stacked) {
    if (static_cast<size_t>(w.cols) != k_) throw Error("OnednnGemm: stacked matrices differ in width");
    n_ += static_cast<size_t>(w.rows);
    bf16_ = bf16_ || w.type != TensorType::F32;
  }
  impl_->compute_type = bf16_ ? dt::bf16 : dt::f32;
  // The weights' layout does not depend on M (checked for brgemm bf16 and
  // f32), so one reorder serves every primitive created later.
  const auto pd = impl_->describe(16, k_, n_);
  Context& ctx = context();
  // W is [N][K] row-major: as oneDNN's K x N weights that is layout "ba".
  const dnnl::memory::desc plain({dim(k_), dim(n_)}, impl_->compute_type, tag::ba);
  std::vector<float> row(k_);
  dnnl::memory plain_mem(plain, ctx.engine);
  auto* dst = static_cast<std::byte*>(plain_mem.get_data_handle());
  size_t r = 0;
  for (const MatrixView& w : stacked)
    for (int64_t wr = 0; wr < w.rows; ++wr, ++r) {
      dequantize_row(w.type, w.row(wr), row.data(), k_);
      if (bf16_) {
        auto* out = reinterpret_cast<uint16_t*>(dst) + r * k_;
        for (size_t c = 0; c < k_; ++c) out[c] = f32_to_bf16(row[c]);
      } else {
        std::copy(row.begin(), row.end(), reinterpret_cast<float*>(dst) + r * k_);
      }
    }
  impl_->weights = dnnl::memory(pd.weights_desc(), ctx.engine);
  dnnl::reorder(plain_mem, impl_->weights).execute(ctx.stream, plain_mem, impl_->weights);
  ctx.stream.wait();
}

OnednnGemm::~OnednnGemm() = default;
OnednnGemm::OnednnGemm(OnednnGemm&&) noexcept = default;
OnednnGemm& OnednnGemm::operator=(OnednnGemm&&) noexcept = default;

size_t OnednnGemm::packed_bytes() const { return impl_->weights.get_desc().get_size(); }

std::string OnednnGemm::implementation(size_t m) { return impl_->describe(m, k_, n_).impl_info_str(); }

void OnednnGemm::run(const float* x, float* y, size_t m) {
  Impl& im = *impl_;
  dnnl::matmul* prim;
  dnnl::memory::desc src_desc;
  {
    std::lock_guard lock(im.mutex);
    auto it = im.by_m.find(m);
    if (it == im.by_m.end()) {
      const auto pd = im.describe(m, k_, n_);
      if (pd.weights_desc() != im.weights.get_desc())
        throw Error("oneDNN chose another weight layout for M = " + std::to_string(m));
      it = im.by_m.emplace(m, std::pair{dnnl::matmul(pd), pd.src_desc()}).first;
    }
    prim = &it->second.first;
    src_desc = it->second.second;
  }
  Context& ctx = context();
  void* src_data = const_cast<float*>(x);
  if (bf16_) {
    im.x_bf16.resize(m * k_);
    const auto count = static_cast<int64_t>(m * k_);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) im.x_bf16[static_cast<size_t>(i)] = f32_to_bf16(x[i]);
    src_data = im.x_bf16.data();
  }
  dnnl::memory src(src_desc, ctx.engine, src_data);
  dnnl::memory dst({{dim(m), dim(n_)}, dt::f32, tag::ab}, ctx.engine, y);
  prim->execute(ctx.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, im.weights}, {DNNL_ARG_DST, dst}});
  ctx.stream.wait();
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace pdbench
