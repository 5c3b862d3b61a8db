// Verdicts on synthetic samples with known differences; never runs the engine.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/compare/compare_table.h"
#include "bench/compare/markdown.h"
#include "engine/util/error.h"
#include "tests/compare/compare_test_util.h"

namespace pdbench::compare {
namespace {

using fixture::kQuiet;
using fixture::make_run;
using fixture::scaled;

// The same values in another order: an A/A pair.
std::vector<double> shuffled(std::vector<double> v) {
  std::reverse(v.begin(), v.end());
  std::rotate(v.begin(), v.begin() + 3, v.end());
  return v;
}

size_t count(const Comparison& c, const std::string& phase, Verdict v) {
  for (const auto& pc : c.by_phase())
    if (pc.phase == phase) return pc.count[static_cast<size_t>(v)];
  return 0;
}

// prefill-side columns at base scale, decode-side ones times `decode_factor`.
RunData prefill_decode_run(const std::string& label, const std::vector<double>& base, double decode_factor) {
  return make_run(label,
                  {{"prefill_ms", scaled(base, 2)},
                   {"ttft_ms", scaled(base, 2.1)},
                   {"tpot_ms", scaled(base, 0.5 * decode_factor)},
                   {"itl_median_ms", scaled(base, 0.5 * decode_factor)},
                   {"decode_ms", scaled(base, 15 * decode_factor)}},
                  {"p16_n16_d0_t1_greedy", "p16_n16_d0_t2_greedy"});
}

TEST(Verdict, AaIsUnchanged) {
  const Comparison c = compare_runs(prefill_decode_run("a", kQuiet, 1), prefill_decode_run("b", shuffled(kQuiet), 1), {});
  EXPECT_EQ(c.rows.size(), 10u);
  EXPECT_EQ(c.tests, 10u);
  EXPECT_FALSE(c.regressed());
  for (const Row& r : c.rows) EXPECT_EQ(r.judgement.verdict, Verdict::Unchanged) << r.metric.column;
}

TEST(Verdict, SlowerDecodeIsRegressedAndPrefillIsNot) {
  const Comparison c = compare_runs(prefill_decode_run("a", kQuiet, 1), prefill_decode_run("b", shuffled(kQuiet), 1.5), {});
  EXPECT_TRUE(c.regressed());
  EXPECT_EQ(count(c, "decode", Verdict::Regressed), 6u);
  EXPECT_EQ(count(c, "prefill", Verdict::Unchanged), 4u);
  for (const Row& r : c.rows)
    if (r.metric.phase == std::string("decode")) {
      EXPECT_NEAR(r.judgement.change_pct, 50, 1e-6);
    }
  const std::string md = markdown_report(c);
  EXPECT_NE(md.find("REGRESSION"), std::string::npos);
  EXPECT_NE(md.find("| decode | 6 | 0 | 0 | 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find(" regressed |"), std::string::npos);  // the word, not only the emoji
}

TEST(Verdict, FasterIsImproved) {
  const Comparison c = compare_runs(prefill_decode_run("a", kQuiet, 1), prefill_decode_run("b", kQuiet, 0.7), {});
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(count(c, "decode", Verdict::Improved), 6u);
}

TEST(Verdict, SignificantButBelowThresholdIsUnchanged) {
  const Comparison c = compare_runs(make_run("a", {{"decode_ms", kQuiet}}), make_run("b", {{"decode_ms", scaled(kQuiet, 1.03)}}), {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_LT(c.rows[0].test.p_adj, 0.05);
  EXPECT_EQ(c.rows[0].judgement.verdict, Verdict::Unchanged);
  // A 2% threshold calls the same 3% a regression.
  const Comparison strict =
      compare_runs(make_run("a", {{"decode_ms", kQuiet}}), make_run("b", {{"decode_ms", scaled(kQuiet, 1.03)}}), {2, 0.05});
  EXPECT_EQ(strict.rows[0].judgement.verdict, Verdict::Regressed);
}

TEST(Verdict, NoisySamplesAreUnstable) {
  const std::vector<double> noisy = {60, 140, 80, 120, 100, 70, 130, 90, 110};
  const Comparison c = compare_runs(make_run("a", {{"e2e_ms", noisy}}), make_run("b", {{"e2e_ms", scaled(shuffled(noisy), 1.1)}}), {});
  EXPECT_EQ(c.rows[0].judgement.verdict, Verdict::Unstable);
  EXPECT_GT(c.rows[0].base.noise_pct, 5);
}

TEST(Verdict, TooFewRepetitionsAreUnstable) {
  const std::vector<double> three = {1, 1.01, 0.99}, four = {1, 1.01, 0.99, 1.005};
  const Comparison c3 = compare_runs(make_run("a", {{"decode_ms", three}}), make_run("b", {{"decode_ms", scaled(three, 2)}}), {});
  EXPECT_FALSE(c3.rows[0].test.tested);
  EXPECT_EQ(c3.rows[0].judgement.verdict, Verdict::Unstable);
  EXPECT_EQ(c3.tests, 0u);
  // Four against four can reach p = 0.029 < 0.05: enough for one test...
  const Comparison c4 = compare_runs(make_run("a", {{"decode_ms", four}}), make_run("b", {{"decode_ms", scaled(four, 2)}}), {});
  EXPECT_NEAR(c4.rows[0].test.p, 2.0 / 70, 1e-12);
  EXPECT_EQ(c4.rows[0].judgement.verdict, Verdict::Regressed);
  // ...but not for two at once: Holm doubles the smallest p.
  const Comparison two = compare_runs(make_run("a", {{"decode_ms", four}, {"e2e_ms", four}}),
                                      make_run("b", {{"decode_ms", scaled(four, 2)}, {"e2e_ms", scaled(four, 2)}}), {});
  EXPECT_NEAR(two.rows[0].test.p_adj, 4.0 / 70, 1e-12);
  EXPECT_FALSE(two.regressed());
  EXPECT_EQ(two.rows[0].judgement.verdict, Verdict::Unstable);  // above the threshold, not significant
}

TEST(Verdict, ChangeWithinBaseNoiseIsNotRegressed) {
  // Significant and above the 5% threshold, but the base median is only
  // known to +-15%: not a regression, and too noisy to call unchanged.
  const Judgement j = judge({9, 100, 15}, {9, 112, 2}, {true, 1e-4, 1e-4}, {});
  EXPECT_EQ(j.verdict, Verdict::Unstable);
  EXPECT_NEAR(j.change_pct, 12, 1e-9);
  EXPECT_EQ(judge({9, 100, 3}, {9, 112, 2}, {true, 1e-4, 1e-4}, {}).verdict, Verdict::Regressed);
  EXPECT_EQ(judge({9, 100, 3}, {9, 88, 2}, {true, 1e-4, 1e-4}, {}).verdict, Verdict::Improved);
  EXPECT_EQ(judge({9, 0, 0}, {9, 1, 0}, {true, 1e-4, 1e-4}, {}).verdict, Verdict::Unstable);
}

TEST(Verdict, CasesMatchedById) {
  const Comparison c = compare_runs(make_run("a", {{"decode_ms", kQuiet}}, {"x", "y"}),
                                    make_run("b", {{"decode_ms", kQuiet}}, {"y", "z"}), {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].case_id, "y");
  EXPECT_EQ(c.only_base, std::vector<std::string>{"x"});
  EXPECT_EQ(c.only_new, std::vector<std::string>{"z"});
  EXPECT_THROW(compare_runs(make_run("a", {{"decode_ms", kQuiet}}, {"x"}), make_run("b", {{"decode_ms", kQuiet}}, {"z"}), {}),
               Error);
}

TEST(Verdict, BadInputThrows) {
  RunData bad = make_run("b", {{"decode_ms", kQuiet}});
  bad.samples.rows[2][2] = "fast";
  EXPECT_THROW(compare_runs(make_run("a", {{"decode_ms", kQuiet}}), bad, {}), Error);
  RunData no_id = make_run("b", {{"decode_ms", kQuiet}});
  no_id.samples.columns[0] = "name";
  EXPECT_THROW(compare_runs(make_run("a", {{"decode_ms", kQuiet}}), no_id, {}), Error);
}

TEST(Fingerprint, DifferencesAndNotes) {
  nlohmann::json a = fixture::plain_meta(), b = fixture::plain_meta();
  EXPECT_TRUE(fingerprint_differences(a, b).empty());
  b["fingerprint"]["cpu"]["model"] = "Other CPU";
  b["model"]["sha256"] = "def";
  b["fingerprint"]["onednn"] = "avx512_core";  // only one side: a note, not a mismatch
  const auto d = fingerprint_differences(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_TRUE(any_mismatch(d));
  EXPECT_EQ(d[0].field, "fingerprint/cpu/model");
  EXPECT_TRUE(d[0].mismatch);
  EXPECT_EQ(d[1].field, "fingerprint/onednn");
  EXPECT_FALSE(d[1].mismatch);
  EXPECT_EQ(d[2].field, "model/sha256");
  // Long flag lists are shown as the words one side lacks.
  nlohmann::json c = fixture::plain_meta(), e = fixture::plain_meta();
  std::string flags(100, 'x');
  c["fingerprint"]["cpu"]["flags"] = flags + " avx512f";
  e["fingerprint"]["cpu"]["flags"] = flags;
  const auto f = fingerprint_differences(c, e);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].base, "only here: avx512f");
  EXPECT_EQ(f[0].next, "only here:");
  EXPECT_FALSE(any_mismatch(fingerprint_differences(a, a)));
}

TEST(Markdown, FingerprintWarningIsLoud) {
  RunData a = make_run("a", {{"decode_ms", kQuiet}}), b = make_run("b", {{"decode_ms", kQuiet}});
  b.meta["fingerprint"]["compiler"] = "Clang 16";
  const std::string md = markdown_report(compare_runs(a, b, {}));
  EXPECT_NE(md.find("FINGERPRINT MISMATCH"), std::string::npos);
  EXPECT_NE(md.find("Clang 16"), std::string::npos);
  EXPECT_NE(md.find("no regression"), std::string::npos);
}

}  // namespace
}  // namespace pdbench::compare
