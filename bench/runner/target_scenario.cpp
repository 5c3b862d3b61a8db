// The checks between a scenario's target and its axes (target_reader.h).
#include <functional>

#include "bench/runner/target_reader.h"

namespace pdbench::runner {

namespace {

// One axis a remote target refuses off its default, and why.
struct EngineOnlyAxis {
  const char* key;
  std::function<bool(const SweepAxes&)> off_default;
  std::function<int(const SweepAxes&)> line;
  const char* why;
};

template <class T>
EngineOnlyAxis engine_axis(const char* key, Axis<T> SweepAxes::*member, const char* why) {
  static const SweepAxes defaults;
  return {key, [member](const SweepAxes& a) { return (a.*member).values != (defaults.*member).values; },
          [member](const SweepAxes& a) { return (a.*member).line; }, why};
}

const char* const kServersKv = "a remote server's KV cache is set where the server starts (pdbench serve -c, -ctk, -ctv), not by its client";

const std::vector<EngineOnlyAxis>& engine_only_axes() {
  static const std::vector<EngineOnlyAxis> axes = {
      engine_axis("kv_type_k", &SweepAxes::kv_type_k, kServersKv),
      engine_axis("kv_type_v", &SweepAxes::kv_type_v, kServersKv),
      engine_axis("kv_block", &SweepAxes::kv_block, kServersKv),
      engine_axis("kv_capacity", &SweepAxes::kv_capacity, kServersKv),
      engine_axis("kv_cache", &SweepAxes::kv_cache, kServersKv),
      engine_axis("prefix_sharing", &SweepAxes::prefix_sharing, "prefix caching is the server's own setting"),
      engine_axis("weight_type", &SweepAxes::weight_type, "the server runs the weights it loaded"),
      engine_axis("threads", &SweepAxes::threads, "the server's threads are set where it starts"),
      engine_axis("context_depth", &SweepAxes::context_depth,
       "a request cannot fill a remote cache outside the timing; make the prompt longer instead"),
      engine_axis("batch", &SweepAxes::batch, "concurrent requests are the load axes' (requests, max_concurrency)"),
      {"prefill_chunk", [](const SweepAxes& a) { return a.load.prefill_chunk.values != std::vector<size_t>{0}; },
       [](const SweepAxes& a) { return a.load.prefill_chunk.line; },
       "a server's prefill chunk is set where it starts (pdbench serve --prefill-chunk)"},
  };
  return axes;
}

}  // namespace

void check_target(const Scenario& s) {
  if (!s.target.remote()) return;
  const std::string with = "cannot be set with [target] kind = \"openai\"";
  for (const SweepAxes* a : s.sweeps())
    for (const EngineOnlyAxis& axis : engine_only_axes())
      if (axis.off_default(*a))
        throw Error(where(s, axis.line(*a)) + ": key '" + axis.key + "' " + with + ": " + axis.why);
  if (s.accuracy)
    throw Error(where(s, s.accuracy->line) + ": [accuracy] " + with +
                ": it scores the local model's logits, which a server's completions do not return");
}

}  // namespace pdbench::runner
