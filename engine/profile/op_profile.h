#pragma once
// Time, FLOPs and bytes per operator and layer, accumulated by the forward
// pass. A steady_clock read costs ~20 ns, negligible next to any op here, so
// the profile stays on in every run.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pdbench {

enum class Op : uint8_t {
  Embedding,
  AttentionNorm,
  QkvProjection,
  Rope,
  Attention,
  OutputProjection,
  FfnNorm,
  FfnGateUp,
  FfnDown,
  OutputNorm,
  LmHead,
  Sampling,
};
inline constexpr size_t kOpCount = 12;
std::string_view op_name(Op op);
// The op of a name op_name gives ("qkv_proj"), or nullopt.
std::optional<Op> op_from_name(std::string_view name);
// Ops that multiply by a weight matrix: their compute roof is the
// precision of the weights' GEMMs; every other op runs in f32.
bool is_weight_matmul(Op op);
// Ops of the attention block and of the FFN block of a layer.
bool is_attention_block(Op op);
bool is_ffn_block(Op op);

struct OpStats {
  uint64_t ns = 0;
  uint64_t calls = 0;
  double flops = 0;
  double bytes = 0;  // bytes read and written, the roofline's denominator

  OpStats& operator+=(const OpStats& o) {
    ns += o.ns;
    calls += o.calls;
    flops += o.flops;
    bytes += o.bytes;
    return *this;
  }
};

class OpProfile {
 public:
  // Layers are 0..n_layers-1; ops outside a layer use layer -1.
  explicit OpProfile(size_t n_layers = 0) : per_layer_(n_layers + 1) {}

  void add(Op op, int layer, uint64_t ns, double flops, double bytes);
  void reset();
  void merge(const OpProfile& other);  // same layer count

  const OpStats& at(Op op, int layer) const { return per_layer_[slot(layer)][index(op)]; }
  OpStats total(Op op) const;  // over all layers
  size_t n_layers() const { return per_layer_.size() - 1; }

 private:
  static size_t index(Op op) { return static_cast<size_t>(op); }
  static size_t slot(int layer) { return static_cast<size_t>(layer + 1); }
  std::vector<std::array<OpStats, kOpCount>> per_layer_;
};

// Adds the time between construction and destruction to a profile (if any).
class ScopedOp {
 public:
  ScopedOp(OpProfile* profile, Op op, int layer, double flops = 0, double bytes = 0)
      : profile_(profile), op_(op), layer_(layer), flops_(flops), bytes_(bytes),
        start_(profile != nullptr ? std::chrono::steady_clock::now()
                                  : std::chrono::steady_clock::time_point{}) {}
  ~ScopedOp();
  ScopedOp(const ScopedOp&) = delete;
  ScopedOp& operator=(const ScopedOp&) = delete;

 private:
  OpProfile* profile_;
  Op op_;
  int layer_;
  double flops_;
  double bytes_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pdbench
