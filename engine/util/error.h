#pragma once
// One exception type for every bad input the engine meets. Messages name the
// file (or setting) and say what was expected and what was found.
#include <stdexcept>
#include <string>

namespace pdbench {

class Error : public std::runtime_error {
 public:
  // Control characters other than newline and tab are written as \xNN:
  // messages quote names read from files, and what() is a C string, so a
  // NUL in a name ("llama\0evil") would otherwise cut the message there.
  explicit Error(const std::string& what) : std::runtime_error(escape_controls(what)) {}
  explicit Error(const char* what) : Error(std::string(what)) {}

 private:
  static std::string escape_controls(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 || c == '\n' || c == '\t') {
        out += c;
        continue;
      }
      static const char* const kHex = "0123456789abcdef";
      out += {'\\', 'x', kHex[u >> 4], kHex[u & 15]};
    }
    return out;
  }
};

// Error about a file: "PATH: WHAT".
[[noreturn]] inline void fail_file(const std::string& path, const std::string& what) {
  throw Error(path + ": " + what);
}

}  // namespace pdbench
