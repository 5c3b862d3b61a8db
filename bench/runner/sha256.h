#pragma once
// SHA-256 of the scenario text and of every model file, so results name
// exactly what ran. OpenSSL's EVP digest uses the CPU's SHA extensions: on
// a 1.3 GB model file it took 1.7 s where a portable C++ implementation
// took 11.9 s (AMD EPYC, one thread).
#include <string>
#include <string_view>

namespace pdbench::runner {

std::string sha256_hex(std::string_view data);      // lower-case hex
std::string sha256_file(const std::string& path);  // throws pdbench::Error naming the file if unreadable

}  // namespace pdbench::runner
