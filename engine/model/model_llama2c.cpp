// Model::load_llama2c: llama2.c v0 checkpoints (f32, llama architecture,
// adjacent-pair RoPE with theta 10000, RMS eps 1e-5 as run.c hard-codes).
#include <memory>
#include <string>

#include "engine/format/llama2c.h"
#include "engine/model/model.h"

namespace pdbench {

namespace {

// The header fields (and run.c's constants) each hyperparameter comes from.
ConfigKeys llama2c_keys() {
  ConfigKeys k;
  k.dim = "header dim";
  k.n_layers = "header n_layers";
  k.n_heads = "header n_heads";
  k.n_kv_heads = "header n_kv_heads";
  k.head_dim = "header dim / n_heads";
  k.ffn_dim = "header hidden_dim";
  k.vocab = "header vocab_size";
  k.context_length = "header seq_len";
  k.rope_dim = "header dim / n_heads";
  k.rope_theta = "run.c's RoPE theta";
  k.rms_eps = "run.c's RMS epsilon";
  return k;
}

// Views of the checkpoint's f32 arrays, each recorded in the model's list of
// named tensors under run.c's name ("wq[3]": layer 3's).
class Binder {
 public:
  explicit Binder(std::vector<NamedTensor>& bound) : bound_(bound) {}

  std::span<const float> vector(std::span<const float> data, const std::string& name) const {
    bound_.push_back({name, TensorType::F32, std::as_bytes(data)});
    return data;
  }
  MatrixView matrix(std::span<const float> data, size_t rows, size_t cols, const std::string& name) const {
    vector(data, name);
    return MatrixView{TensorType::F32, static_cast<int64_t>(rows), static_cast<int64_t>(cols),
                      reinterpret_cast<const std::byte*>(data.data())};
  }

 private:
  std::vector<NamedTensor>& bound_;
};

}  // namespace

Model Model::load_llama2c(const std::string& path) {
  auto file = std::make_shared<Llama2cCheckpoint>(Llama2cCheckpoint::open(path));
  const Llama2cConfig& h = file->config();
  Model m;
  m.path_ = path;
  ModelConfig& c = m.config_;
  c.arch = Architecture::Llama;
  c.dim = h.dim;
  c.n_layers = h.n_layers;
  c.n_heads = h.n_heads;
  c.n_kv_heads = h.n_kv_heads;
  c.head_dim = h.head_size();
  c.ffn_dim = h.hidden_dim;
  c.vocab = h.vocab_size;
  c.context_length = h.seq_len;
  c.rope_dim = c.head_dim;
  c.tied_output = h.shared_classifier;
  validate(c, path, llama2c_keys());

  const Binder bind(m.tensors_);
  ModelWeights& w = m.weights_;
  w.token_embedding = bind.matrix(file->token_embedding(), c.vocab, c.dim, "token_embedding_table");
  w.output_norm = bind.vector(file->rms_final(), "rms_final_weight");
  w.output = c.tied_output ? w.token_embedding : bind.matrix(file->wcls(), c.vocab, c.dim, "wcls");
  w.layers.resize(c.n_layers);
  for (size_t i = 0; i < c.n_layers; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    LayerWeights& l = w.layers[i];
    l.attn_norm = bind.vector(file->rms_att(i), "rms_att_weight" + at);
    l.wq = bind.matrix(file->wq(i), c.q_dim(), c.dim, "wq" + at);
    l.wk = bind.matrix(file->wk(i), c.kv_dim(), c.dim, "wk" + at);
    l.wv = bind.matrix(file->wv(i), c.kv_dim(), c.dim, "wv" + at);
    l.wo = bind.matrix(file->wo(i), c.dim, c.q_dim(), "wo" + at);
    l.ffn_norm = bind.vector(file->rms_ffn(i), "rms_ffn_weight" + at);
    l.w_gate = bind.matrix(file->w1(i), c.ffn_dim, c.dim, "w1" + at);
    l.w_up = bind.matrix(file->w3(i), c.ffn_dim, c.dim, "w3" + at);
    l.w_down = bind.matrix(file->w2(i), c.dim, c.ffn_dim, "w2" + at);
  }
  m.file_ = std::move(file);
  return m;
}

}  // namespace pdbench
