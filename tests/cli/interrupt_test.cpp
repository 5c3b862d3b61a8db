// `pdbench run` stopped by signals, as a user stops it: the first SIGINT or
// SIGTERM keeps every finished run, exits 128 + signal and says how to
// --resume, which then completes the same case set; a second signal exits at
// once, and every results file left is complete. Runs are slowed by the
// test-only decode delay so the signal lands mid-run; nothing asserts a time.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "bench/runner/csv_table.h"
#include "tests/support/test_paths.h"

namespace pdbench {
namespace {

namespace fs = std::filesystem;

constexpr size_t kCases = 5;

// Five one-repetition cases: each finished case is written at once.
std::string write_scenario(const std::string& dir) {
  const std::string path = dir + "/stop.toml";
  std::ofstream(path) << "[model]\npath = \"" << test::model_path("stories260K.gguf")
                      << "\"\n[measure]\nrepetitions = 1\nwarmup_max = 0\n"
                         "[sweep]\nprompt_tokens = [4, 5, 6, 7, 8]\noutput_tokens = 3\nthreads = 1\n";
  return path;
}

// pdbench with these arguments, stderr to err_path, stdout discarded.
pid_t start(const std::vector<std::string>& args, const std::string& err_path) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int null = ::open("/dev/null", O_WRONLY);
  if (err < 0 || null < 0 || ::dup2(err, STDERR_FILENO) < 0 || ::dup2(null, STDOUT_FILENO) < 0) ::_exit(126);
  std::vector<char*> argv{const_cast<char*>(PDBENCH_BIN)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(PDBENCH_BIN, argv.data());
  ::_exit(127);
}

// The exit status, or 128 + signal for a process a signal ended.
int wait_exit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Waits until `ready`; false if the child ended first.
bool wait_until(pid_t pid, const std::function<bool()>& ready) {
  while (!ready()) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

bool wait_for_file(const std::string& path, pid_t pid) {
  return wait_until(pid, [&] { return fs::exists(path); });
}

// Every file in dir is a complete results file: no temporaries, CSVs parse.
void expect_only_complete_files(const std::string& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
    if (entry.path().extension() == ".csv") {
      EXPECT_NO_THROW(runner::read_csv(entry.path().string())) << name;
    }
  }
}

std::set<std::string> case_ids(const std::string& dir) {
  const runner::Table t = runner::read_csv(dir + "/samples.csv");
  std::set<std::string> ids;
  for (const auto& row : t.rows) ids.insert(row[t.column("case_id")]);
  return ids;
}

// A run stopped by `signal` once its first case is written.
void stop_then_resume(int signal, int expected_exit, const std::string& signal_name) {
  const std::string dir = test::temp_dir("stop");
  const std::string scenario = write_scenario(dir);
  const std::string out = dir + "/out";
  const pid_t pid = start({"run", scenario, "-o", out, "--test-decode-delay-us", "200000"}, dir + "/err");
  ASSERT_TRUE(wait_for_file(out + "/samples.csv", pid)) << read_text(dir + "/err");
  ::kill(pid, signal);
  EXPECT_EQ(wait_exit(pid), expected_exit);
  const std::string err = read_text(dir + "/err");
  EXPECT_NE(err.find("stopped by " + signal_name + ": "), std::string::npos) << err;
  EXPECT_NE(err.find(" of 5 cases finished"), std::string::npos) << err;
  EXPECT_NE(err.find("continue with: pdbench run " + scenario), std::string::npos) << err;
  EXPECT_NE(err.find(" -o " + out + " --resume\n"), std::string::npos) << err;
  expect_only_complete_files(out);
  const runner::Table before = runner::read_csv(out + "/samples.csv");
  ASSERT_GE(before.rows.size(), 1u);
  EXPECT_LT(before.rows.size(), kCases);

  // --resume (without the delay: the scenario file is what must match).
  EXPECT_EQ(wait_exit(start({"run", scenario, "-o", out, "--resume"}, dir + "/err")), 0) << read_text(dir + "/err");
  const runner::Table after = runner::read_csv(out + "/samples.csv");
  ASSERT_EQ(after.rows.size(), kCases);
  for (size_t i = 0; i < before.rows.size(); ++i) EXPECT_EQ(after.rows[i], before.rows[i]);
  EXPECT_EQ(case_ids(out).size(), kCases);
  expect_only_complete_files(out);
}

TEST(Interrupt, SigintKeepsFinishedCasesAndResumeCompletesThem) { stop_then_resume(SIGINT, 130, "SIGINT"); }

TEST(Interrupt, SigtermLikewiseExits143) { stop_then_resume(SIGTERM, 143, "SIGTERM"); }

// The second signal must come while the first is still being acted on: the
// stop is seen between tokens, and with the test delay the step in progress
// still takes its 3 s after the stop is seen, as slower code would.
TEST(Interrupt, SecondSigintExitsAtOnce) {
  const std::string dir = test::temp_dir("stop2");
  const std::string scenario = write_scenario(dir);
  const std::string out = dir + "/out";
  const std::string err_path = dir + "/err";
  const pid_t pid = start({"run", scenario, "-o", out, "--test-decode-delay-us", "3000000"}, err_path);
  ASSERT_TRUE(wait_for_file(out + "/meta.json", pid)) << read_text(err_path);
  ::kill(pid, SIGINT);
  ASSERT_TRUE(wait_until(pid, [&] { return read_text(err_path).find("stopping after") != std::string::npos; }))
      << read_text(err_path);
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130);
  const std::string err = read_text(err_path);
  EXPECT_NE(err.find("second signal: exiting now"), std::string::npos) << err;
  EXPECT_EQ(err.find("stopped by"), std::string::npos) << err;  // it did not wait for the run
  // What it was writing went with its temporary file; --resume completes the cases.
  expect_only_complete_files(out);
  EXPECT_EQ(wait_exit(start({"run", scenario, "-o", out, "--resume"}, err_path)), 0) << read_text(err_path);
  EXPECT_EQ(case_ids(out).size(), kCases);
  expect_only_complete_files(out);
}

// Any other command ends at the first signal, as the signal would end it
// (the shell sees the same status), without leaving its temporary file:
// here make-model stopped mid-file (a 540 MB f32 model takes seconds).
TEST(Interrupt, MakeModelStoppedMidFileLeavesNoTemporary) {
  const std::string dir = test::temp_dir("stop-make-model");
  const std::string model = dir + "/m.gguf";
  const pid_t pid = start({"make-model", "--like", "smollm2-135m", "--type", "f32", "-o", model}, dir + "/err");
  const auto temporary_grew = [&] {
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().filename().string().starts_with("m.gguf.tmp.") && fs::file_size(entry.path()) > 0) return true;
    return false;
  };
  ASSERT_TRUE(wait_until(pid, temporary_grew)) << read_text(dir + "/err");
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 128 + SIGINT);
  EXPECT_FALSE(fs::exists(model));
  for (const auto& entry : fs::directory_iterator(dir)) EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
}

