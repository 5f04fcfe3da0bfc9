#include <iostream>

#include "plan_options.h"

namespace kvplan::cli {

namespace {
struct SweepOptions {
  PlanOptions plan;
  std::vector<std::string> contexts{"1k", "4k", "16k", "32k", "64k", "128k"};
  std::vector<std::string> concurrency{"1", "8", "32", "128"};
  bool csv = false, json = false;
};
}  // namespace

static void register_sweep(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand("sweep", "a context x concurrency grid of per-GPU memory, fit and decode step time");
  opt->plan.add(*cmd);
  cmd->add_option("--contexts", opt->contexts, "tokens per sequence, comma-separated")->capture_default_str();
  cmd->add_option("--concurrency", opt->concurrency, "sequences, comma-separated")->capture_default_str();
  auto* csv = cmd->add_flag("--csv", opt->csv, "print CSV (the default)");
  auto* json = cmd->add_flag("--json", opt->json, "print one JSON object");
  csv->excludes(json);
  cmd->callback([&run, opt] {
    run = [opt] {
      PlanInput in = opt->plan.input();
      const auto contexts = parse_token_list(opt->contexts, "--contexts");
      const auto concurrency = parse_token_list(opt->concurrency, "--concurrency");
      in.context = contexts.front();
      const ModelSpec m = opt->plan.model.load();
      const SweepResult s = sweep(m, in, contexts, concurrency);
      // Streamed: a 1,024 x 1,024 grid is never one document in memory (so not print_json; the
      // schema tag it would add is added here).
      if (opt->json)
        write_sweep_json(std::cout, s, {{"model", m.name}, {"gpu", in.gpu.name}, {"schema", schema_id("sweep")},
                                        {"request", sweep_request_json(in)}});
      else write_sweep_csv(std::cout, s);
      return 0;
    };
  });
}

KVPLAN_VERB(55, register_sweep);

}  // namespace kvplan::cli
