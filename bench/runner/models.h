#pragma once
// The model file each case runs: the scenario's file, or a synthetic model
// (`like` + type + seed) generated once into the model cache and reused.
#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/runner/scenario.h"

namespace pdbench::runner {

// pdbench's cache folder: $XDG_CACHE_HOME/pdbench (an absolute one), else
// ~/.cache/pdbench; "" when neither variable is set.
std::string pdbench_cache_dir();
// Its models/ folder; throws pdbench::Error when there is no cache folder.
std::string model_cache_dir();

// MODEL_CACHE/<like>-<type>-s<seed>.gguf
std::string synthetic_model_path(const std::string& like, const std::string& type, uint64_t seed);

// The weight type a case's `weight_type` value runs: `file` is the
// scenario's [model] type for a synthetic model.
std::string synthetic_type_for(const Scenario& scenario, const std::string& weight_type);

// The model file for cases with this weight_type: the scenario's path, or the
// cached synthetic file, written first (atomically, with a note on
// `progress` when not null) when absent or when its matrices' types are not
// the ones its type name gives them now.
std::string model_file_for(const Scenario& scenario, const std::string& weight_type, std::FILE* progress);

}  // namespace pdbench::runner
