// Model::load_llama2c: llama2.c v0 checkpoints (f32, llama architecture,
// adjacent-pair RoPE with theta 10000, RMS eps 1e-5 as run.c hard-codes).
#include <memory>

#include "engine/format/llama2c.h"
#include "engine/model/model.h"

namespace pdbench {

namespace {

MatrixView matrix(std::span<const float> data, size_t rows, size_t cols) {
  return MatrixView{TensorType::F32, static_cast<int64_t>(rows), static_cast<int64_t>(cols),
                    reinterpret_cast<const std::byte*>(data.data())};
}

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
  validate(c, path);

  ModelWeights& w = m.weights_;
  w.token_embedding = matrix(file->token_embedding(), c.vocab, c.dim);
  w.output_norm = file->rms_final();
  w.output = matrix(file->wcls(), c.vocab, c.dim);
  w.layers.resize(c.n_layers);
  for (size_t i = 0; i < c.n_layers; ++i) {
    LayerWeights& l = w.layers[i];
    l.attn_norm = file->rms_att(i);
    l.wq = matrix(file->wq(i), c.q_dim(), c.dim);
    l.wk = matrix(file->wk(i), c.kv_dim(), c.dim);
    l.wv = matrix(file->wv(i), c.kv_dim(), c.dim);
    l.wo = matrix(file->wo(i), c.dim, c.q_dim());
    l.ffn_norm = file->rms_ffn(i);
    l.w_gate = matrix(file->w1(i), c.ffn_dim, c.dim);
    l.w_up = matrix(file->w3(i), c.ffn_dim, c.dim);
    l.w_down = matrix(file->w2(i), c.dim, c.ffn_dim);
  }
  m.file_ = std::move(file);
  return m;
}

}  // namespace pdbench
