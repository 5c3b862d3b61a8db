// Bad model files end to end: every one is a pdbench::Error naming the file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/model/model.h"
#include "engine/util/error.h"
#include "tests/support/gguf_rewrite.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

namespace fs = std::filesystem;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void expect_error_naming(const std::string& path, const std::string& what = "") {
  try {
    Model::load(path);
    FAIL() << "loaded " << path;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

class BadModelFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("badmodel"); }
  std::string dir_;
};

TEST_F(BadModelFile, TruncatedFilesAreErrors) {
  for (const char* name : {"stories260K.gguf", "stories260K.bin"}) {
    const std::string bytes = read_all(test::model_path(name));
    for (size_t len : {size_t{0}, size_t{3}, size_t{4}, size_t{16}, size_t{27}, size_t{28}, size_t{1000},
                       bytes.size() / 2, bytes.size() - 1}) {
      const std::string path = dir_ + "/" + name + "." + std::to_string(len);
      write_all(path, bytes.substr(0, len));
      SCOPED_TRACE(path);
      expect_error_naming(path);
    }
  }
}

TEST_F(BadModelFile, MissingFileIsAnError) { expect_error_naming(dir_ + "/does-not-exist.gguf"); }

TEST_F(BadModelFile, AbsurdLlama2cHeaderIsAnError) {
  std::string bytes = read_all(test::model_path("stories260K.bin"));
  const int32_t absurd_heads = 1 << 30;
  bytes.replace(3 * sizeof(int32_t), sizeof(int32_t), reinterpret_cast<const char*>(&absurd_heads), sizeof(int32_t));
  const std::string path = dir_ + "/heads.bin";
  write_all(path, bytes);
  expect_error_naming(path);
}

// Types and architectures the engine has no row for stay refused by name.
TEST_F(BadModelFile, UnknownArchitectureIsRefusedByName) {
  const std::string path = dir_ + "/gpt2.gguf";
  test::rewrite_gguf(test::model_path("stories260K.gguf"), path,
                     {{{"general.architecture", gguf::Value::str("gpt2")}}, {}});
  expect_error_naming(path, "architecture 'gpt2' is not supported (supported: llama, qwen2, qwen3, phi3, gemma2, gemma3)");
}

// The tensor info's type field follows its name, dimension count and
// dimensions; 16 is ggml's iq2_xxs, which no row loads.
TEST_F(BadModelFile, UnknownTensorTypeIsRefusedByName) {
  std::string bytes = read_all(test::model_path("stories260K.gguf"));
  const std::string name = "blk.0.attn_q.weight";
  const size_t at = bytes.find(name) + name.size();
  uint32_t n_dims = 0;
  std::memcpy(&n_dims, bytes.data() + at, sizeof n_dims);
  const uint32_t iq2_xxs = 16;
  bytes.replace(at + sizeof n_dims + n_dims * sizeof(uint64_t), sizeof iq2_xxs,
                reinterpret_cast<const char*>(&iq2_xxs), sizeof iq2_xxs);
  const std::string path = dir_ + "/iq2_xxs.gguf";
  write_all(path, bytes);
  expect_error_naming(path, "tensor blk.0.attn_q.weight: type iq2_xxs is not supported");
}

}  // namespace
}  // namespace pdbench
