#include "bench/runner/models.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "engine/format/gguf.h"
#include "engine/model/synthetic_model.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace fs = std::filesystem;

std::string pdbench_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && fs::path(xdg).is_absolute()) return (fs::path(xdg) / "pdbench").string();
  const char* home = std::getenv("HOME");
  return home && *home ? (fs::path(home) / ".cache" / "pdbench").string() : std::string();
}

std::string model_cache_dir() {
  const std::string dir = pdbench_cache_dir();
  if (dir.empty()) throw Error("no model cache folder: set XDG_CACHE_HOME or HOME");
  return (fs::path(dir) / "models").string();
}

std::string synthetic_model_path(const std::string& like, const std::string& type, uint64_t seed) {
  return (fs::path(model_cache_dir()) / (like + "-" + type + "-s" + std::to_string(seed) + ".gguf")).string();
}

std::string synthetic_type_for(const Scenario& s, const std::string& weight_type) {
  return weight_type == "file" ? s.model_type : weight_type;
}

namespace {

// Whether a cached file's matrices have the types its mix gives them now.
// One cached before a name changed meaning (q4_0 meant every matrix q4_0
// before it meant llama-quantize's mix) is written again, not run as the
// other file.
bool has_mix_types(const std::string& path, const SyntheticSpec& spec) {
  const auto file = gguf::GgufFile::open(path);
  const MixModel model = mix_model(spec.config);
  for (const gguf::TensorInfo& t : file.tensors())
    if (t.shape.size() >= 2 && t.type != mix_tensor_type(spec.mix, model, t.name, t.shape[0])) return false;
  return true;
}

}  // namespace

std::string model_file_for(const Scenario& s, const std::string& weight_type, std::FILE* progress) {
  if (s.model_like.empty()) return s.model;
  const std::string type = synthetic_type_for(s, weight_type);
  const std::string path = synthetic_model_path(s.model_like, type, s.model_seed);
  const SyntheticSpec spec{s.model_like, preset_config(s.model_like), quant_mix(type), s.model_seed};
  if (fs::exists(path) && has_mix_types(path, spec)) return path;
  if (progress) {
    std::fprintf(progress, "generating synthetic %s %s (seed %llu) into %s, once\n", s.model_like.c_str(),
                 type.c_str(), static_cast<unsigned long long>(s.model_seed), path.c_str());
    std::fflush(progress);
  }
  const auto t0 = std::chrono::steady_clock::now();
  fs::create_directories(fs::path(path).parent_path());
  write_synthetic_model(spec, path);
  if (progress)
    std::fprintf(progress, "generated %s in %.1f s\n", path.c_str(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return path;
}

}  // namespace pdbench::runner
