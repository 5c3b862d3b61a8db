// Load cases: their axes and errors in scenario files (FILE:LINE), arrival
// processes and length distributions that reproduce from a seed, trace
// timing, and the SLA arithmetic of goodput.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "bench/runner/load.h"
#include "bench/runner/load_results.h"
#include "bench/runner/scenario.h"
#include "bench/runner/sweep.h"
#include "engine/util/error.h"
#include "tests/support/error_of.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

const std::string kModel = "[model]\npath = \"m.gguf\"\n";

std::string error_of(const std::string& text) {
  return test::error_of([&] { require_supported(parse_scenario(text, "scenarios/x.toml")); });
}

LoadSetting rate(double per_s, size_t n, const std::string& arrival = "poisson") {
  LoadSetting s;
  s.request_rate = per_s;
  s.requests = n;
  s.arrival = arrival;
  return s;
}

TEST(LoadScenario, AxesSweepAndNameTheirCases) {
  const Scenario s = parse_scenario(kModel +
                                        "[load]\nseed = 3\n[sla]\nttft_p99_ms = 500\ntpot_p99_ms = 50\n"
                                        "[sweep]\nprompt_tokens = 16\noutput_tokens = 8\nrequests = 20\n"
                                        "request_rate = [1, 2.5, \"inf\"]\nmax_concurrency = [1, 4]\n",
                                    "scenarios/x.toml");
  EXPECT_EQ(s.load_options.seed, 3u);
  EXPECT_DOUBLE_EQ(s.sla.ttft_p99_ms, 500);
  EXPECT_DOUBLE_EQ(s.sla.tpot_p99_ms, 50);
  const std::vector<Case> cases = expand(s);
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[0].id, "p16_n8_d0_t0_q20_r1_c1_greedy");
  EXPECT_EQ(cases[3].id, "p16_n8_d0_t0_q20_r2.5_c4_greedy");
  EXPECT_TRUE(std::isinf(cases[5].load.request_rate));
  EXPECT_EQ(cases[5].id, "p16_n8_d0_t0_q20_rinf_c4_greedy");
  for (const Case& c : cases) EXPECT_TRUE(c.is_load());
  EXPECT_NO_THROW(require_supported(s));
}

TEST(LoadScenario, DistributionsWidenTheLongestRequest) {
  const Scenario s = parse_scenario(kModel +
                                        "[sweep]\nprompt_tokens = 100\noutput_tokens = 10\nduration_s = 5\n"
                                        "request_rate = 2\narrival = \"gamma\"\nburstiness = 0.5\n"
                                        "prompt_dist = \"uniform\"\nprompt_spread = 0.5\n"
                                        "output_dist = \"normal\"\noutput_spread = 0.2\n",
                                    "scenarios/x.toml");
  const std::vector<Case> cases = expand(s);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].id, "p100_n10_d0_t0_dur5_r2_gamma0.5_c8_puniform0.5_onormal0.2_greedy");
  EXPECT_EQ(case_tokens(cases[0]), 150u + 19u);
}

TEST(LoadScenario, ErrorsNameFileLineAndKey) {
  const std::string sweep = kModel + "[sweep]\n";  // [sweep] is line 3
  const std::vector<std::pair<std::string, std::string>> cases = {
      {sweep + "requests = 4\nrequest_rate = -1\n", "scenarios/x.toml:5: key 'request_rate' must be > 0, got -1"},
      {sweep + "requests = 4\nrequest_rate = \"fast\"\n",
       "scenarios/x.toml:5: key 'request_rate' must be a number or \"inf\""},
      {sweep + "requests = 4\nmax_concurrency = 0\n", "scenarios/x.toml:5: key 'max_concurrency' must be >= 1, got 0"},
      {sweep + "requests = 0\n", "scenarios/x.toml:4: key 'requests' must be >= 1, got 0"},
      {sweep + "prefill_chunk = 64\n",
       "scenarios/x.toml:4: key 'prefill_chunk' needs 'requests' or 'duration_s' (it sets up a load case)"},
      {sweep + "requests = 4\nprefill_chunk = -1\n", "scenarios/x.toml:5: key 'prefill_chunk' must be >= 0, got -1"},
      {sweep + "request_rate = 2\n",
       "scenarios/x.toml:4: key 'request_rate' needs 'requests' or 'duration_s' (it sets up a load case)"},
      {sweep + "duration_s = 10\n",
       "scenarios/x.toml:4: key 'duration_s' needs a finite request_rate (\"inf\" sends every request at once)"},
      {sweep + "requests = 4\nduration_s = 10\nrequest_rate = 1\n",
       "scenarios/x.toml:5: key 'duration_s' cannot be set with 'requests' (line 4)"},
      {sweep + "requests = 4\nbatch = 2\n",
       "scenarios/x.toml:4: key 'requests' makes a load case, which sets its batch slots with max_concurrency, not batch"},
      {sweep + "requests = 4\nburstiness = 2\n", "scenarios/x.toml:5: key 'burstiness' needs arrival = \"gamma\""},
      {sweep + "requests = 4\nprompt_spread = 0.5\n",
       "scenarios/x.toml:5: key 'prompt_spread' needs prompt_dist \"uniform\" or \"normal\""},
      {sweep + "requests = 4\nprompt_dist = \"zipf\"\n",
       "scenarios/x.toml:5: key 'prompt_dist' = \"zipf\" is not one of: fixed, uniform, normal"},
      {kModel + "[sla]\nttft_ms = 500\n",
       "scenarios/x.toml:4: key 'ttft_ms' needs a percentile: the limit is on the p99 (ttft_p99_ms)"},
      {kModel + "[sla]\ntpot_p99_ms = 0\n", "scenarios/x.toml:4: key 'tpot_p99_ms' must be > 0 (milliseconds)"},
      {kModel + "[load]\ntiming = \"trace\"\n", "scenarios/x.toml:4: key 'timing' needs a trace (top-level 'trace')"},
  };
  for (const auto& [text, error] : cases) EXPECT_EQ(error_of(text), error) << text;
}

