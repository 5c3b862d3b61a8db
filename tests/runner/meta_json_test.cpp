// meta.json read back: a key of the wrong type is one error naming the file
// and the key, for every reader.
#include "bench/runner/meta_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

std::string error_of(const std::string& meta_text) {
  const std::string dir = test::temp_dir("meta-json");
  std::ofstream(dir + "/meta.json") << meta_text;
  std::string what;
  try {
    read_meta_json(dir);
  } catch (const Error& e) {
    what = e.what();
    const std::string prefix = dir + "/meta.json: ";
    if (what.starts_with(prefix)) what = what.substr(prefix.size());
  }
  return what;
}

TEST(MetaJson, TheFixturesReadBack) {
  for (const char* run : {"a", "b"})
    EXPECT_NO_THROW(read_meta_json(test::data_path(std::string("results-fixture/") + run)));
}

TEST(MetaJson, AKeyOfTheWrongTypeIsNamed) {
  EXPECT_EQ(error_of(R"({"fingerprint": []})"), "key 'fingerprint' must be an object, not array");
  EXPECT_EQ(error_of(R"({"fingerprint": {"cpu": {"model": 7}}})"), "key 'fingerprint/cpu/model' must be a string, not number");
  EXPECT_EQ(error_of(R"({"model": {"sha256": ["x"]}})"), "key 'model/sha256' must be a string, not array");
  EXPECT_EQ(error_of(R"({"scenario": "x"})"), "key 'scenario' must be an object, not string");
  EXPECT_EQ(error_of(R"({"cases": "3"})"), "key 'cases' must be a number, not string");
  EXPECT_EQ(error_of(R"({"finished_at": 1})"), "key 'finished_at' must be a string or null, not number");
  EXPECT_EQ(error_of(R"({"finished_at": null, "fingerprint": {"limits": null}})"), "");
  EXPECT_EQ(error_of(R"({"machine_load": {"busy": "yes"}})"), "key 'machine_load/busy' must be true or false, not string");
  EXPECT_EQ(error_of(R"({"machine_load": {"during": {"other_cpus": "1"}}})"),
            "key 'machine_load/during/other_cpus' must be a number, not string");
  EXPECT_EQ(error_of(R"({"machine_load": {"before": {"loadavg_1m": 0.5, "other_cpus": 0, "seconds": 0.3},
                         "during": null, "busy": false, "logical_cpus": 2, "busy_limit_cpus": 0.25}})"),
            "");
}

TEST(MetaJson, NotJsonOrNotAnObjectIsNamed) {
  EXPECT_EQ(error_of("{"), "not valid JSON");
  EXPECT_EQ(error_of("[1, 2]"), "not a JSON object");
  EXPECT_NE(error_of("").find("not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace pdbench::runner
