#include "bench/compare/accuracy_verdict.h"

#include <cerrno>
#include <cstdlib>

#include "engine/util/error.h"

namespace pdbench::compare {

namespace {

struct Figures {
  std::string config, path;
  double kld = 0, same_top = 0;
};

double figure(const runner::Table& t, const std::vector<std::string>& row, const char* column) {
  const std::string& cell = row[t.column(column)];
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (cell.empty() || *end != '\0' || errno != 0 || !(v >= 0))
    throw Error(std::string("accuracy.csv ") + column + ": '" + cell + "' is not a number");
  return v;
}

std::vector<Figures> figures(const runner::Table& t) {
  std::vector<Figures> out;
  for (const auto& row : t.rows)
    out.push_back({row[t.column("weight_type")] + " KV " + row[t.column("kv_type_k")] + "/" +
                       row[t.column("kv_type_v")],
                   row[t.column("path")], figure(t, row, "kld_mean"), figure(t, row, "same_top_pct")});
  return out;
}

bool moved(double from, double to, const AccuracyRule& rule) {
  return to > from * rule.kld_ratio && to - from > rule.kld_increase;
}

}  // namespace

std::vector<AccuracyRow> compare_accuracy(const std::optional<runner::Table>& base,
                                          const std::optional<runner::Table>& next, const AccuracyRule& rule) {
  std::vector<AccuracyRow> rows;
  if (!base || !next) return rows;
  const std::vector<Figures> b = figures(*base), n = figures(*next);
  for (const Figures& x : b)
    for (const Figures& y : n) {
      if (x.config != y.config || x.path != y.path) continue;
      const Verdict v = moved(x.kld, y.kld, rule)   ? Verdict::Regressed
                        : moved(y.kld, x.kld, rule) ? Verdict::Improved
                                                    : Verdict::Unchanged;
      rows.push_back({x.config, x.path, x.kld, y.kld, x.same_top, y.same_top, v});
    }
  return rows;
}

}  // namespace pdbench::compare
