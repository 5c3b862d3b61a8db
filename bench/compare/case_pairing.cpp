#include "bench/compare/case_pairing.h"

#include <algorithm>
#include <map>
#include <set>

#include "bench/runner/results.h"
#include "engine/util/error.h"

namespace pdbench::compare {

namespace {

// At most this many cases of a side are listed in an error.
constexpr size_t kListedCases = 20;

std::string joined(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

std::vector<std::string> split_axes(const std::string& text, const char* option) {
  std::vector<std::string> axes;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string name = text.substr(start, comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.empty()) throw Error(std::string(option) + ": expected comma-separated case axes, got '" + text + "'");
    std::vector<std::string> known;  // what a user names: the axes, not the columns describing them
    for (const auto& axis : case_axes())
      if (runner::described_axis(axis) == axis) known.push_back(axis);
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw Error(std::string(option) + ": '" + name + "' is not a case axis (known: " + joined(known) + ")");
    axes.push_back(std::move(name));
    start = comma + 1;
  }
  return axes;
}

// One side's cases: id -> the first row of the case, ids in first-seen order.
struct Cases {
  const runner::Table* table = nullptr;
  std::vector<std::string> ids;
  std::map<std::string, const std::vector<std::string>*> row_of;
};

Cases cases_of(const runner::Table& t) {
  Cases c{&t, {}, {}};
  const size_t id_col = t.column("case_id");
  for (const auto& row : t.rows)
    if (c.row_of.emplace(row[id_col], &row).second) c.ids.push_back(row[id_col]);
  return c;
}

bool has_column(const runner::Table& t, const std::string& name) {
  return std::find(t.columns.begin(), t.columns.end(), name) != t.columns.end();
}

std::string value(const Cases& c, const std::string& id, const std::string& axis) {
  return (*c.row_of.at(id))[c.table->column(axis)];
}

// "threads=1 prompt_tokens=16"; the case id itself when keyed by it.
std::string key_of(const Cases& c, const std::string& id, const std::vector<std::string>& axes) {
  if (axes.empty()) return id;
  std::vector<std::string> parts;
  for (const auto& axis : axes) parts.push_back(axis + "=" + value(c, id, axis));
  return joined(parts, " ");
}

std::vector<std::string> key_axes(const runner::Table& base, const runner::Table& next, const MatchRule& rule,
                                  const std::string& base_label, const std::string& new_label) {
  std::vector<std::string> axes;
  if (rule.mode == MatchRule::Mode::CaseId) return axes;
  for (const auto& axis : case_axes()) {
    const bool listed = rule.keys_on(axis);
    if (rule.mode == MatchRule::Mode::Ignore ? listed : !listed) continue;
    const bool in_base = has_column(base, axis), in_new = has_column(next, axis);
    if (in_base && in_new) {
      axes.push_back(axis);
    } else if (rule.mode == MatchRule::Mode::Match &&
               std::find(rule.axes.begin(), rule.axes.end(), axis) != rule.axes.end()) {
      throw Error("--match: " + (in_base ? new_label : base_label) + "'s samples.csv has no column '" + axis +
                  "' (results of an older pdbench)");
    }
  }
  if (rule.mode == MatchRule::Mode::Match && axes.empty()) throw Error("--match: no case axis to pair cases by");
  return axes;
}

// The case axes whose values differ between two cases of one side.
std::vector<std::string> differing_axes(const Cases& c, const std::string& a, const std::string& b) {
  std::vector<std::string> out;
  for (const auto& axis : case_axes())
    if (has_column(*c.table, axis) && value(c, a, axis) != value(c, b, axis)) out.push_back(axis);
  return out;
}

// key -> the side's case id; two cases under one key are an error.
std::map<std::string, std::string> by_key(const Cases& c, const std::vector<std::string>& axes,
                                          const std::string& label) {
  std::map<std::string, std::string> out;
  for (const auto& id : c.ids) {
    const std::string key = key_of(c, id, axes);
    const auto [it, fresh] = out.emplace(key, id);
    if (!fresh)
      throw Error(label + ": cases " + it->second + " and " + id + " both have " + key +
                  ", so neither pairs with one case: they differ in " + joined(differing_axes(c, it->second, id)) +
                  " (--match those too, or --ignore fewer axes)");
  }
  return out;
}

// The axes whose sets of values differ between the sides: what --ignore
// would have to leave out for the cases to pair up, named as --ignore
// takes them (a model's model_sha256 column is its `model` axis).
std::vector<std::string> sides_differ_in(const Cases& a, const Cases& b) {
  std::vector<std::string> out;
  for (const auto& axis : case_axes()) {
    if (!has_column(*a.table, axis) || !has_column(*b.table, axis)) continue;
    std::set<std::string> va, vb;
    for (const auto& id : a.ids) va.insert(value(a, id, axis));
    for (const auto& id : b.ids) vb.insert(value(b, id, axis));
    const std::string named = runner::described_axis(axis);
    if (va != vb && std::find(out.begin(), out.end(), named) == out.end()) out.push_back(named);
  }
  return out;
}

std::string listing(const Cases& c, const std::vector<std::string>& axes, const std::string& label) {
  std::string out = "\n  " + label + " (" + std::to_string(c.ids.size()) + " cases):";
  for (size_t i = 0; i < c.ids.size() && i < kListedCases; ++i)
    out += "\n    " + c.ids[i] + (axes.empty() ? "" : "  [" + key_of(c, c.ids[i], axes) + "]");
  if (c.ids.size() > kListedCases) out += "\n    ... and " + std::to_string(c.ids.size() - kListedCases) + " more";
  return out;
}

[[noreturn]] void fail_no_pairs(const Cases& a, const Cases& b, const std::vector<std::string>& axes,
                                const std::string& base_label, const std::string& new_label) {
  std::string what = base_label + " and " + new_label + " have no case in common (paired by " +
                     (axes.empty() ? std::string("case_id") : joined(axes)) + ")";
  what += listing(a, axes, base_label) + listing(b, axes, new_label);
  const std::vector<std::string> differ = sides_differ_in(a, b);
  if (!differ.empty())
    what += "\n  the sides differ in " + joined(differ) + ": --ignore " + joined(differ, ",") +
            " pairs cases across them (docs/COMPARE.md)";
  throw Error(what);
}

}  // namespace

MatchRule MatchRule::parse(const std::string& match, const std::string& ignore) {
  if (!match.empty() && !ignore.empty()) throw Error("--match and --ignore: give one of them, not both");
  if (!match.empty()) return {Mode::Match, split_axes(match, "--match")};
  if (!ignore.empty()) return {Mode::Ignore, split_axes(ignore, "--ignore")};
  return {};
}

bool MatchRule::keys_on(const std::string& axis) const {
  return std::find(axes.begin(), axes.end(), runner::described_axis(axis)) != axes.end();
}

std::vector<std::string> case_axes() {
  std::vector<std::string> axes;
  for (const auto& column : runner::case_columns())
    if (column != "case_index" && column != "case_id") axes.push_back(column);
  return axes;
}

CasePairs pair_cases(const runner::Table& base, const runner::Table& next, const MatchRule& rule,
                     const std::string& base_label, const std::string& new_label) {
  CasePairs out;
  out.key_axes = key_axes(base, next, rule, base_label, new_label);
  const Cases a = cases_of(base), b = cases_of(next);
  by_key(a, out.key_axes, base_label);  // a base key shared by two cases is as ambiguous
  const std::map<std::string, std::string> new_by_key = by_key(b, out.key_axes, new_label);
  std::set<std::string> paired_new;
  for (const auto& id : a.ids) {
    const auto it = new_by_key.find(key_of(a, id, out.key_axes));
    if (it == new_by_key.end()) {
      out.only_base.push_back(id);
      continue;
    }
    out.pairs.push_back({id, it->second});
    paired_new.insert(it->second);
  }
  for (const auto& id : b.ids)
    if (!paired_new.contains(id)) out.only_new.push_back(id);
  if (out.pairs.empty()) fail_no_pairs(a, b, out.key_axes, base_label, new_label);
  return out;
}

}  // namespace pdbench::compare
