#pragma once
// A model with its tokenizer: what every command loads first.
#include <memory>
#include <string>

#include "engine/model/forward.h"
#include "engine/model/model.h"
#include "engine/tokenizer/tokenizer.h"

namespace pdbench {

class Engine {
 public:
  // The tokenizer comes from tokenizer_path when given (llama2.c
  // tokenizer.bin or tokenizer.json[.gz]), else from the GGUF metadata.
  static Engine load(const std::string& model_path, const std::string& tokenizer_path = "");

  const Model& model() const { return *model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  // The model's forward pass of this kind, made on first use and shared by
  // every Generator: the fast one packs a GEMM copy of the weights, which is
  // paid for once per process rather than once per generator. Before the
  // first one, every weight is checked for NaN and Inf (finite_weights.h):
  // here, not at load, so commands that only tokenize do not read them all.
  // A pass keeps its scratch buffers, so it serves one thread at a time:
  // Generators of one Engine must not run at once (pdbench serve runs every
  // request on its loop's thread).
  Forward& forward(ForwardKind kind) const;

 private:
  std::unique_ptr<Model> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  mutable std::unique_ptr<Forward> forwards_[2];  // indexed by ForwardKind
  mutable bool weights_checked_ = false;
};

// Loads a standalone tokenizer file, choosing the reader by its content:
// tokenizer.json (optionally gzip), GGUF (its metadata), else llama2.c
// tokenizer.bin with vocab_size entries (0: up to the end of the file).
std::unique_ptr<Tokenizer> load_tokenizer_file(const std::string& path, int32_t vocab_size = 0);

}  // namespace pdbench
