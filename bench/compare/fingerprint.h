#pragma once
// Whether two results folders were measured under the same conditions:
// CPU model, logical CPUs and ISA flags, OpenMP threads, compiler and build
// type, oneDNN, the peak-measuring ISA, and the model file's hash, all read
// from meta.json. A field counts only when both sides have it; a field one
// side lacks is reported as a note.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pdbench::compare {

struct FieldDifference {
  std::string field;  // e.g. "fingerprint/cpu/model"
  std::string base;   // the value as JSON text, or "(absent)"
  std::string next;
  bool mismatch = false;  // both present and different (else one side lacks it)
  bool expected = false;  // differs as the comparison asked (cases paired across models)
};

std::vector<FieldDifference> fingerprint_differences(const nlohmann::json& base_meta, const nlohmann::json& new_meta);

bool any_mismatch(const std::vector<FieldDifference>& differences);

}  // namespace pdbench::compare
