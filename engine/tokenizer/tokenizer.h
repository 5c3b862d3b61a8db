#pragma once
// Text <-> token ids. Two algorithms behind one interface: SentencePiece-style
// BPE over scored pieces (GGUF tokenizer.ggml.model = "llama", llama2.c
// tokenizer.bin) and byte-level BPE over merge ranks (GGUF "gpt2", Hugging
// Face tokenizer.json).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pdbench {
namespace gguf {
class GgufFile;
}

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Token ids of `text`; BOS first when add_bos and the vocabulary has one.
  // Never appends EOS.
  virtual std::vector<int32_t> encode(std::string_view text, bool add_bos) const = 0;

  // The bytes token `id` stands for when it follows token `prev` (-1 at the
  // start). May be a partial UTF-8 sequence (byte tokens). SentencePiece
  // vocabularies drop the dummy-prefix space of the first piece after BOS.
  virtual std::string token_bytes(int32_t id, int32_t prev) const = 0;

  // The vocabulary entry as stored (for display: "▁the", "<0x0A>", "Ġthe").
  virtual std::string_view piece(int32_t id) const = 0;

  virtual int32_t n_vocab() const = 0;
  virtual int32_t bos() const = 0;  // -1 when the vocabulary has none
  virtual int32_t eos() const = 0;  // -1 when none
  // Tokens that end generation (EOS and other end-of-generation tokens).
  virtual bool is_end_of_generation(int32_t id) const = 0;

  // All of ids decoded as one string (ids[0] is treated as following nothing).
  std::string decode(const std::vector<int32_t>& ids) const;
};

// Emits text as tokens arrive without ever splitting a UTF-8 character:
// bytes of an incomplete sequence are held until it completes (or flush()).
class StreamingDecoder {
 public:
  explicit StreamingDecoder(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  std::string push(int32_t id);  // complete characters now available
  std::string flush();           // whatever is held (invalid bytes as U+FFFD)

 private:
  const Tokenizer& tokenizer_;
  int32_t prev_ = -1;
  std::string pending_;
};

// Loaders; each throws pdbench::Error naming the file and the problem.
std::unique_ptr<Tokenizer> load_tokenizer_from_gguf(const gguf::GgufFile& file);
// llama2.c tokenizer.bin; vocab_size from the model checkpoint header, or 0
// to read entries up to the end of the file.
std::unique_ptr<Tokenizer> load_tokenizer_llama2c(const std::string& path, int32_t vocab_size);
// Hugging Face tokenizer.json, optionally gzip-compressed (.gz).
std::unique_ptr<Tokenizer> load_tokenizer_json(const std::string& path);

}  // namespace pdbench
