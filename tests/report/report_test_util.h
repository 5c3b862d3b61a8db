#pragma once
// Helpers shared by the report tests: fixture paths, file text, and the
// chart specs a page embeds.
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_paths.h"

namespace pdbench::report::test_util {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string fixture(const std::string& name) { return test::data_path("results-fixture/" + name); }

// The chart specs embedded in the page, by id (std::regex would recurse
// through the megabyte of inlined scripts).
inline std::map<std::string, nlohmann::json> embedded_specs(const std::string& html) {
  std::map<std::string, nlohmann::json> specs;
  const std::string open = "<script type=\"application/json\" id=\"spec-";
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const size_t id_end = html.find('"', at + open.size());
    const size_t body = html.find('>', id_end) + 1;
    specs[html.substr(at + open.size(), id_end - at - open.size())] =
        nlohmann::json::parse(html.substr(body, html.find("</script>", body) - body));
  }
  return specs;
}

}  // namespace pdbench::report::test_util
