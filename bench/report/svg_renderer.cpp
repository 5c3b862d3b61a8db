#include "bench/report/svg_renderer.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bench/report/assets.h"
#include "bench/runner/csv_table.h"
#include "engine/util/error.h"

extern char** environ;

namespace pdbench::report {

void render_svgs(const std::vector<SvgJob>& jobs) {
  if (jobs.empty()) return;
  const std::string script = asset_path("render-svg.mjs");
  asset_path("node_modules/vega/package.json");
  asset_path("node_modules/vega-lite/package.json");
  nlohmann::json list = nlohmann::json::array();
  for (const auto& job : jobs) list.push_back({{"spec", job.spec}, {"svg", std::filesystem::absolute(job.path).string()}});
  const std::string jobs_path =
      (std::filesystem::temp_directory_path() / ("pdbench-report-svg-" + std::to_string(getpid()) + ".json")).string();
  runner::write_file_atomic(jobs_path, list.dump());

  std::string node = "node";
  char* argv[] = {node.data(), const_cast<char*>(script.c_str()), const_cast<char*>(jobs_path.c_str()), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "node", nullptr, nullptr, argv, environ);
  int status = 0;
  if (spawned == 0) waitpid(pid, &status, 0);
  std::filesystem::remove(jobs_path);
  if (spawned == ENOENT)
    throw Error("--md: 'node' is not on PATH; the SVG charts are drawn with Node.js (install the Debian packages "
                "nodejs and npm, e.g. with scripts/setup.sh)");
  if (spawned != 0) throw Error(std::string("--md: cannot start node: ") + std::strerror(spawned));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error("--md: node " + script + " failed (exit status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "); its message is above");
}

}  // namespace pdbench::report
