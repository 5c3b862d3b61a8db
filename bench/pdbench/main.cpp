// pdbench: command-line entry point; each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/llama_flags.h"
#include "bench/pdbench/stop_signals.h"
#include "bench/runner/version.h"

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, which
  // the writers report, instead of the signal killing the process mid-file.
  std::signal(SIGXFSZ, SIG_IGN);
  pdbench::cli::end_on_signals();
  CLI::App app{"pdbench: a CPU engine for llama-family models and a prefill/decode benchmark harness.\n"
               "Run 'pdbench SUBCOMMAND --help' for each subcommand's options."};
  app.set_version_flag("-V,--version", pdbench::runner::version_line(), "Print the version, commit and oneDNN version");
  app.require_subcommand(1);
  pdbench::cli::register_generate(app);
  pdbench::cli::register_tokenize(app);
  pdbench::cli::register_explain(app);
  pdbench::cli::register_make_model(app);
  pdbench::cli::register_run(app);
  pdbench::cli::register_sysinfo(app);
  pdbench::cli::register_merge(app);
  pdbench::cli::register_compare(app);
  pdbench::cli::register_report(app);
  pdbench::cli::register_perplexity(app);
  pdbench::cli::register_serve(app);
  // CLI11 would only say "a subcommand is required"; name the unknown word.
  std::string known;
  bool is_known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    known += (known.empty() ? "" : ", ") + sub->get_name();
    is_known = is_known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !is_known) {
    std::fprintf(stderr, "pdbench: error: unknown subcommand '%s' (choose from: %s)\n", argv[1], known.c_str());
    return 2;
  }
  try {
    std::vector<std::string> args = pdbench::cli::translate_llama_flags(argc, argv);
    std::vector<char*> translated;
    for (std::string& a : args) translated.push_back(a.data());
    app.parse(static_cast<int>(translated.size()), translated.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const pdbench::cli::ExitStatus& e) {
    return e.code;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "pdbench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
