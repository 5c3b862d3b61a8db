#include "bench/compare/fingerprint.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <sstream>

namespace pdbench::compare {

namespace {

// JSON pointers into meta.json.
const char* const kFields[] = {
    "/fingerprint/cpu/model",    "/fingerprint/cpu/logical_cpus", "/fingerprint/cpu/flags",
    "/fingerprint/openmp_max_threads", "/fingerprint/compiler",   "/fingerprint/build_type",
    "/fingerprint/onednn",       "/fingerprint/gemv_isa",         "/fingerprint/limits/method",
    "/model/sha256",
};

// The value at `pointer`, or null when absent (a null counts as absent).
nlohmann::json at(const nlohmann::json& meta, const char* pointer) {
  const nlohmann::json::json_pointer p(pointer);
  return meta.contains(p) ? meta.at(p) : nlohmann::json(nullptr);
}

std::string text(const nlohmann::json& v) {
  if (v.is_null()) return "(absent)";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::set<std::string> words(const std::string& s) {
  std::istringstream in(s);
  return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}

// Long word lists (the CPU flags run to a thousand characters) are shown as
// the words only one side has.
void shorten(std::string& a, std::string& b) {
  constexpr size_t kMax = 80;
  if (a.size() <= kMax && b.size() <= kMax) return;
  const std::set<std::string> wa = words(a), wb = words(b);
  const auto only = [](const std::set<std::string>& x, const std::set<std::string>& y) {
    std::string out = "only here:";
    for (const auto& w : x)
      if (!y.contains(w)) out += " " + w;
    return out;
  };
  a = only(wa, wb);
  b = only(wb, wa);
}

}  // namespace

std::vector<FieldDifference> fingerprint_differences(const nlohmann::json& base_meta, const nlohmann::json& new_meta) {
  std::vector<FieldDifference> out;
  for (const char* field : kFields) {
    const nlohmann::json a = at(base_meta, field), b = at(new_meta, field);
    if (a == b) continue;
    std::string ta = text(a), tb = text(b);
    shorten(ta, tb);
    out.push_back({std::string(field).substr(1), ta, tb, !a.is_null() && !b.is_null()});
  }
  return out;
}

bool any_mismatch(const std::vector<FieldDifference>& differences) {
  return std::any_of(differences.begin(), differences.end(), [](const auto& d) { return d.mismatch; });
}

}  // namespace pdbench::compare
