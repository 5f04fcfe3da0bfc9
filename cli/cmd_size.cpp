#include <iostream>
#include <map>

#include "common.h"

namespace kvplan::cli {

namespace {
struct SizeOptions {
  ModelOptions model;
  // Each size-table field's text as typed; the library's parser (workload_from_request) reads them.
  std::map<std::string, std::string, std::less<>> fields;
  bool json = false, csv = false;
};
}  // namespace

static void register_size(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<SizeOptions>();
  auto* cmd = app.add_subcommand("size", "exact cache bytes held by B sequences of N tokens");
  opt->model.add(*cmd);
  for (const RequestField& f : size_request_fields()) {
    // --context: plan's spelling of the same quantity (tokens per sequence) is read here too.
    const std::string_view alias = f.name == "tokens" ? "-n,--context" : f.name == "batch" ? "-b" : "";
    auto* o = add_field(*cmd, "size", f.name, opt->fields[std::string(f.name)], alias);
    if (!f.default_value.empty()) o->default_str(std::string(f.default_value));
  }
  auto* json = cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->add_flag("--csv", opt->csv, "print the per-layer table as CSV (bytes for all sequences)")->excludes(json);
  cmd->callback([&run, opt] {
    run = [opt] {
      nlohmann::json req = nlohmann::json::object();
      for (const auto& [name, text] : opt->fields)
        if (!text.empty()) req[name] = text;
      const Workload w = workload_from_request(req, FieldNaming::cli_flag);
      ModelSpec m = opt->model.load();
      CacheSize s = cache_size(m, w);
      if (opt->json) {
        auto j = to_json(s);
        j["assumptions"] = m.assumptions;
        print_json(j);
      } else if (opt->csv) {
        std::cout << format_size_csv(s);
        for (const auto& a : m.assumptions) std::cerr << "assumption: " << a << "\n";
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
