#pragma once
// Reads the [target] table (scenarios/README.md, "Target") with the
// scenario reader's helpers, which name FILE:LINE and the key in every
// error. Included by scenario.cpp only.
#include <cmath>
#include <string>
#include <toml++/toml.h>

#include "bench/runner/csv_table.h"
#include "bench/runner/scenario.h"
#include "bench/runner/target.h"
#include "engine/util/error.h"

namespace pdbench::runner {

template <class Reader>
void read_target_table(const Reader& r, const toml::table& t, Target& out) {
  r.only_keys(t, "target");
  out.line = static_cast<int>(t.source().begin.line);
  if (const auto* n = t.get("kind")) {
    out.kind = r.string(*n, "kind");
    if (out.kind != "engine" && out.kind != "openai") r.fail(*n, "kind", "= \"" + out.kind + "\" is not one of: engine, openai");
  }
  const auto remote_only = [&](const char* key) {
    if (const auto* n = t.get(key); n != nullptr && !out.remote())
      r.fail(*n, key, "needs kind = \"openai\" (the in-process engine has no " + std::string(key) + ")");
  };
  for (const char* key : {"url", "model", "timeout_s"}) remote_only(key);
  if (const auto* n = t.get("url")) {
    out.url = r.string(*n, "url");
    try {
      parse_target_url(out.url);
    } catch (const Error& e) {
      r.fail(*n, "url", e.what());
    }
  } else if (out.remote()) {
    r.fail(t, "url", "is needed with kind = \"openai\" (as \"http://127.0.0.1:8080\")");
  }
  if (const auto* n = t.get("model")) {
    out.model = r.string(*n, "model");
    if (out.model.empty()) r.fail(*n, "model", "must not be empty (leave it out for the server's first model)");
  }
  if (const auto* n = t.get("timeout_s")) {
    out.timeout_s = r.number(*n, "timeout_s");
    if (!(out.timeout_s > 0) || !std::isfinite(out.timeout_s))
      r.fail(*n, "timeout_s", "must be a number of seconds above 0, got " + csv_number(out.timeout_s));
  }
}

}  // namespace pdbench::runner

namespace pdbench::runner {

// What a remote target cannot be asked for, after the whole file is read
// and the command line applied: axes that set up this process's engine
// (KV cache, weights, threads, context depth, batch copies) and
// [accuracy]. Errors name FILE:LINE and the key.
void check_target(const Scenario& s);

}  // namespace pdbench::runner
