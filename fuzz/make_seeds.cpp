// Writes the seed files that code makes: binary files (GGUF through
// GgufWriter, llama2.c checkpoints and vocabularies, tokenizer.json and its
// gzip) and the results CSVs, whose columns follow this version. Each is a
// small valid file that still reaches every part of its reader.
//   fuzz_seeds DIR   (DIR is fuzz/corpus; files go to DIR/<target>/)
// The other seeds (scenarios, traces, texts) are committed as they are.
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"
#include "bench/runner/results.h"
#include "engine/format/gguf_writer.h"
#include "engine/tokenizer/byte_level.h"
#include "engine/util/error.h"

namespace {

using namespace pdbench;
using gguf::Value;
using gguf::ValueType;

// Appends little-endian values (the llama2.c files are raw structs).
class Bytes {
 public:
  template <class T>
  Bytes& put(T v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    data_.append(p, sizeof v);
    return *this;
  }
  Bytes& raw(const std::string& s) {
    data_ += s;
    return *this;
  }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  if (!out.good()) fail_file(path, "cannot write");
}

void write_gzip(const std::string& path, const std::string& contents) {
  gzFile file = gzopen(path.c_str(), "wb9");
  const bool ok = file != nullptr && gzwrite(file, contents.data(), static_cast<unsigned>(contents.size())) ==
                                         static_cast<int>(contents.size());
  if (file == nullptr || gzclose(file) != Z_OK || !ok) fail_file(path, "cannot write gzip");
}

std::vector<std::byte> zero_bytes(size_t n) { return std::vector<std::byte>(n); }

// Every byte in the GPT-2 byte-level spelling, ids 0..255.
std::vector<std::string> byte_level_pieces() {
  std::vector<std::string> pieces;
  for (int b = 0; b < 256; ++b) pieces.push_back(byte_level::encode(std::string(1, static_cast<char>(b))));
  return pieces;
}

// A SentencePiece vocabulary with byte fallback through <unk>, metadata of
// every value type, and one small tensor of every supported type.
void write_spm_gguf(const std::string& path) {
  gguf::GgufWriter w;
  w.set("general.architecture", Value::str("llama"));
  w.set("general.name", Value::str("fuzz seed"));
  w.set("llama.block_count", Value::u32(1));
  w.set("llama.embedding_length", Value::u32(4));
  w.set("llama.attention.layer_norm_rms_epsilon", Value::f32(1e-5f));
  w.set("seed.uint8", {ValueType::UINT8, uint64_t{200}, {}, {}});
  w.set("seed.int8", {ValueType::INT8, int64_t{-100}, {}, {}});
  w.set("seed.uint16", {ValueType::UINT16, uint64_t{60000}, {}, {}});
  w.set("seed.int16", {ValueType::INT16, int64_t{-30000}, {}, {}});
  w.set("seed.int32", Value::i32(-1));
  w.set("seed.uint64", Value::u64(uint64_t{1} << 40));
  w.set("seed.int64", {ValueType::INT64, int64_t{-1} << 40, {}, {}});
  w.set("seed.float64", {ValueType::FLOAT64, 0.25, {}, {}});
  w.set("tokenizer.ggml.model", Value::str("llama"));
  w.set("tokenizer.ggml.tokens",
        Value::strings({"<unk>", "<s>", "</s>", "<0x0A>", "\u2581", "a", "b", "\u2581a", "ab", "<|im_end|>"}));
  w.set("tokenizer.ggml.scores", Value::f32s({0, 0, 0, 0, -1, -2, -3, -4, -5, 0}));
  w.set("tokenizer.ggml.token_type", Value::i32s({2, 3, 3, 6, 1, 1, 1, 1, 1, 3}));
  w.set("tokenizer.ggml.bos_token_id", Value::u32(1));
  w.set("tokenizer.ggml.eos_token_id", Value::u32(2));
  w.set("tokenizer.ggml.unknown_token_id", Value::u32(0));
  w.set("tokenizer.ggml.add_space_prefix", Value::boolean(true));
  w.add_tensor("token_embd.weight", TensorType::F32, {4, 10}, zero_bytes(4 * 10 * 4));
  w.add_tensor("output_norm.weight", TensorType::F16, {4}, zero_bytes(4 * 2));
  w.add_tensor("blk.0.attn_norm.weight", TensorType::BF16, {4}, zero_bytes(4 * 2));
  w.add_tensor("blk.0.attn_q.weight", TensorType::Q8_0, {32, 2}, zero_bytes(2 * sizeof(BlockQ8_0)));
  w.add_tensor("blk.0.ffn_up.weight", TensorType::Q4_0, {32, 1}, zero_bytes(sizeof(BlockQ4_0)));
  w.write(path);
}

// A byte-level BPE vocabulary (the 256 bytes, one merge, an end-of-turn
// control token) with Qwen's pre-tokenizer and a 64-byte alignment.
void write_bpe_gguf(const std::string& path) {
  gguf::GgufWriter w(64);
  std::vector<std::string> tokens = byte_level_pieces();
  tokens.push_back("ab");
  tokens.push_back("<|im_end|>");
  std::vector<int32_t> types(tokens.size(), 1);
  types.back() = 3;
  w.set("general.architecture", Value::str("qwen2"));
  w.set("tokenizer.ggml.model", Value::str("gpt2"));
  w.set("tokenizer.ggml.pre", Value::str("qwen2"));
  w.set("tokenizer.ggml.tokens", Value::strings(tokens));
  w.set("tokenizer.ggml.token_type", Value::i32s(types));
  w.set("tokenizer.ggml.merges", Value::strings({"a b"}));
  w.set("tokenizer.ggml.eos_token_id", Value::u32(static_cast<uint32_t>(tokens.size() - 1)));
  w.set("tokenizer.ggml.add_bos_token", Value::boolean(false));
  w.add_tensor("output_norm.weight", TensorType::F32, {16}, zero_bytes(16 * 4));
  w.write(path);
}

// A llama2.c checkpoint: dim 2, hidden 4, one layer and head, vocabulary 3,
// seq_len 2; a negative vocab_size means a separate classifier follows.
std::string llama2c_checkpoint(bool shared_classifier) {
  const int32_t dim = 2, hidden = 4, layers = 1, heads = 1, kv_heads = 1, vocab = 3, seq_len = 2;
  const int32_t per_layer = 2 * dim + 2 * dim * dim + 2 * dim * dim + 3 * dim * hidden;  // norms, q/o, k/v, ffn
  const int32_t floats =
      vocab * dim + layers * per_layer + dim + seq_len * dim / heads + (shared_classifier ? 0 : vocab * dim);
  Bytes b;
  b.put(dim).put(hidden).put(layers).put(heads).put(kv_heads).put(shared_classifier ? vocab : -vocab).put(seq_len);
  for (int32_t i = 0; i < floats; ++i) b.put(0.5f);
  return b.data();
}

// A small llama2.c tokenizer.bin: unk, BOS, EOS, the 256 byte tokens, then
// " ", "a", "b" and their merges " a", "ab", " ab".
std::string llama2c_vocab() {
  std::vector<std::string> pieces = {"<unk>", "\n<s>\n", "\n</s>\n"};
  for (int b = 0; b < 256; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    pieces.push_back(piece);
  }
  pieces.insert(pieces.end(), {" ", "a", "b", " a", "ab", " ab"});
  Bytes out;
  out.put(int32_t{8});
  for (size_t id = 0; id < pieces.size(); ++id) {
    out.put(id < 259 ? 0.0f : -static_cast<float>(id)).put(static_cast<int32_t>(pieces[id].size())).raw(pieces[id]);
  }
  return out.data();
}

// A byte-level tokenizer.json: the 256 bytes and one merge; `full` adds a
// Split pre-tokenizer step, an NFC normalizer and an added token.
std::string tokenizer_json(bool full) {
  nlohmann::json vocab = nlohmann::json::object();
  const std::vector<std::string> bytes = byte_level_pieces();
  for (size_t b = 0; b < bytes.size(); ++b) vocab[bytes[b]] = b;
  vocab["ab"] = 256;
  nlohmann::json doc = {
      {"added_tokens", nlohmann::json::array()},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"a b"}}}},
  };
  if (full) {
    doc["added_tokens"] = {{{"id", 257}, {"content", "<|endoftext|>"}}};
    doc["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}}}};
    doc["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"}, {"pattern", {{"Regex", "\\p{L}+| ?\\p{N}"}}}, {"behavior", "Isolated"}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
    doc["model"]["merges"] = nlohmann::json::array({nlohmann::json::array({"a", "b"})});  // the [left, right] form
  }
  return doc.dump();
}

