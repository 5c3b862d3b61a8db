#include "engine/profile/op_profile.h"

namespace pdbench {

namespace {

constexpr std::array<std::string_view, kOpCount> kNames{
    "embedding", "attn_norm",   "qkv_proj", "rope",        "attention", "out_proj",
    "ffn_norm",  "ffn_gate_up", "ffn_down", "output_norm", "lm_head",   "sampling"};

}  // namespace

std::string_view op_name(Op op) { return kNames[static_cast<size_t>(op)]; }

std::optional<Op> op_from_name(std::string_view name) {
  for (size_t i = 0; i < kOpCount; ++i)
    if (kNames[i] == name) return static_cast<Op>(i);
  return std::nullopt;
}

bool is_weight_matmul(Op op) {
  return op == Op::QkvProjection || op == Op::OutputProjection || op == Op::FfnGateUp || op == Op::FfnDown ||
         op == Op::LmHead;
}

bool is_attention_block(Op op) {
  return op == Op::AttentionNorm || op == Op::QkvProjection || op == Op::Rope ||
         op == Op::Attention || op == Op::OutputProjection;
}

bool is_ffn_block(Op op) { return op == Op::FfnNorm || op == Op::FfnGateUp || op == Op::FfnDown; }

void OpProfile::add(Op op, int layer, uint64_t ns, double flops, double bytes) {
  per_layer_[slot(layer)][index(op)] += OpStats{ns, 1, flops, bytes};
}

void OpProfile::reset() {
  for (auto& layer : per_layer_) layer.fill(OpStats{});
}

void OpProfile::merge(const OpProfile& other) {
  for (size_t l = 0; l < per_layer_.size() && l < other.per_layer_.size(); ++l)
    for (size_t i = 0; i < kOpCount; ++i) per_layer_[l][i] += other.per_layer_[l][i];
}

OpStats OpProfile::total(Op op) const {
  OpStats sum;
  for (const auto& layer : per_layer_) sum += layer[index(op)];
  return sum;
}

ScopedOp::~ScopedOp() {
  if (profile_ == nullptr) return;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - start_)
                      .count();
  profile_->add(op_, layer_, static_cast<uint64_t>(ns), flops_, bytes_);
}

}  // namespace pdbench
