#include <iostream>

#include "common.h"

namespace kvplan::cli {

static void register_inspect(CLI::App& app, Runner& run) {
  struct Opts {
    ModelOptions model;
    DtypeOptions dtypes;
    bool json = false, csv = false;
  };
  auto opt = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("inspect", "per-layer table: kind, heads, head dims, window, bytes per token, state");
  opt->model.add(*cmd);
  opt->dtypes.add(*cmd);
  auto* json = cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->add_flag("--csv", opt->csv, "print the per-layer table as CSV")->excludes(json);
  cmd->callback([&run, opt] {
    run = [opt] {
      ModelSpec m = opt->model.load();
      Workload w;
      opt->dtypes.apply(w);
      auto dt = resolve_dtypes(m, w);
      if (opt->json) print_json(to_json(m));
      else if (opt->csv) std::cout << format_inspect_csv(m, dt);
      else std::cout << format_inspect_text(m, dt);
      return 0;
    };
  });
}

KVPLAN_VERB(15, register_inspect);

}  // namespace kvplan::cli
