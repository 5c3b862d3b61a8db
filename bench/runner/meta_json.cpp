#include "bench/runner/meta_json.h"

#include <filesystem>
#include <fstream>
#include <string_view>

#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench::runner {

namespace {

enum class Kind { Object, Array, String, Number, Bool, StringOrNull, ObjectOrNull };

struct Field {
  std::string_view pointer;
  Kind kind;
};

// Parents before their children: a child is looked at only once its
// parent is known to be an object.
constexpr Field kFields[] = {
    {"/pdbench_version", Kind::String},
    {"/command_line", Kind::String},
    {"/scenario", Kind::Object},
    {"/scenario/name", Kind::String},
    {"/scenario/path", Kind::String},
    {"/scenario/sha256", Kind::String},
    {"/scenario/text", Kind::String},
    {"/model", Kind::Object},
    {"/model/path", Kind::String},
    {"/model/sha256", Kind::String},
    {"/model/file_bytes", Kind::Number},
    {"/model/weights", Kind::String},
    {"/model/weights_bytes", Kind::Number},
    {"/model/gemm_precision", Kind::String},
    {"/model/architecture", Kind::String},
    {"/model/layers", Kind::Number},
    {"/model/dim", Kind::Number},
    {"/model/context_length", Kind::Number},
    {"/model/like", Kind::String},
    {"/model/type", Kind::String},
    {"/model/seed", Kind::Number},
    {"/models", Kind::Object},
    {"/shard", Kind::String},
    {"/cases", Kind::Number},
    {"/repetitions", Kind::Number},
    {"/started_at", Kind::String},
    {"/finished_at", Kind::StringOrNull},
    {"/resumed_at", Kind::String},
    {"/rss_high_water_reset", Kind::Bool},
    {"/machine_load", Kind::Object},
    {"/machine_load/logical_cpus", Kind::Number},
    {"/machine_load/busy_limit_cpus", Kind::Number},
    {"/machine_load/busy", Kind::Bool},
    {"/machine_load/before", Kind::Object},
    {"/machine_load/before/seconds", Kind::Number},
    {"/machine_load/before/other_cpus", Kind::Number},
    {"/machine_load/before/loadavg_1m", Kind::Number},
    {"/machine_load/during", Kind::ObjectOrNull},
    {"/machine_load/during/seconds", Kind::Number},
    {"/machine_load/during/other_cpus", Kind::Number},
    {"/machine_load/during/other_cpus_peak", Kind::Number},
    {"/machine_load/during/loadavg_1m", Kind::Number},
    {"/trace", Kind::Object},
    {"/target", Kind::Object},
    {"/target/kind", Kind::String},
    {"/target/url", Kind::String},
    {"/target/model", Kind::String},
    {"/target/server_model", Kind::String},
    {"/target/timeout_s", Kind::Number},
    {"/merged_from", Kind::Array},
    {"/fingerprint", Kind::Object},
    {"/fingerprint/cpu", Kind::Object},
    {"/fingerprint/cpu/model", Kind::String},
    {"/fingerprint/cpu/logical_cpus", Kind::Number},
    {"/fingerprint/cpu/flags", Kind::String},
    {"/fingerprint/caches", Kind::Array},
    {"/fingerprint/compiler", Kind::String},
    {"/fingerprint/build_type", Kind::String},
    {"/fingerprint/onednn", Kind::String},
    {"/fingerprint/gemv_isa", Kind::String},
    {"/fingerprint/openmp_max_threads", Kind::Number},
    {"/fingerprint/git_commit", Kind::String},
    {"/fingerprint/git_dirty", Kind::Bool},
    {"/fingerprint/limits", Kind::ObjectOrNull},
    {"/fingerprint/limits/method", Kind::String},
    {"/fingerprint/limits/measured_unix_s", Kind::Number},
    {"/fingerprint/limits/loadavg_1m", Kind::Number},
    {"/fingerprint/limits/other_cpus", Kind::Number},
};

bool has_kind(const nlohmann::json& v, Kind kind) {
  switch (kind) {
    case Kind::Object: return v.is_object();
    case Kind::Array: return v.is_array();
    case Kind::String: return v.is_string();
    case Kind::Number: return v.is_number();
    case Kind::Bool: return v.is_boolean();
    case Kind::StringOrNull: return v.is_string() || v.is_null();
    case Kind::ObjectOrNull: return v.is_object() || v.is_null();
  }
  return false;
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::Object: return "an object";
    case Kind::Array: return "an array";
    case Kind::String: return "a string";
    case Kind::Number: return "a number";
    case Kind::Bool: return "true or false";
    case Kind::StringOrNull: return "a string or null";
    case Kind::ObjectOrNull: return "an object or null";
  }
  return "?";
}

// The value at a pointer whose parent is an object (or the root), if there.
const nlohmann::json* find(const nlohmann::json& meta, std::string_view pointer) {
  const size_t slash = pointer.rfind('/');
  const nlohmann::json* parent = &meta;
  if (slash > 0) {
    const nlohmann::json::json_pointer up{std::string(pointer.substr(0, slash))};
    if (!meta.contains(up) || !meta.at(up).is_object()) return nullptr;
    parent = &meta.at(up);
  }
  const auto it = parent->find(std::string(pointer.substr(slash + 1)));
  return it == parent->end() ? nullptr : &*it;
}

}  // namespace

void check_meta_types(const nlohmann::json& meta, const std::string& path) {
  if (!meta.is_object()) fail_file(path, "not a JSON object");
  for (const Field& f : kFields) {
    const nlohmann::json* v = find(meta, f.pointer);
    if (v != nullptr && !has_kind(*v, f.kind))
      fail_file(path, "key '" + std::string(f.pointer.substr(1)) + "' must be " + std::string(kind_name(f.kind)) +
                          ", not " + v->type_name());
  }
}

nlohmann::json read_meta_json(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "meta.json").string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail_file(path, "missing (not a pdbench results folder?)");
  require_regular_file(path);
  std::ifstream in(path);
  if (!in) fail_file(path, "cannot read");
  nlohmann::json meta = nlohmann::json::parse(in, nullptr, false);
  if (meta.is_discarded()) fail_file(path, "not valid JSON");
  check_meta_types(meta, path);
  return meta;
}

}  // namespace pdbench::runner
