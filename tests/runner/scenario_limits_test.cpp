// Hostile scenario files: deep nesting and huge files are clear errors
// naming the file (and line), never a crash or a huge read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "bench/runner/scenario.h"
#include "bench/runner/scenario_limits.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_scenario(text, "deep.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string repeated(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(ScenarioLimits, NestedArraysAndInlineTablesStopAtTomlppsDepthLimit) {
  EXPECT_EQ(parse_error("x = " + repeated("[", 300) + repeated("]", 300)),
            "deep.toml:1: Error while parsing value: exceeded maximum nested value depth of 256 "
            "(TOML_MAX_NESTED_VALUES)");
  EXPECT_NE(parse_error("x = " + repeated("{a = ", 300) + "1" + repeated("}", 300)).find("maximum nested value depth"),
            std::string::npos);
}

// 100,000 levels crash toml++ 3.3 (stack overflow); the line cap stops them first.
TEST(ScenarioLimits, DeepDottedKeysAndTableHeadersAreStoppedByTheLineCap) {
  const std::string dotted = "[model]\npath = \"m.gguf\"\nx" + repeated(".a", 100000) + " = 1\n";
  EXPECT_EQ(parse_error(dotted), "deep.toml:3: line of 200005 bytes is longer than the limit of 4096 (it bounds how "
                                 "deep a dotted key or [table.header] can nest)");
  EXPECT_NE(parse_error("[x" + repeated(".a", 100000) + "]\n").find("deep.toml:1: line of 200003 bytes"),
            std::string::npos);
  // Within the cap a deep key parses, and is then an unknown key.
  EXPECT_NE(parse_error("x" + repeated(".a", 2000) + " = 1\n[model]\npath = \"m.gguf\"\n").find("unknown key 'x'"),
            std::string::npos);
}

TEST(ScenarioLimits, HugeFileIsAnErrorWithoutReadingItAll) {
  const std::string dir = test::temp_dir("scenario-limits");
  const std::string path = dir + "/huge.toml";
  {
    std::ofstream out(path);
    const std::string line = "# " + std::string(100, 'x') + "\n";
    for (size_t written = 0; written <= kMaxScenarioBytes; written += line.size()) out << line;
  }
  try {
    load_scenario(path);
    ADD_FAILURE() << "loaded " << path;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": scenario file is larger than the limit of 1048576 bytes");
  }
  try {
    load_scenario("/dev/zero");  // endless, and not a file: refused before it is opened
    ADD_FAILURE() << "loaded /dev/zero";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero: not a regular file");
  }
}

}  // namespace
}  // namespace pdbench::runner
