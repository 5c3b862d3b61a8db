#pragma once
// Each subcommand registers itself on the app; its callback does the work
// and throws pdbench::Error on bad input (main reports it and exits 1).
#include <CLI/CLI.hpp>

namespace pdbench::cli {

// Thrown by a subcommand that has reported for itself and ends with another
// status than 0 (success) or 1 (an error main reports).
struct ExitStatus {
  int code;
};

void register_generate(CLI::App& app);
void register_tokenize(CLI::App& app);
void register_explain(CLI::App& app);
void register_make_model(CLI::App& app);
void register_run(CLI::App& app);
void register_sysinfo(CLI::App& app);
void register_merge(CLI::App& app);
void register_compare(CLI::App& app);
void register_report(CLI::App& app);
void register_perplexity(CLI::App& app);
void register_serve(CLI::App& app);

}  // namespace pdbench::cli
