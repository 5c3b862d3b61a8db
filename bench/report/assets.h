#pragma once
// Files the report needs from the source tree's reports/ folder: the
// Vega, Vega-Lite and vega-embed builds installed by `npm ci --prefix
// reports` (scripts/setup.sh) and render-svg.mjs.
#include <string>

namespace pdbench::report {

// reports/ in the source tree this binary was built from.
std::string reports_dir();

// reports/RELATIVE, checked to exist; the error says how to install it.
std::string asset_path(const std::string& relative);
std::string read_asset(const std::string& relative);

}  // namespace pdbench::report