TEST(LoadArrivals, ProcessesReproduceFromTheirSeed) {
  for (const char* process : {"poisson", "gamma", "constant"}) {
    SCOPED_TRACE(process);
    LoadSetting s = rate(4, 50, process);
    s.burstiness = 0.5;
    const std::vector<double> t = arrival_times(s, 7);
    ASSERT_EQ(t.size(), 50u);
    EXPECT_EQ(t, arrival_times(s, 7));
    EXPECT_DOUBLE_EQ(t.front(), 0);
    EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
    if (std::string(process) != "constant") {
      EXPECT_NE(t, arrival_times(s, 8));
    }
  }
  const std::vector<double> steady = arrival_times(rate(4, 5, "constant"), 1);
  EXPECT_EQ(steady, (std::vector<double>{0, 250, 500, 750, 1000}));
  EXPECT_EQ(arrival_times(rate(kInfiniteRate, 3), 1), (std::vector<double>{0, 0, 0}));
}

// Over many gaps the mean is 1 / rate for every shape, and a shape below 1
// spreads the gaps more (burstier) than poisson's.
TEST(LoadArrivals, GapsAverageTheRateAndBurstinessSpreadsThem) {
  const auto gaps = [](LoadSetting s) {
    const std::vector<double> t = arrival_times(s, 11);
    std::vector<double> g;
    for (size_t i = 1; i < t.size(); ++i) g.push_back(t[i] - t[i - 1]);
    const double mean = std::accumulate(g.begin(), g.end(), 0.0) / static_cast<double>(g.size());
    double var = 0;
    for (double x : g) var += (x - mean) * (x - mean);
    return std::pair{mean, std::sqrt(var / static_cast<double>(g.size())) / mean};
  };
  const auto [poisson_mean, poisson_cv] = gaps(rate(2, 20000));
  LoadSetting bursty = rate(2, 20000, "gamma");
  bursty.burstiness = 0.25;
  const auto [bursty_mean, bursty_cv] = gaps(bursty);
  EXPECT_NEAR(poisson_mean, 500, 25);
  EXPECT_NEAR(bursty_mean, 500, 25);
  EXPECT_NEAR(poisson_cv, 1.0, 0.05);  // exponential gaps: stddev = mean
  EXPECT_NEAR(bursty_cv, 2.0, 0.2);    // gamma: cv = 1 / sqrt(shape)
}

TEST(LoadArrivals, ADurationSendsWhatArrivesBeforeItEnds) {
  LoadSetting s = rate(10, 0, "constant");
  s.duration_s = 1;
  EXPECT_EQ(arrival_times(s, 1).size(), 10u);  // 0, 100, ... 900 ms
  s.arrival = "poisson";
  for (double t : arrival_times(s, 1)) EXPECT_LT(t, 1000);
}

TEST(LoadLengths, DistributionsStayInTheirRange) {
  std::mt19937_64 rng(5);
  EXPECT_EQ(draw_length("fixed", 0.5, 64, rng), 64u);
  EXPECT_EQ(max_length("uniform", 0.5, 64), 96u);
  EXPECT_EQ(max_length("normal", 0.3, 64), 127u);
  EXPECT_EQ(max_length("normal", 0, 64), 64u);
  std::set<size_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const size_t u = draw_length("uniform", 0.5, 64, rng);
    EXPECT_GE(u, 32u);
    EXPECT_LE(u, 96u);
    seen.insert(u);
    const size_t n = draw_length("normal", 1.0, 64, rng);  // clipped hard
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, 127u);
  }
  EXPECT_EQ(seen.size(), 65u);  // every length of the range drawn
  std::mt19937_64 a(9), b(9);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(draw_length("normal", 0.2, 50, a), draw_length("normal", 0.2, 50, b));
}

