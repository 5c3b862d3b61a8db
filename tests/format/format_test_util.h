#pragma once
// Helpers shared by the format tests: scratch directories, raw file I/O, and
// an assertion that a call fails with a pdbench::Error naming the file.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::test {

// A fresh directory, removed with everything in it at scope exit.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) : path_(temp_dir(tag)) {}
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  size_t entry_count() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path_), {}));
  }

 private:
  std::string path_;
};

inline std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

inline void write_bytes(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Passes when `fn` throws pdbench::Error whose message starts with `prefix`
// and contains every fragment.
template <typename Fn>
::testing::AssertionResult throws_error(Fn&& fn, std::string_view prefix,
                                        std::initializer_list<std::string_view> fragments) {
  try {
    fn();
  } catch (const Error& e) {
    const std::string_view message = e.what();
    if (!message.starts_with(prefix))
      return ::testing::AssertionFailure() << "message does not start with \"" << prefix << "\": " << message;
    for (auto fragment : fragments)
      if (message.find(fragment) == std::string_view::npos)
        return ::testing::AssertionFailure() << "message lacks \"" << fragment << "\": " << message;
    return ::testing::AssertionSuccess() << message;
  }
  return ::testing::AssertionFailure() << "no pdbench::Error thrown";
}

// An error about the file at `path`: "PATH: ...".
template <typename Fn>
::testing::AssertionResult fails_with(Fn&& fn, const std::string& path,
                                      std::initializer_list<std::string_view> fragments) {
  return throws_error(std::forward<Fn>(fn), path + ": ", fragments);
}

}  // namespace pdbench::test
