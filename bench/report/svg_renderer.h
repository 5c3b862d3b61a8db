#pragma once
// Vega-Lite specs to SVG files, by running reports/render-svg.mjs with
// Node.js (the same Vega the HTML page uses, so images match the page).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pdbench::report {

struct SvgJob {
  nlohmann::json spec;
  std::string path;
};

// Throws pdbench::Error when node is not installed or rendering fails.
void render_svgs(const std::vector<SvgJob>& jobs);

}  // namespace pdbench::report
