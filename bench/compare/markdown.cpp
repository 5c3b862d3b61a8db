#include "bench/compare/markdown.h"

#include <cstdio>

namespace pdbench::compare {

namespace {

const char* emoji(Verdict v) {
  switch (v) {
    case Verdict::Improved: return "\xF0\x9F\x9F\xA2";   // green circle
    case Verdict::Regressed: return "\xF0\x9F\x94\xB4";  // red circle
    case Verdict::Unchanged: return "\xE2\x9A\xAA";      // white circle
    case Verdict::Unstable: return "\xF0\x9F\x9F\xA1";   // yellow circle
  }
  return "";
}

// Markdown table cells must not contain a pipe.
std::string cell(std::string s) {
  for (size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  return s;
}

std::string format(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string markdown_report(const Comparison& c) {
  std::string out = "## pdbench compare\n\n";
  out += "Base `" + cell(c.base_label) + "`, new `" + cell(c.new_label) + "`; threshold " +
         format("%g%%", c.rule.threshold_pct) + ", alpha " + format("%g", c.rule.alpha) + " (Holm over " +
         std::to_string(c.tests) + " tests).\n\n";
  if (!c.key_axes.empty()) out += "Cases paired by " + cell(joined_axes(c)) + ".\n\n";
  out += c.regressed() ? "**Result: " + std::string(emoji(Verdict::Regressed)) + " REGRESSION**\n\n"
                       : "**Result: no regression**\n\n";
  if (any_mismatch(c.fingerprint)) {
    out += "> **WARNING: FINGERPRINT MISMATCH** \xE2\x9A\xA0\xEF\xB8\x8F the runs were measured under different "
           "conditions; the verdicts below may reflect the machine or build, not the change.\n>\n";
    for (const auto& d : c.fingerprint)
      if (d.mismatch) out += "> - `" + cell(d.field) + "`: base `" + cell(d.base) + "`, new `" + cell(d.next) + "`\n";
    out += "\n";
  }
  out += "| phase | regressed | improved | unchanged | unstable |\n| --- | ---: | ---: | ---: | ---: |\n";
  for (const PhaseCounts& pc : c.by_phase())
    out += "| " + pc.phase + " | " + std::to_string(pc.count[static_cast<size_t>(Verdict::Regressed)]) + " | " +
           std::to_string(pc.count[static_cast<size_t>(Verdict::Improved)]) + " | " +
           std::to_string(pc.count[static_cast<size_t>(Verdict::Unchanged)]) + " | " +
           std::to_string(pc.count[static_cast<size_t>(Verdict::Unstable)]) + " |\n";
  out += "\n| case | phase | metric | base ms | new ms | change | p | p (Holm) | base noise | verdict |\n"
         "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const Row& r : c.rows) {
    const bool tested = r.test.tested;
    out += "| " + cell(r.label()) + " | " + r.metric.phase + " | " + r.metric.name + " | " +
           format("%.4f", r.base.median) + " | " + format("%.4f", r.next.median) + " | " +
           format("%+.1f%%", r.judgement.change_pct) + " | " + (tested ? format("%.4f", r.test.p) : "-") + " | " +
           (tested ? format("%.4f", r.test.p_adj) : "-") + " | " + format("%.1f%%", r.base.noise_pct) + " | " +
           emoji(r.judgement.verdict) + " " + verdict_name(r.judgement.verdict) + " |\n";
  }
  if (!c.accuracy.empty()) {
    out += "\n**Accuracy** (mean KL divergence against the base; a regression beyond x" +
           format("%g", c.accuracy_rule.kld_ratio) + " and +" + format("%g", c.accuracy_rule.kld_increase) +
           "):\n\n| configuration | path | base KLD | new KLD | base same top | new same top | verdict |\n"
           "| --- | --- | ---: | ---: | ---: | ---: | --- |\n";
    for (const AccuracyRow& r : c.accuracy)
      out += "| " + cell(r.config) + " | " + r.path + " | " + format("%.6f", r.base_kld) + " | " +
             format("%.6f", r.next_kld) + " | " + format("%.2f%%", r.base_same_top) + " | " +
             format("%.2f%%", r.next_same_top) + " | " + emoji(r.verdict) + " " + verdict_name(r.verdict) + " |\n";
  }
  if (!c.only_base.empty() || !c.only_new.empty())
    out += "\n" + std::to_string(c.only_base.size()) + " cases only in base, " + std::to_string(c.only_new.size()) +
           " only in new (not compared).\n";
  return out;
}

}  // namespace pdbench::compare
