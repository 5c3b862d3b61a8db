#include "server/stop_text.h"

#include <gtest/gtest.h>

namespace pdbench::server {
namespace {

TEST(StopText, HoldsAPossibleStartAndCutsBeforeTheStop) {
  StopText s({"END"});
  EXPECT_EQ(s.push("abc E"), "abc ");
  EXPECT_EQ(s.push("N"), "");
  EXPECT_EQ(s.push("Dzzz"), "");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.push("more"), "");
  EXPECT_EQ(s.finish(), "");
}

TEST(StopText, ReleasesAFalseStart) {
  StopText s({"END", "xy"});
  EXPECT_EQ(s.push("EN"), "");
  EXPECT_EQ(s.push("x"), "EN");
  EXPECT_EQ(s.push("z"), "xz");
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.push("E"), "");
  EXPECT_EQ(s.finish(), "E");
}

TEST(StopText, TheEarliestStopWins) {
  StopText s({"cd", "b"});
  EXPECT_EQ(s.push("abcd"), "a");
}

}  // namespace
}  // namespace pdbench::server
