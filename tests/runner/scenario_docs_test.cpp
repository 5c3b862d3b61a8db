// scenarios/README.md against the parser: every table's keys documented and
// every documented key accepted, and each key whose type column lists its
// values (`on` `off`) listing exactly the values the parser accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/runner/scenario.h"
#include "bench/runner/scenario_keys.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

struct DocumentedKey {
  std::string table;  // as scenario_tables() names it
  std::string key;
  std::string type;  // the table's second column
};

// The backquoted words of a cell, quotes inside them dropped.
std::vector<std::string> quoted_words(const std::string& cell) {
  std::vector<std::string> out;
  static const std::regex word("`\"?([^`\"]+)\"?`");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), word); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

// The table a README line starts, or nothing: "## [model]", "## Top level",
// "`[load]`:", and "| key (`[sweep]`) |" for the load axes.
std::optional<std::string> table_started_by(const std::string& line) {
  static const std::regex heading("^## \\[([a-z_.A-Z]+)\\]"), intro("^`\\[([a-z]+)\\]`"), axes("^\\| key \\(`\\[([a-z]+)\\]`\\)");
  std::smatch m;
  if (line == "## Top level") return "";
  if (std::regex_search(line, m, heading) || std::regex_search(line, m, intro) || std::regex_search(line, m, axes))
    return m[1].str();
  return std::nullopt;
}

// Rows of the key tables in scenarios/README.md.
std::vector<DocumentedKey> documented_keys() {
  std::istringstream readme(test::read_file(test::source_path("scenarios/README.md")));
  std::vector<DocumentedKey> out;
  std::optional<std::string> table;
  static const std::regex row("^\\| `([a-z_0-9]+)` \\| ([^|]*) \\|");
  for (std::string line; std::getline(readme, line);) {
    if (line.starts_with("## ")) table.reset();
    if (auto started = table_started_by(line)) table = started;
    std::smatch m;
    if (table && std::regex_search(line, m, row)) out.push_back({*table, m[1], m[2]});
  }
  return out;
}

std::set<std::string> keys_of(const std::vector<DocumentedKey>& docs, const std::string& table) {
  std::set<std::string> out;
  for (const auto& d : docs)
    if (d.table == table) out.insert(d.key);
  return out;
}

TEST(ScenarioDocs, EveryTableDocumentsExactlyTheKeysTheParserAccepts) {
  const std::vector<DocumentedKey> docs = documented_keys();
  for (const std::string& table : scenario_tables()) {
    std::set<std::string> accepted(scenario_keys(table).begin(), scenario_keys(table).end());
    std::set<std::string> documented = keys_of(docs, table);
    if (table.empty())  // the top level's tables have sections of their own
      for (const std::string& name : scenario_tables())
        if (!name.empty()) documented.insert(name.substr(0, name.find('.')));
    EXPECT_EQ(documented, accepted) << "table [" << table << "] in scenarios/README.md";
  }
  for (const auto& d : docs)
    EXPECT_NE(std::find(scenario_tables().begin(), scenario_tables().end(), d.table), scenario_tables().end())
        << "README documents a table [" << d.table << "] the parser does not have";
}

// The values the parser lists when it refuses one, from its error
// ("... is not one of: on, off").
std::set<std::string> accepted_values(const std::string& table, const std::string& key) {
  std::string toml = "[model]\nlike = \"smollm2-135m\"\ntype = \"q8_0\"\n";
  const std::string entry = key + " = \"no-such-value\"\n";
  toml = table.empty() ? entry + toml : toml + "[" + table + "]\n" + entry;
  try {
    parse_scenario(toml, "docs.toml");
  } catch (const Error& e) {
    const std::string what = e.what();
    const size_t at = what.find("is not one of: ");
    if (at == std::string::npos) return {};
    std::set<std::string> out;
    std::istringstream list(what.substr(at + 15));
    for (std::string v; std::getline(list, v, ',');) out.insert(v.substr(v.find_first_not_of(' ')));
    return out;
  }
  return {};
}

TEST(ScenarioDocs, ListedValuesAreTheOnesTheParserAccepts) {
  static const std::regex only_values("^(`[^`]+`( or | )?)+$");
  std::vector<std::string> previous;
  size_t checked = 0;
  for (const auto& d : documented_keys()) {
    std::vector<std::string> values;
    if (d.type == "same") values = previous;
    else if (std::regex_match(d.type, only_values)) values = quoted_words(d.type);
    previous = values;
    if (values.empty()) continue;
    EXPECT_EQ(std::set<std::string>(values.begin(), values.end()), accepted_values(d.table, d.key))
        << "[" << d.table << "] " << d.key << " in scenarios/README.md";
    ++checked;
  }
  EXPECT_GE(checked, 8u) << "the README's value lists were not found";
}

}  // namespace
}  // namespace pdbench::runner