std::string write_trace(const std::string& dir, const std::string& text) {
  std::ofstream(dir + "/t.csv") << text;
  return dir + "/t.csv";
}

TEST(LoadTrace, TimingTraceMakesOneCaseOfEveryRowAtItsTime) {
  const std::string dir = test::temp_dir("load-trace");
  write_trace(dir, "arrival_s,prompt_tokens,output_tokens\n1.5,8,4\n0.5,16,2\n2,4,6\n");
  const std::string text = "trace = \"t.csv\"\n" + kModel + "[load]\ntiming = \"trace\"\n[sweep]\nmax_concurrency = 2\n";
  const Scenario s = parse_scenario(text, dir + "/x.toml");
  require_supported(s);
  const std::vector<Case> cases = expand(s);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].id, "p16_n6_d0_t0_trace_c2_greedy");  // the longest row's lengths
  EXPECT_EQ(cases[0].load.requests, 3u);
  EXPECT_EQ(trace_arrival_ms(s.trace_rows, s.trace), (std::vector<double>{1000, 0, 1500}));
  // timing = "rate": the rows' lengths at the rate's times.
  const Scenario r = parse_scenario("trace = \"t.csv\"\n" + kModel + "[load]\ntiming = \"rate\"\n[sweep]\nrequest_rate = 4\n",
                                    dir + "/x.toml");
  EXPECT_EQ(expand(r)[0].id, "p16_n6_d0_t0_tracerate_r4_c8_greedy");
}

TEST(LoadTrace, ArrivalCellsAreNumbersOrDateTimes) {
  Trace t;
  t.arrival_column = "TIMESTAMP";
  t.rows = {{2, 1, 1, "2023-11-16 18:15:46.5"}, {3, 1, 1, "2023-11-16 18:15:48"}, {4, 1, 1, "2023-11-17 00:00:00"}};
  const std::vector<double> ms = trace_arrival_ms(t, "t.csv");
  EXPECT_DOUBLE_EQ(ms[0], 0);
  EXPECT_NEAR(ms[1], 1500, 1e-6);
  EXPECT_NEAR(ms[2], (5 * 3600 + 44 * 60 + 13.5) * 1000, 1e-3);  // to midnight
  t.rows[1].arrival = "soon";
  EXPECT_THROW(
      {
        try {
          trace_arrival_ms(t, "t.csv");
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "t.csv:3: column 'TIMESTAMP' = 'soon' is not a number of ms or a date-time YYYY-MM-DD HH:MM:SS");
          throw;
        }
      },
      Error);
  const std::string dir = test::temp_dir("load-trace-bad");
  write_trace(dir, "prompt_tokens,output_tokens\n8,4\n");
  EXPECT_NE(error_of("trace = \"" + dir + "/t.csv\"\n" + kModel + "[load]\ntiming = \"trace\"\n")
                .find("scenarios/x.toml:5: key 'timing' = \"trace\" needs an arrival column"),
            std::string::npos);
}

RequestSample sample(double ttft, size_t generated, double decode) {
  RequestSample r{0, 10, 0, generated, {}};  // 10 prompt tokens
  r.timings.ttft_ms = ttft;
  r.timings.decode_ms = decode;
  return r;
}

// Four requests in 2 s: one too slow to start, one too slow per token,
// one of a single token (no TPOT), one within both limits.
TEST(LoadGoodput, CountsTheRequestsWithinBothLimits) {
  Sla sla;
  sla.ttft_p99_ms = 100;
  sla.tpot_p99_ms = 10;
  EXPECT_TRUE(sla.met_by(100, 10));
  EXPECT_FALSE(sla.met_by(100.5, 1));
  EXPECT_FALSE(sla.met_by(1, 10.5));
  Case c;
  c.load = rate(2, 4);
  RunResult run;
  run.wall_ms = 2000;
  run.requests = {sample(150, 5, 20), sample(50, 5, 60), sample(80, 1, 0), sample(90, 11, 50)};
  const std::vector<std::string> cells = load_sample_cells(c, run, sla);
  const auto cell = [&](const std::string& column) {
    const auto& names = load_sample_columns();
    return cells[static_cast<size_t>(std::find(names.begin(), names.end(), column) - names.begin())];
  };
  EXPECT_EQ(cell("requests_sent"), "4");
  EXPECT_EQ(cell("request_throughput_req_s"), "2");
  EXPECT_EQ(cell("output_tok_s"), "11");      // 22 tokens / 2 s
  EXPECT_EQ(cell("total_tok_s"), "31");       // + 40 prompt tokens
  EXPECT_EQ(cell("requests_within_sla"), "2");
  EXPECT_EQ(cell("goodput_req_s"), "1");
  EXPECT_EQ(load_sample_cells(c, run, Sla{})[std::find(load_sample_columns().begin(), load_sample_columns().end(),
                                                       "goodput_req_s") -
                                             load_sample_columns().begin()],
            "");
}

}  // namespace
}  // namespace pdbench::runner
