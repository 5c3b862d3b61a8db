#include "bench/pdbench/target_flags.h"

#include <cmath>

#include "bench/pdbench/options.h"
#include "engine/util/error.h"

namespace pdbench::cli {

void add_target_flags(CLI::App& cmd, TargetFlags& f) {
  const std::string group = "Target (scenarios/README.md, \"Target\")";
  cmd.add_option("--target", f.url, "Send the cases to this OpenAI-compatible server (http://HOST:PORT) instead of the engine")
      ->group(group);
  cmd.add_option("--target-model", f.model, "The model to name in its requests (default: the server's first /v1/models entry)")
      ->group(group);
  cmd.add_option("--target-timeout-s", f.timeout_s, "One request's time limit, seconds (default 600)")->group(group);
}

void apply_target_flags(const TargetFlags& f, runner::Scenario& s) {
  runner::Target& t = s.target;
  if (!f.url.empty()) {
    try {
      runner::parse_target_url(f.url);
    } catch (const Error& e) {
      throw Error(std::string("--target: ") + e.what());
    }
    t.kind = "openai";
    t.url = f.url;
    t.line = 0;
  }
  const bool overrides = !f.model.empty() || f.timeout_s;
  if (overrides && !t.remote())
    throw Error(std::string(!f.model.empty() ? "--target-model" : "--target-timeout-s") +
                " needs --target URL (or a scenario [target] with kind = \"openai\")");
  if (!f.model.empty()) t.model = f.model;
  if (f.timeout_s) {
    if (!(*f.timeout_s > 0) || !std::isfinite(*f.timeout_s))
      throw Error("--target-timeout-s: must be a number of seconds above 0, got " + short_number(*f.timeout_s));
    t.timeout_s = *f.timeout_s;
  }
}

void describe_target_flags(const TargetFlags& f, const std::function<void(const std::string&, const std::string&)>& add) {
  add("--target", f.url);
  add("--target-model", f.model);
  add("--target-timeout-s", f.timeout_s ? short_number(*f.timeout_s) : "");
}

}  // namespace pdbench::cli
