#include <iostream>

#include "common.h"
#include "kvplan/planner.h"

namespace kvplan::cli {

namespace {
struct CompareOptions {
  std::vector<std::string> models;
  std::vector<std::string> assume;
  bool bundled = false;
  std::string tokens = "128k";
  std::string kv_dtype = "auto";
  std::string weight_dtype = "auto";
  bool json = false, csv = false;
};
}  // namespace

static void register_compare(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand("compare", "cache per token and at L tokens next to the weights, one row per model");
  cmd->add_option("MODEL", opt->models, "config.json paths or bundled ids");
  cmd->add_flag("--bundled", opt->bundled, "every bundled model");
  cmd->add_option("--tokens,-n", opt->tokens, "tokens of one sequence")->capture_default_str();
  cmd->add_option("--kv-dtype", opt->kv_dtype, "cache dtype for K and V (auto = model dtype)")->capture_default_str();
  cmd->add_option("--weight-dtype", opt->weight_dtype, "weights dtype or preset (awq gptq nf4 w8a8 fp8 mxfp4 Q4_K_M Q8_0 ...; auto = the checkpoint's format)")->capture_default_str();
  cmd->add_option("--assume", opt->assume, "explicit assumptions, as for kvplan size");
  auto* json = cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->add_flag("--csv", opt->csv, "print the table as CSV")->excludes(json);
  cmd->callback([&run, opt] {
    run = [opt] {
      const std::uint64_t tokens = parse_tokens(opt->tokens, "--tokens");
      const auto kv = parse_dtype_or_auto(opt->kv_dtype, "--kv-dtype");
      const auto wd = parse_weight_format_or_auto(opt->weight_dtype, "--weight-dtype");
      std::vector<std::string> names = opt->models;
      if (opt->bundled)
        for (const auto& b : bundled_models()) names.push_back(b.id);
      if (names.empty()) throw InputError::value("MODEL", "nothing", "one or more models, or --bundled");
      LoadOptions lo;
      lo.assume = opt->assume;
      std::vector<CompareRow> rows;
      for (const auto& n : names) rows.push_back(compare_row(load_model(n, lo), tokens, kv, wd));
      if (opt->json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& r : rows) arr.push_back(to_json(r));
        print_json(nlohmann::json{{"tokens", tokens}, {"models", arr}});
      } else if (opt->csv) {
        std::cout << format_compare_csv(rows);
      } else {
        std::cout << format_compare_text(rows);
      }
      return 0;
    };
  });
}

KVPLAN_VERB(50, register_compare);

}  // namespace kvplan::cli
