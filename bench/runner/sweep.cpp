#include "bench/runner/sweep.h"

#include <charconv>
#include <cstdio>

#include "engine/util/error.h"

namespace pdbench::runner {

std::string case_id(const Case& c) {
  std::string id = "p" + std::to_string(c.prompt_tokens) + "_n" + std::to_string(c.output_tokens) + "_d" +
                   std::to_string(c.context_depth) + "_t" + std::to_string(c.threads);
  if (c.batch != 1) id += "_b" + std::to_string(c.batch);
  if (c.kv_type_k != "f32") id += "_k" + c.kv_type_k;
  if (c.kv_type_v != "f32") id += "_v" + c.kv_type_v;
  if (c.kv_block != 0) id += "_blk" + std::to_string(c.kv_block);
  if (c.kv_capacity != 0) id += "_cap" + std::to_string(c.kv_capacity);
  if (c.kv_cache != "on") id += "_nocache";
  if (c.weight_type != "file") id += "_w" + c.weight_type;
  if (c.prefix_sharing != 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "_ps%g", c.prefix_sharing);
    id += buf;
  }
  return id + "_" + c.sampling;
}

std::vector<Case> expand(const Scenario& s) {
  std::vector<Case> cases;
  for (size_t p : s.prompt_tokens.values)
    for (size_t n : s.output_tokens.values)
      for (size_t d : s.context_depth.values)
        for (size_t t : s.threads.values)
          for (size_t b : s.batch.values)
            for (const auto& kk : s.kv_type_k.values)
              for (const auto& kv : s.kv_type_v.values)
                for (size_t blk : s.kv_block.values)
                  for (size_t cap : s.kv_capacity.values)
                    for (const auto& cache : s.kv_cache.values)
                      for (const auto& w : s.weight_type.values)
                        for (const auto& smp : s.sampling.values)
                          for (double ps : s.prefix_sharing.values) {
                            Case c{cases.size(), "", p, n, d, t, b, kk, kv, blk, cap, cache, w, smp, ps};
                            c.id = case_id(c);
                            cases.push_back(std::move(c));
                          }
  return cases;
}

Shard parse_shard(const std::string& text) {
  Shard s;
  const auto slash = text.find('/');
  const char* end = text.data() + text.size();
  bool ok = slash != std::string::npos;
  if (ok) {
    const auto a = std::from_chars(text.data(), text.data() + slash, s.k);
    const auto b = std::from_chars(text.data() + slash + 1, end, s.n);
    ok = a.ec == std::errc{} && a.ptr == text.data() + slash && b.ec == std::errc{} && b.ptr == end;
  }
  if (!ok || s.n == 0 || s.k == 0 || s.k > s.n)
    throw Error("--shard: expected k/n with 1 <= k <= n (e.g. 1/2), got '" + text + "'");
  return s;
}

std::vector<Case> select_shard(const std::vector<Case>& cases, Shard shard) {
  std::vector<Case> out;
  for (const Case& c : cases)
    if (c.index % shard.n == shard.k - 1) out.push_back(c);
  return out;
}

}  // namespace pdbench::runner
