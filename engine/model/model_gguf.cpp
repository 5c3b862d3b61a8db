// Model::load_gguf: the architectures of config.h from GGUF metadata and
// tensors named as llama.cpp names them.
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/format/gguf.h"
#include "engine/model/model.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

std::string shape_string(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Views of the file's tensors, each checked for shape and recorded in the
// model's list of named tensors.
class TensorBinder {
 public:
  TensorBinder(const gguf::GgufFile& file, std::vector<NamedTensor>& bound) : file_(file), bound_(bound) {}

  // A matrix of `rows` outputs by `cols` inputs (GGUF shape [cols, rows]).
  MatrixView matrix(const std::string& name, size_t cols, size_t rows) const {
    const gguf::TensorInfo& t = tensor(name, {cols, rows});
    return MatrixView{t.type, static_cast<int64_t>(rows), static_cast<int64_t>(cols), t.data};
  }

  // Whether the file has the tensor, for the optional ones.
  bool has(const std::string& name) const { return file_.find_tensor(name) != nullptr; }

  std::span<const float> vector(const std::string& name, size_t n) const {
    const gguf::TensorInfo& t = tensor(name, {n});
    if (t.type != TensorType::F32)
      fail_file(file_.path(), "tensor " + name + ": expected type f32 for a norm or bias, found " +
                                  std::string(traits(t.type).name));
    return {reinterpret_cast<const float*>(t.data), n};
  }

 private:
  const gguf::TensorInfo& tensor(const std::string& name, const std::vector<uint64_t>& shape) const {
    const gguf::TensorInfo& t = file_.tensor(name);
    if (t.shape != shape)
      fail_file(file_.path(), "tensor " + name + ": expected shape " + shape_string(shape) + ", found " +
                                  shape_string(t.shape));
    bound_.push_back({name, t.type, {t.data, t.size_bytes}});
    return t;
  }

  const gguf::GgufFile& file_;
  std::vector<NamedTensor>& bound_;
};

// A tensor the passes would not read may change the math (a bias, rope
// factors, another layer kind): the file is refused by its name rather
// than run without it.
void refuse_unbound_tensors(const gguf::GgufFile& f, const std::vector<NamedTensor>& bound, const std::string& arch) {
  for (const gguf::TensorInfo& t : f.tensors()) {
    const bool used = std::any_of(bound.begin(), bound.end(), [&](const NamedTensor& b) { return b.name == t.name; });
    if (!used)
      fail_file(f.path(), "tensor " + t.name + " is not part of the " + arch +
                              " model as pdbench implements it; refusing to run without it");
  }
}

// Linear RoPE scaling from metadata, as llama.cpp reads it: rope.scaling.factor,
// or the older rope.scale_linear, 0 meaning 1; whatever the type says, only
// YaRN or LongRoPE change more than the angle's scale, and those are refused.
// Llama 3's scaling comes as rope_freqs.weight instead.
void read_rope_scaling(const gguf::GgufFile& f, const std::string& arch, ConfigKeys& k, ModelConfig& c) {
  for (const char* name : {"rope_factors_long.weight", "rope_factors_short.weight"})
    if (f.find_tensor(name) != nullptr)
      fail_file(f.path(), "tensor " + std::string(name) + ": LongRoPE scaling (Phi-3 128k) is not supported");
  const std::string p = arch + ".rope.";
  const std::string type = f.get_string(p + "scaling.type", "none");
  if (type != "none" && type != "linear")
    fail_file(f.path(), "RoPE scaling type (" + p + "scaling.type) = " + type + " is not supported (none, linear)");
  if (!f.has(k.rope_linear_factor) && f.has(p + "scale_linear"))
    k.rope_linear_factor = p + "scale_linear";
  const float factor = f.get_float(k.rope_linear_factor, 1.0f);
  c.rope_linear_factor = factor == 0.0f ? 1.0f : factor;
}

// Llama 3's per-pair frequency divisors: finite and positive, their
// largest recorded as the config's scaling factor.
std::span<const float> bind_rope_freqs(const TensorBinder& bind, const std::string& path, ModelConfig& c) {
  const std::string name = "rope_freqs.weight";
  if (!bind.has(name)) return {};
  const std::span<const float> divisors = bind.vector(name, c.rope_dim / 2);
  for (float d : divisors)
    if (!(d > 0.0f && d < 1e12f))
      fail_file(path, "tensor " + name + ": divisor " + std::to_string(d) + " is not a positive finite number");
  c.llama3_rope_factor = *std::max_element(divisors.begin(), divisors.end());
  return divisors;
}

// Q, K and V: three tensors, or (phi3, where llama.cpp reads either) rows
// of one attn_qkv tensor in that order.
void bind_qkv(const TensorBinder& bind, const std::string& b, const ModelConfig& c, LayerWeights& l) {
  if (c.fused_projections && bind.has(b + "attn_qkv.weight")) {
    const MatrixView qkv = bind.matrix(b + "attn_qkv.weight", c.dim, c.q_dim() + 2 * c.kv_dim());
    const auto q = static_cast<int64_t>(c.q_dim()), kv = static_cast<int64_t>(c.kv_dim());
    l.wq = qkv.row_range(0, q);
    l.wk = qkv.row_range(q, kv);
    l.wv = qkv.row_range(q + kv, kv);
    return;
  }
  l.wq = bind.matrix(b + "attn_q.weight", c.dim, c.q_dim());
  l.wk = bind.matrix(b + "attn_k.weight", c.dim, c.kv_dim());
  l.wv = bind.matrix(b + "attn_v.weight", c.dim, c.kv_dim());
}

// Gate and up: two tensors, or (phi3) one ffn_up of both, gate rows first:
// llama.cpp's swiglu of a fused tensor applies SiLU to its first half.
void bind_gate_up(const TensorBinder& bind, const std::string& b, const ModelConfig& c, LayerWeights& l) {
  if (c.fused_projections) {
    const MatrixView gate_up = bind.matrix(b + "ffn_up.weight", c.dim, 2 * c.ffn_dim);
    const auto ffn = static_cast<int64_t>(c.ffn_dim);
    l.w_gate = gate_up.row_range(0, ffn);
    l.w_up = gate_up.row_range(ffn, ffn);
    return;
  }
  l.w_gate = bind.matrix(b + "ffn_gate.weight", c.dim, c.ffn_dim);
  l.w_up = bind.matrix(b + "ffn_up.weight", c.dim, c.ffn_dim);
}

// Gemma's 27B models (told by their layer count) scale attention by
// 1 / sqrt(dim / heads) instead of 1 / sqrt(head_dim).
void scale_attention_by_width(size_t layers_of_27b, ModelConfig& c) {
  if (c.n_layers == layers_of_27b && c.n_heads != 0)
    c.attention_scale = 1.0f / std::sqrt(static_cast<float>(c.dim / c.n_heads));
}

// Which layers slide: every layer's flag where the file has an array (as
// llama.cpp's converters write it for Gemma 3n and 4), else of every
// `period` layers the last is global. llama.cpp's gemma2 and gemma3 loaders
// would ignore such an array and keep their default period; pdbench runs
// the layers the file names rather than others.
void read_sliding_pattern(const gguf::GgufFile& f, const ConfigKeys& k, size_t default_period, ModelConfig& c) {
  const gguf::Value* pattern = f.find(k.sliding_period);
  if (pattern != nullptr && pattern->type == gguf::ValueType::ARRAY)
    c.sliding_layers = f.get_bool_array(k.sliding_period);
  else
    c.sliding_period = f.get_uint(k.sliding_period, default_period);
}

// Gemma 3's sliding layers and final softcap, with llama.cpp's values for
// absent keys (llama_model_gemma3::load_arch_hparams: no window is no
// sliding layer; of every 6 layers the last is global; sliding layers'
// RoPE base 10000, without the linear scaling of the global ones: Gemma 3
// 4B and up), and its attention scale: 1 / sqrt(dim / heads) for the
// 27B, told by its 62 layers, 1 / sqrt(head_dim) for the others.
void read_gemma3(const gguf::GgufFile& f, const ConfigKeys& k, ModelConfig& c) {
  c.sliding_window = f.get_uint(k.sliding_window, 0);
  if (c.sliding_window != 0) {
    read_sliding_pattern(f, k, 6, c);
    c.rope_theta_sliding = f.get_float(k.rope_theta_sliding, 10000.0f);
  }
  c.final_softcap = f.get_float(k.final_softcap, 0.0f);
  scale_attention_by_width(62, c);
}

// Gemma 2's, by llama_model_gemma2::load_arch_hparams: every other layer
// slides (pattern 2), with a window of 4096 and the global RoPE base unless
// the file says, and the global linear scaling; scores softcapped at 50 and logits at 30 unless it says;
// the 27B (46 layers) scales attention by 1 / sqrt(dim / heads). Its head
// is always the token embedding: llama.cpp reads no output.weight, which
// is then refused as a tensor the model does not have.
void read_gemma2(const gguf::GgufFile& f, const ConfigKeys& k, ModelConfig& c) {
  c.sliding_window = f.get_uint(k.sliding_window, 4096);
  read_sliding_pattern(f, k, 2, c);
  c.rope_theta_sliding = f.get_float(k.rope_theta_sliding, c.rope_theta);
  c.rope_linear_factor_sliding = c.rope_linear_factor;
  c.attn_softcap = f.get_float(k.attn_softcap, 50.0f);
  c.final_softcap = f.get_float(k.final_softcap, 30.0f);
  scale_attention_by_width(46, c);
  c.tied_output = true;
}

ModelConfig read_config(const gguf::GgufFile& f) {
  ModelConfig c;
  const std::string arch = f.get_string("general.architecture");
  apply_traits(architecture_traits(arch, f.path()), c);
  ConfigKeys k = gguf_config_keys(c.arch);
  read_rope_scaling(f, arch, k, c);
  c.dim = f.get_uint(k.dim);
  c.n_layers = f.get_uint(k.n_layers);
  c.ffn_dim = f.get_uint(k.ffn_dim);
  c.n_heads = f.get_uint(k.n_heads);
  c.n_kv_heads = f.get_uint(k.n_kv_heads, c.n_heads);
  c.head_dim = f.get_uint(k.head_dim, c.n_heads > 0 ? c.dim / c.n_heads : 0);
  c.context_length = f.get_uint(k.context_length);
  c.rope_dim = f.get_uint(k.rope_dim, c.head_dim);
  c.rope_theta = f.get_float(k.rope_theta, 10000.0f);
  c.rms_eps = f.get_float(k.rms_eps, 1e-5f);
  const gguf::TensorInfo& embd = f.tensor(k.vocab);
  c.vocab = embd.shape.size() == 2 ? embd.shape[1] : 0;
  c.tied_output = f.find_tensor("output.weight") == nullptr;
  // Sliding layers are Gemma's only: phi3's attention.sliding_window is not
  // read, as llama.cpp disables Phi's window (its converters record it
  // wrongly), and its logits are the reference here.
  if (c.arch == Architecture::Gemma3) read_gemma3(f, k, c);
  if (c.arch == Architecture::Gemma2) read_gemma2(f, k, c);
  validate(c, f.path(), k);
  return c;
}

}  // namespace

