// Bad model files end to end: every one is a pdbench::Error naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/model/model.h"
#include "engine/util/error.h"
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

void expect_error_naming(const std::string& path) {
  try {
    Model::load(path);
    FAIL() << "loaded " << path;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

class BadModelFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("badmodel"); }
  void TearDown() override { fs::remove_all(dir_); }
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

}  // namespace
}  // namespace pdbench
