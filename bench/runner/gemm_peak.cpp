#include "bench/runner/gemm_peak.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <dnnl.hpp>

#include "bench/runner/thread_count.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;


// Fills a buffer with one byte: small normal bf16 values (0x3c3c, about
// 0.011) or s8 ones (60), so no denormal or saturation path runs.
void fill(dnnl::memory& m) { std::memset(m.get_data_handle(), 0x3c, m.get_desc().get_size()); }

}  // namespace

double onednn_gemm_peak(GemmPrecision precision, int threads) {
  if (precision == GemmPrecision::F32) throw Error("onednn_gemm_peak: the FP32 peak comes from the FMA loop");
  const bool int8 = precision == GemmPrecision::Int8;
  const dt in = int8 ? dt::s8 : dt::bf16;
  const dt out = int8 ? dt::s32 : dt::f32;
  const dnnl::memory::dim n = kPeakGemmSize;
  const ThreadCount thread_count(threads);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::matmul::primitive_desc pd(
      dnnl::matmul::desc({{n, n}, in, tag::ab}, {{n, n}, in, tag::any}, {{n, n}, out, tag::ab}), engine);
  dnnl::memory src(pd.src_desc(), engine), weights(pd.weights_desc(), engine), dst(pd.dst_desc(), engine);
  fill(src);
  fill(weights);
  const dnnl::matmul matmul(pd);
  const auto run = [&] {
    matmul.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
  run();  // first touch of dst and oneDNN's scratch
  double best = 0;
  for (int pass = 0; pass < 3; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / s / 1e9);
  }
  return best;
}

}  // namespace pdbench::runner
