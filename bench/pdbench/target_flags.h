#pragma once
// pdbench run's flags for a remote target (scenarios/README.md, "Target"):
// --target URL sends the scenario's cases to an OpenAI-compatible server in
// place of the in-process engine, overriding the file's [target].
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

#include "bench/runner/scenario.h"

namespace pdbench::cli {

struct TargetFlags {
  std::string url;
  std::string model;
  std::optional<double> timeout_s;
};

void add_target_flags(CLI::App& cmd, TargetFlags& flags);

// --target makes the target kind "openai" at that URL; --target-model and
// --target-timeout-s override the file's [target] and need a remote one.
// Throws Error naming the flag for a bad URL or timeout.
void apply_target_flags(const TargetFlags& flags, runner::Scenario& s);

// The flags set, as command-line text (`add(flag, value)` for each).
void describe_target_flags(const TargetFlags& flags,
                           const std::function<void(const std::string&, const std::string&)>& add);

}  // namespace pdbench::cli
