// pdbench merge: join shard results folders into one (and optionally append
// it to the results history).
#include <cstdio>
#include <memory>
#include <vector>

#include "bench/pdbench/commands.h"
#include "bench/resultsdb/history.h"
#include "bench/runner/merge.h"

namespace pdbench::cli {

void register_merge(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto db = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("merge", "Join the results folders of scenario shards (--shard k/n)");
  cmd->footer("Example: pdbench merge results/all results/shard1 results/shard2 --db results.sqlite");
  cmd->add_option("out", *out, "New results folder")->required();
  cmd->add_option("inputs", *inputs, "Shard results folders")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--db", *db, "Also append the merged folder to this results history (SQLite; docs/RESULTS.md)");
  cmd->callback([out, inputs, db] {
    runner::merge_results(*out, *inputs);
    std::fprintf(stderr, "merged %zu folders into %s\n", inputs->size(), out->c_str());
    if (!db->empty())
      std::fprintf(stderr, "stored as run %lld in %s\n", static_cast<long long>(resultsdb::History(*db).append(*out)),
                   db->c_str());
  });
}

}  // namespace pdbench::cli
