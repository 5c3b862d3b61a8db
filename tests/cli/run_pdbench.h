#pragma once
// The pdbench binary run as a user runs it, from a shell command line, for
// the CLI tests (PDBENCH_BIN is its path, set by tests/cli/CMakeLists.txt).
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace pdbench::test {

struct CommandResult {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs pdbench with a shell-quoted argument string.
inline CommandResult pdbench(const std::string& args) {
  const std::string err_path = std::filesystem::temp_directory_path() / ("pdbench-cli-err-" + std::to_string(::getpid()));
  const std::string cmd = std::string(PDBENCH_BIN) + " " + args + " 2>" + err_path;
  CommandResult r{};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  r.err.assign(std::istreambuf_iterator<char>(err), {});
  std::filesystem::remove(err_path);
  return r;
}

inline std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace pdbench::test
