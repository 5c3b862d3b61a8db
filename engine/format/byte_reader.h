#pragma once
// Bounds-checked little-endian cursor over a file's bytes. Every read is
// checked against the bytes left, so a lying length never reads past the end;
// failures name the file, what was being read and where.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/util/error.h"

namespace pdbench {

static_assert(std::endian::native == std::endian::little,
              "model files are little-endian and are read in place");

class ByteReader {
 public:
  ByteReader(const std::string& path, std::span<const std::byte> bytes) : path_(path), bytes_(bytes) {}

  uint64_t offset() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  // Prefix for error messages, e.g. "metadata general.name".
  void set_context(std::string context) { context_ = std::move(context); }

  [[noreturn]] void fail(const std::string& what) const {
    fail_file(path_, context_.empty() ? what : context_ + ": " + what);
  }

  // `part` refines `what` ("length") without building a string unless it fails.
  void need(uint64_t n, std::string_view what, std::string_view part = {}) const {
    if (n <= remaining()) return;
    std::string item(what);
    if (!part.empty()) item += " " + std::string(part);
    fail("expected " + item + " of " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) +
         ", found only " + std::to_string(remaining()) + " bytes before the end of the file");
  }

  template <typename T>
  T read(std::string_view what, std::string_view part = {}) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T), what, part);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  // A GGUF string: u64 byte length, then the bytes (no terminator).
  std::string_view string(std::string_view what) {
    const auto n = read<uint64_t>(what, "length");
    need(n, what);
    std::string_view s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }

 private:
  const std::string& path_;
  std::span<const std::byte> bytes_;
  uint64_t pos_ = 0;
  std::string context_;
};

}  // namespace pdbench
