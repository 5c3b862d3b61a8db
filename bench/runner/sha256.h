#pragma once
// SHA-256 (FIPS 180-4), self-contained so results can name the exact
// scenario text and model file without another dependency.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pdbench::runner {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  std::string hex_digest();  // finishes the hash; call once

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);
std::string sha256_file(const std::string& path);  // throws pdbench::Error if unreadable

}  // namespace pdbench::runner