// A results table in this version's columns: `rows` rows over two cases,
// times that vary, every other cell 1.
std::string results_csv(const std::vector<std::string>& columns, size_t rows) {
  runner::Table table{columns, {}};
  for (size_t r = 0; r < rows; ++r) {
    std::vector<std::string>& row = table.rows.emplace_back();
    for (const std::string& column : columns) {
      if (column == "case_index")
        row.push_back(std::to_string(r % 2));
      else if (column == "case_id")
        row.push_back(r % 2 == 0 ? "p16_n4_d0_t1_greedy" : "p64_n4_d0_t1_greedy");
      else if (column == "rep" || column == "step")
        row.push_back(std::to_string(r / 2));
      else if (column.ends_with("_ms"))
        row.push_back(std::to_string(1.5 + static_cast<double>(r) * 0.25));
      else
        row.push_back("1");
    }
  }
  return runner::to_csv(table);
}

void write_seeds(const std::filesystem::path& dir) {
  const auto in = [&](const char* target, const char* name) {
    std::filesystem::create_directories(dir / target);
    return (dir / target / name).string();
  };
  write_spm_gguf(in("gguf_reader_fuzz", "spm-vocab.gguf"));
  write_bpe_gguf(in("gguf_reader_fuzz", "bpe-vocab.gguf"));
  write_file(in("llama2c_checkpoint_fuzz", "shared-classifier.bin"), llama2c_checkpoint(true));
  write_file(in("llama2c_checkpoint_fuzz", "separate-classifier.bin"), llama2c_checkpoint(false));
  write_file(in("llama2c_tokenizer_fuzz", "minimal.bin"), llama2c_vocab());
  write_file(in("tokenizer_json_fuzz", "byte-level.json"), tokenizer_json(false));
  write_file(in("tokenizer_json_fuzz", "split-nfc-added.json"), tokenizer_json(true));
  write_gzip(in("tokenizer_json_fuzz", "byte-level.json.gz"), tokenizer_json(false));
  // results_csv_fuzz's input: samples.csv, then a form feed and steps.csv.
  const std::string samples = results_csv(runner::samples_columns(), 6);
  write_file(in("results_csv_fuzz", "samples.csv"), samples);
  write_file(in("results_csv_fuzz", "samples-steps.csv"), samples + '\f' + results_csv(runner::steps_columns(), 8));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR (fuzz/corpus)\n", argv[0]);
    return 2;
  }
  try {
    write_seeds(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
