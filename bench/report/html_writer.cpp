#include "bench/report/html_writer.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "bench/report/accuracy_table.h"
#include "bench/report/assets.h"
#include "bench/report/tables.h"
#include "bench/runner/machine_load.h"
#include "engine/util/utc_time.h"

namespace pdbench::report {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Inside <script>, "</script" ends the element early. In a library it can
// only sit in a string, regex or comment, where "<\/script" means the same.
std::string script_safe(std::string js) {
  for (size_t at = 0; (at = js.find("</", at)) != std::string::npos; at += 3) {
    std::string word = js.substr(at + 2, 6);
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word == "script") js.replace(at, 2, "<\\/");
  }
  return js;
}

// JSON has "<" only inside strings, where \u003c is the same character.
std::string json_safe(const std::string& json) {
  std::string out;
  for (char c : json) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

std::string section_id(const std::string& section) {
  std::string id;
  for (char c : section) id += c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return id;
}

// `mark_differing`: a row whose value columns disagree gets a class (the
// fingerprint facts on which runs differ).
std::string table_html(const TextTable& t, const std::string& css_class, bool mark_differing) {
  std::string out = "<table class=\"" + css_class + "\"><thead><tr>";
  for (const auto& h : t.header) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : t.rows) {
    bool differs = false;
    for (size_t i = 2; i < row.size(); ++i) differs = differs || row[i] != row[1];
    out += differs && mark_differing ? "<tr class=\"differs\">" : "<tr>";
    for (size_t i = 0; i < row.size(); ++i) out += (i == 0 ? "<th>" : "<td>") + escape(row[i]) + (i == 0 ? "</th>" : "</td>");
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

const char* const kStyle = R"css(
:root { --prefill: #4c78a8; --decode: #f58518; --memory: #54a24b; --time: #b279a2; --ink: #1f2430; --muted: #5d6473; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f5f6f8; }
header { background: #1f2430; color: #fff; padding: 28px 40px 22px; }
header h1 { margin: 0 0 4px; font-size: 26px; font-weight: 600; letter-spacing: .2px; }
header .runs { margin: 0; padding: 0; list-style: none; color: #c9cfdb; font-size: 14px; }
header details { margin-top: 14px; }
header .run-notes { margin: 10px 0 0; padding: 0; list-style: none; font-size: 13px; color: #c9cfdb; }
header .run-notes li.warn { color: #1f2430; background: #ffd479; border-radius: 4px; padding: 3px 8px; margin: 4px 0; }
header summary { cursor: pointer; color: #e4e8f0; font-size: 14px; }
nav { position: sticky; top: 0; z-index: 5; background: #fff; border-bottom: 1px solid #dde1e8; padding: 8px 40px; }
nav a { margin-right: 22px; color: var(--ink); text-decoration: none; font-size: 14px; font-weight: 500; }
nav a:hover { text-decoration: underline; }
main { max-width: 1320px; margin: 0 auto; padding: 12px 40px 40px; }
section { margin-top: 26px; }
section > h2 { font-size: 20px; font-weight: 600; margin: 0 0 12px; padding-left: 12px; border-left: 5px solid #888; }
section.prefill > h2 { border-color: var(--prefill); }
section.decode > h2 { border-color: var(--decode); }
section.memory > h2 { border-color: var(--memory); }
section.where-the-time-goes > h2 { border-color: var(--time); }
.insights { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 14px 22px; }
.insights h3 { font-size: 15px; margin: 10px 0 4px; }
.insights h3.prefill { color: var(--prefill); }
.insights h3.decode { color: #c0600c; }
.insights ul { margin: 0 0 6px; padding-left: 20px; }
.insights li { margin: 4px 0; }
.insights .run { font-weight: 600; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(580px, 1fr)); gap: 18px; }
figure { margin: 0; background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 14px 16px; overflow-x: auto; }
figure.wide { grid-column: 1 / -1; }
figcaption { color: var(--muted); font-size: 13px; margin-bottom: 8px; }
.note { color: #8a5a00; background: #fff7e0; border: 1px solid #f0dca0; border-radius: 6px; padding: 6px 10px; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; }
table.fingerprint { margin-top: 8px; color: #e4e8f0; }
table.fingerprint th, table.fingerprint td { text-align: left; padding: 2px 14px 2px 0; vertical-align: top; font-weight: normal; }
table.fingerprint th { color: #9aa3b5; white-space: nowrap; }
table.fingerprint tr.differs td { color: #ffd479; }
table.cases { background: #fff; border: 1px solid #dde1e8; margin-bottom: 16px; }
table.cases th, table.cases td { padding: 5px 12px; border-bottom: 1px solid #eceef2; }
table.cases thead th { background: #eef0f4; text-align: right; }
table.cases td { text-align: right; font-variant-numeric: tabular-nums; }
table.cases tbody th { text-align: left; font-weight: normal; font-family: ui-monospace, monospace; font-size: 12px; }
footer { color: var(--muted); font-size: 12px; max-width: 1320px; margin: 0 auto; padding: 0 40px 30px; }
)css";

// Draws every chart; body[data-rendered] tells a test when all are done.
const char* const kEmbed = R"js(
const opts = { renderer: 'svg', mode: 'vega-lite',
               actions: { export: true, source: false, compiled: false, editor: false } };
const pending = [...document.querySelectorAll('.chart[data-spec]')].map(el => {
  const spec = JSON.parse(document.getElementById(el.dataset.spec).textContent);
  return vegaEmbed(el, spec, opts).catch(err => {
    el.textContent = 'This chart failed to draw: ' + err;
    throw err;
  });
});
Promise.all(pending).then(() => { document.body.dataset.rendered = 'ok'; },
                          err => { console.error(err); document.body.dataset.rendered = 'error'; });
)js";

// The pieces every page shares: head with the inlined scripts, the chart
// sections, and the footer that draws the charts.
std::string page_head(const std::string& title) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>" + escape(title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n";
  for (const char* lib : {"node_modules/vega/build/vega.min.js", "node_modules/vega-lite/build/vega-lite.min.js",
                          "node_modules/vega-embed/build/vega-embed.min.js"})
    h += "<script>" + script_safe(read_asset(lib)) + "</script>\n";
  return h + "</head><body>\n";
}

// The machine's load and unstable warm-ups, above everything they qualify.
std::string notes_html(const std::vector<RunData>& runs) {
  std::string h = "<ul class=\"run-notes\">";
  for (const auto& run : runs)
    for (const auto& note : runner::run_notes(run.meta, run.summary)) {
      const bool warn = note.starts_with("busy") || note.starts_with("warm-up");
      h += std::string("<li") + (warn ? " class=\"warn\"" : "") + ">" +
           (runs.size() > 1 ? "<b>" + escape(run.label) + ":</b> " : "") + escape(note) + "</li>";
    }
  return h + "</ul>";
}

std::vector<std::string> sections_of(const std::vector<Chart>& charts) {
  std::vector<std::string> sections;
  for (const auto& c : charts)
    if (std::find(sections.begin(), sections.end(), c.section) == sections.end()) sections.push_back(c.section);
  return sections;
}

std::string nav_links(const std::vector<std::string>& sections) {
  std::string h;
  for (const auto& s : sections) h += "<a href=\"#" + section_id(s) + "\">" + escape(s) + "</a>";
  return h;
}

std::string chart_sections(const std::vector<Chart>& charts, const std::vector<std::string>& sections) {
  std::string h;
  for (const auto& s : sections) {
    h += "<section id=\"" + section_id(s) + "\" class=\"" + section_id(s) + "\"><h2>" + escape(s) +
         "</h2><div class=\"grid\">\n";
    for (const auto& c : charts) {
      if (c.section != s) continue;
      const bool wide = c.id == "ops" || c.id == "roofline";  // facets, or legends at the side
      h += std::string("<figure") + (wide ? " class=\"wide\"" : "") + " id=\"figure-" + c.id + "\">";
      h += "<figcaption>" + escape(c.caption) + "</figcaption>";
      if (!c.note.empty()) h += "<p class=\"note\">" + escape(c.note) + "</p>";
      if (!c.spec.is_null()) {
        h += "<div class=\"chart\" id=\"chart-" + c.id + "\" data-spec=\"spec-" + c.id + "\"></div>";
        h += "<script type=\"application/json\" id=\"spec-" + c.id + "\">" + json_safe(c.spec.dump()) + "</script>";
      }
      h += "</figure>\n";
    }
    h += "</div></section>\n";
  }
  return h;
}

// `sources` is already HTML.
std::string page_end(const std::string& sources) {
  return "</main>\n<footer>Generated by pdbench report on " + utc_now("%Y-%m-%d %H:%M UTC") + " from " + sources +
         ". Metric definitions: docs/METRICS.md; files: docs/RESULTS.md. Hover a point for exact values.</footer>\n"
         "<script>" + std::string(kEmbed) + "</script>\n</body></html>\n";
}

}  // namespace

std::string render_html(const std::vector<RunData>& runs, const std::vector<Chart>& charts,
                        const std::vector<Insight>& insights) {
  std::string title = "pdbench report";
  for (size_t i = 0; i < runs.size(); ++i) title += (i ? ", " : ": ") + runs[i].label;
  std::string h = page_head(title);
  h += "<header><h1>" + escape(title) + "</h1><ul class=\"runs\">";
  for (const auto& run : runs) h += "<li>" + escape(run_line(run)) + "</li>";
  h += "</ul>" + notes_html(runs) + "<details open><summary>Machine fingerprint" +
       std::string(runs.size() > 1 ? " (rows where runs differ are highlighted)" : "") + "</summary>" +
       table_html(fingerprint_table(runs), "fingerprint", true) + "</details></header>\n";

  const std::vector<std::string> sections = sections_of(charts);
  h += "<nav><a href=\"#bounds\">What bounds each phase</a>" + nav_links(sections) +
       "<a href=\"#cases\">Cases</a></nav>\n<main>\n";

  h += "<section id=\"bounds\"><h2>What bounds each phase</h2><div class=\"insights\">";
  std::string phase;
  for (const auto& in : insights) {
    if (in.phase != phase) {
      h += std::string(phase.empty() ? "" : "</ul>") + "<h3 class=\"" + section_id(in.phase) + "\">" + escape(in.phase) +
           "</h3><ul>";
      phase = in.phase;
    }
    h += "<li>" + (runs.size() > 1 ? "<span class=\"run\">" + escape(in.run) + ":</span> " : "") + escape(in.text) + "</li>";
  }
  h += std::string(phase.empty() ? "<p>No cases to describe.</p>" : "</ul>") + "</div></section>\n";
  h += chart_sections(charts, sections);

  h += "<section id=\"cases\"><h2>Cases</h2>";
  for (const auto& run : runs) {
    if (runs.size() > 1) h += "<h3>" + escape(run.label) + "</h3>";
    h += table_html(key_table(run), "cases", false);
  }
  h += "</section>\n";
  for (const auto& run : runs) {
    const TextTable accuracy = accuracy_table(run);
    if (accuracy.rows.empty()) continue;
    h += "<section id=\"accuracy\"><h2>Accuracy" + (runs.size() > 1 ? ": " + escape(run.label) : std::string()) +
         "</h2><p>KL divergence and top-1 agreement against the base, beside the fastest tokens/s of the same "
         "configuration's batch-1 cases.</p>" +
         table_html(accuracy, "cases", false) + "</section>\n";
  }
  std::string sources;
  for (size_t i = 0; i < runs.size(); ++i) sources += (i ? ", " : "") + escape(runs[i].dir);
  return h + page_end(sources);
}

std::string render_history_html(const HistoryData& history, const std::vector<Chart>& charts) {
  const std::string title = "pdbench history: " + history_title(history);
  std::string h = page_head(title);
  h += "<header><h1>" + escape(title) + "</h1><ul class=\"runs\">";
  for (const auto& line : history_lines(history)) h += "<li>" + escape(line) + "</li>";
  h += "</ul></header>\n";
  const std::vector<std::string> sections = sections_of(charts);
  h += "<nav>" + nav_links(sections) + "<a href=\"#runs\">Runs</a></nav>\n<main>\n";
  h += chart_sections(charts, sections);
  h += "<section id=\"runs\"><h2>Runs</h2>" + table_html(runs_table(history), "cases", false) + "</section>\n";
  return h + page_end(escape(history.db));
}

}  // namespace pdbench::report
