// pdbench merge: join shard results folders into one (and optionally append
// it to the results history), or store one finished folder in the history.
#include <cstdio>
#include <memory>
#include <vector>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/store_run.h"
#include "bench/runner/merge.h"
#include "engine/util/error.h"

namespace pdbench::cli {

void register_merge(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto db = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("merge", "Join the results folders of scenario shards (--shard k/n)");
  cmd->footer(
      "Examples: pdbench merge results/all results/shard1 results/shard2 --db results.sqlite\n"
      "          pdbench merge results/x --db postgresql://bench@db:5432/bench   (store one finished folder)");
  cmd->add_option("out", *out, "New results folder (alone, with --db: a finished folder to store)")->required();
  cmd->add_option("inputs", *inputs, "Shard results folders")->check(CLI::ExistingDirectory);
  cmd->add_option("--db", *db,
                  "Also append the merged folder to this results history (an SQLite file or a postgresql:// URL; "
                  "docs/RESULTS.md)");
  cmd->callback([out, inputs, db] {
    if (inputs->empty()) {
      if (db->empty()) throw Error("merge: name the shard folders to join into " + *out + ", or --db to store it");
      store_run(*db, *out);
      return;
    }
    runner::merge_results(*out, *inputs);
    std::fprintf(stderr, "merged %zu folders into %s\n", inputs->size(), out->c_str());
    if (!db->empty()) store_run(*db, *out);
  });
}

}  // namespace pdbench::cli
