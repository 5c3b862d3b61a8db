// The machine's load as meta.json records it and the notes that qualify a
// run: a busy machine, a quiet one, one not recorded, unstable warm-ups.
#include "bench/runner/machine_load.h"

#include <gtest/gtest.h>

namespace pdbench::runner {
namespace {

// stable_by_case: "1" stable in 4 runs, "0" not stable in 10, "skipped" no warm-up.
Table summary_with_warmups(const std::vector<std::pair<std::string, std::string>>& stable_by_case) {
  Table t;
  t.columns = {"case_id", "warmup_runs", "warmup_stable"};
  for (const auto& [id, stable] : stable_by_case)
    t.rows.push_back({id, stable == "1" ? "4" : stable == "0" ? "10" : "0", stable == "1" ? "1" : "0"});
  return t;
}

TEST(MachineLoad, OtherProcessesAreTheMachinesBusyTimeLessThisProcesss) {
  const CpuReading from{10, 100, 5, 0.5}, to{12, 103, 6, 0.7};  // 3 CPU-seconds busy, 1 of them ours, over 2 s
  EXPECT_DOUBLE_EQ(other_cpus(from, to), 1.0);
  EXPECT_DOUBLE_EQ(other_cpus(to, to), 0.0);
}

TEST(MachineLoad, WhatItRecordsHasTheFieldsMetaJsonChecks) {
  MachineLoad load;
  nlohmann::json j = load.json();
  EXPECT_TRUE(j["during"].is_null());
  EXPECT_TRUE(j["before"]["other_cpus"].is_number());
  load.measurements_start();
  load.between_runs();
  j = load.json();
  EXPECT_GE(j["before"]["seconds"].get<double>(), MachineLoad::kMinBeforeSeconds);
  for (const char* key : {"seconds", "other_cpus", "other_cpus_peak", "loadavg_1m"})
    EXPECT_TRUE(j["during"][key].is_number()) << key;
  EXPECT_TRUE(j["busy"].is_boolean());
}

TEST(MachineLoad, NotesSayBusyOrQuietAndNameUnstableAndSkippedWarmups) {
  nlohmann::json meta = {{"machine_load",
                          {{"logical_cpus", 2},
                           {"busy_limit_cpus", 0.25},
                           {"busy", true},
                           {"before", {{"seconds", 0.3}, {"other_cpus", 0.1}, {"loadavg_1m", 1.5}}},
                           {"during", {{"seconds", 60}, {"other_cpus", 0.9}, {"other_cpus_peak", 1.8}, {"loadavg_1m", 2.9}}}}}};
  auto notes = run_notes(meta, summary_with_warmups({{"a", "1"}, {"b", "0"}}));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].rfind("busy machine", 0), 0u) << notes[0];
  EXPECT_NE(notes[0].find("0.90 during them (busiest second 1.80)"), std::string::npos) << notes[0];
  EXPECT_EQ(notes[1], "warm-up: 10 runs, not stable in 1 of 2 cases (warmup_max reached before the last runs agreed; "
                      "their repetitions may still drift): b");
  notes = run_notes(meta, summary_with_warmups({{"a", "skipped"}, {"b", "0"}, {"c", "skipped"}}));
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[1].rfind("warm-up: 10 runs, not stable in 1 of 3 cases", 0), 0u) << notes[1];
  EXPECT_EQ(notes[2], "warm-up: none in 2 of 3 cases (warmup_max = 0; their first repetitions may run on cold caches): a, c");
  meta["machine_load"]["busy"] = false;
  notes = run_notes(meta, summary_with_warmups({{"a", "1"}}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("machine quiet", 0), 0u) << notes[0];
  EXPECT_EQ(run_notes(nlohmann::json::object(), Table{})[0].rfind("machine load: not recorded", 0), 0u);
}

// A target server on this machine works while the client measures it: its
// CPU time during the measurements is said to be the server's and makes
// nothing busy; other processes before them still do.
TEST(MachineLoad, AServerOnThisMachineIsNotOtherLoad) {
  MachineLoad load(true);
  load.measurements_start();
  const nlohmann::json j = load.json();
  EXPECT_TRUE(j["server_here"].get<bool>());
  EXPECT_EQ(j["busy"].get<bool>(), j["before"]["other_cpus"].get<double>() >= kBusyOtherCpus);
  EXPECT_FALSE(MachineLoad().json().contains("server_here"));
  const nlohmann::json meta = {{"machine_load",
                                {{"logical_cpus", 2},
                                 {"busy", false},
                                 {"server_here", true},
                                 {"before", {{"other_cpus", 0.0}, {"loadavg_1m", 0.5}}},
                                 {"during", {{"other_cpus", 0.97}, {"other_cpus_peak", 1.0}, {"loadavg_1m", 1.2}}}}}};
  const std::string note = run_notes(meta, Table{})[0];
  EXPECT_EQ(note.rfind("machine quiet", 0), 0u) << note;
  EXPECT_NE(note.find("0.97 during them, the target server on this machine among them (busiest"), std::string::npos) << note;
}

}  // namespace
}  // namespace pdbench::runner
