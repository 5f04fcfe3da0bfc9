#include <iostream>

#include "common.h"

namespace kvplan::cli {

namespace {
struct SizeOptions {
  ModelOptions model;
  DtypeOptions dtypes;
  std::string tokens = "4096";
  std::string batch = "1";
  std::uint64_t tp = 1;
  bool json = false;
};
}  // namespace

static void register_size(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<SizeOptions>();
  auto* cmd = app.add_subcommand("size", "exact cache bytes held by B sequences of N tokens");
  opt->model.add(*cmd);
  add_field(*cmd, "size", "tokens", opt->tokens, "-n")->capture_default_str();
  add_field(*cmd, "size", "batch", opt->batch, "-b")->capture_default_str();
  add_field(*cmd, "size", "tp", opt->tp)->capture_default_str();
  opt->dtypes.add(*cmd);
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->callback([&run, opt] {
    run = [opt] {
      Workload w;
      w.tokens = parse_tokens(opt->tokens, "--tokens");
      w.batch = parse_tokens(opt->batch, "--batch");
      w.tp = opt->tp;
      opt->dtypes.apply(w);
      ModelSpec m = opt->model.load();
      CacheSize s = cache_size(m, w);
      if (opt->json) {
        auto j = to_json(s);
        j["assumptions"] = m.assumptions;
        print_json(j);
      } else {
        std::cout << format_size_text(s);
        for (const auto& a : m.assumptions) std::cout << "assumption: " << a << "\n";
      }
      return 0;
    };
  });
}

KVPLAN_VERB(10, register_size);

}  // namespace kvplan::cli
