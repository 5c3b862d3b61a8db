#pragma once
// Each subcommand registers itself on the app; its callback does the work
// and throws pdbench::Error on bad input (main reports it and exits 1).
#include <CLI/CLI.hpp>

namespace pdbench::cli {

void register_generate(CLI::App& app);
void register_tokenize(CLI::App& app);
void register_explain(CLI::App& app);
void register_make_model(CLI::App& app);
void register_run(CLI::App& app);
void register_sysinfo(CLI::App& app);
void register_merge(CLI::App& app);
void register_compare(CLI::App& app);
void register_report(CLI::App& app);

}  // namespace pdbench::cli
