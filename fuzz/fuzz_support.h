#pragma once
// What every fuzz target shares. The readers under test open files by path,
// so each input is written to a scratch folder first. A reader rejects bad
// input by throwing pdbench::Error (engine/util/error.h); that is the only
// exception a target lets pass, so anything else (another exception, a
// crash, a sanitizer report, a leak, a broken property) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "engine/util/error.h"

namespace pdbench::fuzz {

// A property the code under test documents does not hold: a finding.
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

// A folder of this process's own under $TMPDIR, removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pdbench-fuzz-XXXXXX").string();
    require(::mkdtemp(pattern.data()) != nullptr, "the scratch folder can be made");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The scratch folder; made on first use.
inline const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path();
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Writes `contents` to scratch_dir()/name (replacing it); returns the path.
inline std::string write_scratch_file(const std::string& name, std::string_view contents) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  require(out.good(), "the input can be written to the scratch folder");
  return path;
}

// Runs `read`; a pdbench::Error is the documented rejection of bad input.
template <class Read>
void allow_errors(Read&& read) {
  try {
    read();
  } catch (const Error&) {
  }
}

// Reads every byte, so a span that points outside its file faults here
// rather than going unnoticed.
template <class T>
void touch(std::span<const T> items) {
  volatile unsigned char sink = 0;
  for (const std::byte b : std::as_bytes(items)) sink = sink ^ static_cast<unsigned char>(b);
}

}  // namespace pdbench::fuzz