Model Model::load_gguf(const std::string& path) {
  auto file = std::make_shared<gguf::GgufFile>(gguf::GgufFile::open(path));
  Model m;
  m.path_ = path;
  m.gguf_ = file.get();
  m.config_ = read_config(*file);
  const TensorBinder bind(*file, m.tensors_);
  ModelWeights& w = m.weights_;
  if (m.config_.arch == Architecture::Llama) w.rope_freqs = bind_rope_freqs(bind, path, m.config_);
  const ModelConfig& c = m.config_;

  w.token_embedding = bind.matrix("token_embd.weight", c.dim, c.vocab);
  w.output_norm = bind.vector("output_norm.weight", c.dim);
  w.output = c.tied_output ? w.token_embedding : bind.matrix("output.weight", c.dim, c.vocab);
  w.layers.resize(c.n_layers);
  for (size_t i = 0; i < c.n_layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    LayerWeights& l = w.layers[i];
    l.attn_norm = bind.vector(b + "attn_norm.weight", c.dim);
    bind_qkv(bind, b, c, l);
    l.wo = bind.matrix(b + "attn_output.weight", c.q_dim(), c.dim);
    if (c.qkv_bias) {
      l.bq = bind.vector(b + "attn_q.bias", c.q_dim());
      l.bk = bind.vector(b + "attn_k.bias", c.kv_dim());
      l.bv = bind.vector(b + "attn_v.bias", c.kv_dim());
    }
    if (c.qk_norm) {
      l.q_norm = bind.vector(b + "attn_q_norm.weight", c.head_dim);
      l.k_norm = bind.vector(b + "attn_k_norm.weight", c.head_dim);
    }
    l.ffn_norm = bind.vector(b + "ffn_norm.weight", c.dim);
    bind_gate_up(bind, b, c, l);
    l.w_down = bind.matrix(b + "ffn_down.weight", c.ffn_dim, c.dim);
    if (c.post_norms) {  // Gemma: stored as 1 + the checkpoint's weight, a plain RMSNorm's gain
      l.attn_post_norm = bind.vector(b + "post_attention_norm.weight", c.dim);
      l.ffn_post_norm = bind.vector(b + "post_ffw_norm.weight", c.dim);
    }
  }
  refuse_unbound_tensors(*file, m.tensors_, architecture_name(c.arch));
  m.file_ = std::move(file);
  return m;
}

}  // namespace pdbench