// Before the first measured run there is nothing to write: `run` stopped
// while it generates its synthetic model ends at once, as make-model does,
// with neither the model nor its temporary left.
TEST(Interrupt, RunStoppedWhileItsModelIsGeneratedEndsAtOnce) {
  const std::string dir = test::temp_dir("stop-run-generating");
  std::ofstream(dir + "/gen.toml") << "[model]\nlike = \"smollm2-135m\"\ntype = \"f32\"\n"
                                      "[sweep]\nprompt_tokens = 4\noutput_tokens = 2\n";
  ::setenv("XDG_CACHE_HOME", (dir + "/cache").c_str(), 1);
  const pid_t pid = start({"run", dir + "/gen.toml", "-o", dir + "/out"}, dir + "/err");
  ::unsetenv("XDG_CACHE_HOME");
  const std::string models = dir + "/cache/pdbench/models";
  const auto temporary_grew = [&] {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(models, ec))
      if (entry.path().filename().string().find(".tmp.") != std::string::npos && fs::file_size(entry.path(), ec) > 0)
        return true;
    return false;
  };
  ASSERT_TRUE(wait_until(pid, temporary_grew)) << read_text(dir + "/err");
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid), 128 + SIGTERM);
  EXPECT_TRUE(fs::is_empty(models)) << "no model and no temporary left";
  EXPECT_FALSE(fs::exists(dir + "/out")) << "no results folder for a run that measured nothing";
}

// `pdbench serve` stopped by SIGTERM drains: the stream in flight when the
// signal lands gets every token and its end, then the process exits 0.
TEST(Interrupt, ServeDrainsTheStreamInFlightOnSigterm) {
  const std::string dir = test::temp_dir("stop-serve");
  const std::string err_path = dir + "/err";
  const pid_t pid = start({"serve", "-m", test::model_path("stories260K.gguf"), "--port", "0", "-t", "1"}, err_path);
  int port = 0;
  const std::regex listening(R"(on http://127\.0\.0\.1:(\d+))");
  ASSERT_TRUE(wait_until(pid, [&] {
    std::smatch m;
    const std::string err = read_text(err_path);
    if (std::regex_search(err, m, listening)) port = std::stoi(m[1]);
    return port != 0;
  })) << read_text(err_path);
  constexpr int kTokens = 400;  // the signal lands after the first of them
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  req.set_header("Content-Type", "application/json");
  req.body = nlohmann::json{{"prompt", "Once"},  {"max_tokens", kTokens}, {"ignore_eos", true},
                            {"stream", true}, {"stream_options", {{"include_usage", true}}}}
                 .dump();
  std::string body;
  bool signalled = false;
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    body.append(data, n);
    if (!signalled) signalled = ::kill(pid, SIGTERM) == 0;
    return true;
  };
  const auto res = client.send(req);
  ASSERT_TRUE(res) << httplib::to_string(res.error()) << " after " << body.size() << " bytes; serve said:\n"
                   << read_text(err_path);
  EXPECT_TRUE(signalled);
  EXPECT_NE(body.find("data: [DONE]"), std::string::npos) << body.substr(body.size() > 300 ? body.size() - 300 : 0);
  EXPECT_NE(body.find("\"completion_tokens\":" + std::to_string(kTokens)), std::string::npos);
  EXPECT_EQ(wait_exit(pid), 0);
  EXPECT_NE(read_text(err_path).find("SIGTERM: draining the requests in flight"), std::string::npos)
      << read_text(err_path);
}

}  // namespace
}  // namespace pdbench
