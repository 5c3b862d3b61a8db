#include "bench/runner/machine_load.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace pdbench::runner {

namespace {

double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double ticks_to_s(double ticks) {
  static const double per_s = static_cast<double>(sysconf(_SC_CLK_TCK));
  return per_s > 0 ? ticks / per_s : 0;
}

// /proc/stat's first line: "cpu user nice system idle iowait irq softirq
// steal guest guest_nice" (guest time is inside user already).
double machine_busy_ticks() {
  std::ifstream in("/proc/stat");
  std::string label;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || label != "cpu") return 0;
  return user + nice + system + irq + softirq + steal;
}

// /proc/self/stat: utime and stime are fields 14 and 15, after the command
// name in parentheses (which may hold spaces).
double self_ticks() {
  std::ifstream in("/proc/self/stat");
  const std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(line.substr(close + 1));
  std::string skip;
  for (int field = 3; field <= 13; ++field) fields >> skip;
  double utime = 0, stime = 0;
  return fields >> utime >> stime ? utime + stime : 0;
}

double loadavg_1m() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  return in >> one ? one : 0;
}

nlohmann::json window_json(const CpuReading& from, const CpuReading& to) {
  return {{"seconds", to.wall_s - from.wall_s}, {"other_cpus", other_cpus(from, to)}, {"loadavg_1m", to.loadavg_1m}};
}

std::string fixed(double value, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

// "machine: busy: other processes used 0.9 CPUs on average during the
// measurements (...)".
std::string machine_note(const nlohmann::json& load) {
  if (load.is_null()) return "machine load: not recorded (results from before pdbench recorded it)";
  const nlohmann::json before = load.value("before", nlohmann::json::object());
  const nlohmann::json during = load.value("during", nlohmann::json());
  const double limit = load.value("busy_limit_cpus", kBusyOtherCpus);
  std::string text = load.value("busy", false) ? "busy machine: timings include other processes' interference; "
                                               : "machine quiet: ";
  text += "other processes used " + fixed(before.value("other_cpus", 0.0), 2) + " CPUs on average before the measurements";
  if (during.is_object())
    text += " and " + fixed(during.value("other_cpus", 0.0), 2) + " during them" +
            (load.value("server_here", false) ? ", the target server on this machine among them" : "") +
            " (busiest second " + fixed(during.value("other_cpus_peak", 0.0), 2) + ")";
  text += ", of " + std::to_string(load.value("logical_cpus", 0)) + " logical CPUs (busy from " + fixed(limit, 2) +
          "); load average " + fixed(before.value("loadavg_1m", 0.0), 2) + " before";
  if (during.is_object()) text += ", " + fixed(during.value("loadavg_1m", 0.0), 2) + " at the end (pdbench's threads included)";
  return text;
}

}  // namespace

CpuReading read_cpu() {
  return {wall_now(), ticks_to_s(machine_busy_ticks()), ticks_to_s(self_ticks()), loadavg_1m()};
}

double other_cpus(const CpuReading& from, const CpuReading& to) {
  const double wall = to.wall_s - from.wall_s;
  if (wall <= 0) return 0;
  const double other = (to.machine_busy_s - from.machine_busy_s) - (to.self_s - from.self_s);
  return std::max(0.0, other / wall);
}

MachineLoad::MachineLoad(bool server_here) : start_(read_cpu()), server_here_(server_here) {}

void MachineLoad::measurements_start() {
  const double waited = wall_now() - start_.wall_s;
  if (waited < kMinBeforeSeconds) std::this_thread::sleep_for(std::chrono::duration<double>(kMinBeforeSeconds - waited));
  measuring_ = stretch_ = last_ = read_cpu();
  measuring_started_ = true;
}

void MachineLoad::between_runs() {
  last_ = read_cpu();
  if (last_.wall_s - stretch_.wall_s < 1) return;
  peak_ = std::max(peak_, other_cpus(stretch_, last_));
  stretch_ = last_;
}

nlohmann::json MachineLoad::json() const {
  const CpuReading& before_end = measuring_started_ ? measuring_ : read_cpu();
  nlohmann::json j = {{"logical_cpus", std::thread::hardware_concurrency()},
                      {"busy_limit_cpus", kBusyOtherCpus},
                      {"before", window_json(start_, before_end)},
                      {"during", nullptr}};
  double busiest = j["before"]["other_cpus"].get<double>();
  if (measuring_started_) {
    const CpuReading end = read_cpu();
    j["during"] = window_json(measuring_, end);
    // The last stretch may be shorter than a second: it counts when it is all there is.
    const double tail = other_cpus(stretch_, end);
    const double peak = peak_ > 0 || end.wall_s - stretch_.wall_s >= 1 ? std::max(peak_, tail) : tail;
    j["during"]["other_cpus_peak"] = std::max(peak, j["during"]["other_cpus"].get<double>());
    if (!server_here_) busiest = std::max(busiest, j["during"]["other_cpus"].get<double>());
  }
  if (server_here_) j["server_here"] = true;
  j["busy"] = busiest >= kBusyOtherCpus;
  return j;
}

namespace {

// What the summary's warmup_runs and warmup_stable say of the warm-ups that
// did not settle, if any.
std::vector<std::string> warmup_notes(const Table& summary) {
  std::vector<std::string> notes;
  const auto has = [&](const char* name) {
    return std::find(summary.columns.begin(), summary.columns.end(), name) != summary.columns.end();
  };
  if (!has("warmup_stable")) return notes;
  // A case with warmup_max = 0 ran no warm-up at all: that is a choice, not
  // a warm-up that failed to settle, and it is said apart.
  std::vector<std::string> unstable, skipped;
  size_t most_runs = 0;
  for (const auto& row : summary.rows) {
    if (row[summary.column("warmup_stable")] != "0") continue;
    const size_t runs =
        has("warmup_runs") ? static_cast<size_t>(std::strtoul(row[summary.column("warmup_runs")].c_str(), nullptr, 10)) : 1;
    (runs == 0 ? skipped : unstable).push_back(row[summary.column("case_id")]);
    most_runs = std::max(most_runs, runs);
  }
  const auto listed = [](std::string text, const std::vector<std::string>& ids) {
    for (size_t i = 0; i < ids.size() && i < 6; ++i) text += (i ? ", " : "") + ids[i];
    if (ids.size() > 6) text += ", ...";
    return text;
  };
  const std::string of = " of " + std::to_string(summary.rows.size()) + " cases";
  if (!unstable.empty())
    notes.push_back(listed("warm-up: " + std::to_string(most_runs) + " runs, not stable in " +
                               std::to_string(unstable.size()) + of +
                               " (warmup_max reached before the last runs agreed; their repetitions may still drift): ",
                           unstable));
  if (!skipped.empty())
    notes.push_back(listed("warm-up: none in " + std::to_string(skipped.size()) + of +
                               " (warmup_max = 0; their first repetitions may run on cold caches): ",
                           skipped));
  return notes;
}

}  // namespace

std::vector<std::string> run_notes(const nlohmann::json& meta, const Table& summary) {
  std::vector<std::string> notes{machine_note(meta.is_object() ? meta.value("machine_load", nlohmann::json()) : nullptr)};
  const std::vector<std::string> warmups = warmup_notes(summary);
  notes.insert(notes.end(), warmups.begin(), warmups.end());
  return notes;
}

}  // namespace pdbench::runner
