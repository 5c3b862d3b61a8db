// pdbench: command-line entry point; each subcommand lives in its own file.
#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  CLI::App app{"pdbench: a CPU engine for llama-family models and a prefill/decode benchmark harness"};
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
