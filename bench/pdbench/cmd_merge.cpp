// pdbench merge: join shard results folders into one.
#include <cstdio>
#include <memory>
#include <vector>

#include "bench/pdbench/commands.h"
#include "bench/runner/merge.h"

namespace pdbench::cli {

void register_merge(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("merge", "Join the results folders of scenario shards (--shard k/n)");
  cmd->footer("Example: pdbench merge results/all results/shard1 results/shard2");
  cmd->add_option("out", *out, "New results folder")->required();
  cmd->add_option("inputs", *inputs, "Shard results folders")->required()->check(CLI::ExistingDirectory);
  cmd->callback([out, inputs] {
    runner::merge_results(*out, *inputs);
    std::fprintf(stderr, "merged %zu folders into %s\n", inputs->size(), out->c_str());
  });
}

}  // namespace pdbench::cli
