#pragma once
// One exception type for every bad input the engine meets. Messages name the
// file (or setting) and say what was expected and what was found.
#include <stdexcept>
#include <string>

namespace pdbench {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Error about a file: "PATH: WHAT".
[[noreturn]] inline void fail_file(const std::string& path, const std::string& what) {
  throw Error(path + ": " + what);
}

}  // namespace pdbench
