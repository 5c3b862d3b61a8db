// Sweep expansion order, stable case ids, and shards covering every case once.
#include <gtest/gtest.h>

#include <set>

#include "bench/runner/sweep.h"
#include "engine/util/error.h"

namespace pdbench::runner {
namespace {

Scenario three_axes() {
  Scenario s = default_scenario();
  s.prompt_tokens.values = {16, 64};
  s.output_tokens.values = {8};
  s.threads.values = {1, 2, 4};
  s.sampling.values = {"greedy", "default"};
  return s;
}

TEST(Sweep, CartesianProductLastAxisFastest) {
  const std::vector<Case> cases = expand(three_axes());
  ASSERT_EQ(cases.size(), 12u);
  EXPECT_EQ(cases[0].id, "p16_n8_d0_t1_greedy");
  EXPECT_EQ(cases[1].id, "p16_n8_d0_t1_default");
  EXPECT_EQ(cases[2].id, "p16_n8_d0_t2_greedy");
  EXPECT_EQ(cases[11].id, "p64_n8_d0_t4_default");
  std::set<std::string> ids;
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i].index, i);
    ids.insert(cases[i].id);
  }
  EXPECT_EQ(ids.size(), cases.size());
}

TEST(Sweep, IdDependsOnlyOnTheCaseValues) {
  Scenario more = three_axes();
  more.batch.values = {1, 4};
  const std::vector<Case> cases = expand(more);
  ASSERT_EQ(cases.size(), 24u);
  EXPECT_EQ(cases[0].id, "p16_n8_d0_t1_greedy");  // batch 1 is the default: same id as before
  EXPECT_EQ(cases[2].id, "p16_n8_d0_t1_b4_greedy");
}

TEST(Sweep, PrefixSharingPairsOffAndOnForEachSharedPrefix) {
  Scenario s = default_scenario();
  s.prompt_tokens.values = {64};
  s.output_tokens.values = {8};
  s.threads.values = {1};
  s.shared_prefix_tokens.values = {0, 48};
  s.prefix_sharing.values = {"off", "on"};
  const std::vector<Case> cases = expand(s);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].id, "p64_n8_d0_t1_greedy");  // the defaults: the id every earlier run had
  EXPECT_EQ(cases[1].id, "p64_n8_d0_t1_share_greedy");
  EXPECT_EQ(cases[2].id, "p64_n8_d0_t1_pre48_greedy");
  EXPECT_EQ(cases[3].id, "p64_n8_d0_t1_pre48_share_greedy");
  EXPECT_EQ(cases[3].shared_prefix_tokens, 48u);
  EXPECT_EQ(cases[3].prefix_sharing, "on");
}

TEST(Sweep, ShardsPartitionTheCases) {
  const std::vector<Case> all = expand(three_axes());
  std::multiset<std::string> seen;
  for (size_t k = 1; k <= 5; ++k)
    for (const Case& c : select_shard(all, {k, 5})) seen.insert(c.id);
  EXPECT_EQ(seen.size(), all.size());
  for (const Case& c : all) EXPECT_EQ(seen.count(c.id), 1u);
  EXPECT_EQ(select_shard(all, parse_shard("2/3")).front().index, 1u);
}

TEST(Sweep, BadShardIsAnError) {
  for (const char* bad : {"0/2", "3/2", "1/0", "1-2", "a/b", "1/2x"}) EXPECT_THROW(parse_shard(bad), Error) << bad;
}

}  // namespace
}  // namespace pdbench::runner
