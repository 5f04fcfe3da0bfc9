#include <algorithm>
#include <cctype>
#include <iostream>

#include "common.h"
#include "kvplan/planner.h"
#include "kvplan/text.h"

namespace kvplan::cli {

namespace {
struct GpusOptions {
  std::string name;
  std::string vendor;
  bool json = false;
};
}  // namespace

static void register_gpus(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<GpusOptions>();
  auto* cmd = app.add_subcommand("gpus", "the accelerator catalog (or one device by name)");
  cmd->add_option("NAME", opt->name, "show one device (case-insensitive, aliases accepted)");
  cmd->add_option("--vendor", opt->vendor, "only this vendor (NVIDIA, AMD, Intel, Google, Apple)");
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->callback([&run, opt] {
    run = [opt] {
      std::vector<Accelerator> list;
      if (!opt->name.empty()) {
        list.push_back(find_accelerator(opt->name));
      } else {
        for (const auto& a : accelerator_catalog())
          if (opt->vendor.empty() || ascii_lower(a.vendor) == ascii_lower(opt->vendor)) list.push_back(a);
        if (list.empty()) throw InputError::value("--vendor", opt->vendor, "NVIDIA, AMD, Intel, Google or Apple");
      }
      if (opt->json) {
        if (!opt->name.empty()) {
          print_json(to_json(list.front()));
        } else {
          nlohmann::json arr = nlohmann::json::array();
          for (const auto& a : list) arr.push_back(to_json(a));
          print_json(nlohmann::json{{"gpus", arr}});
        }
      } else {
        std::cout << format_gpus_text(list);
        if (!opt->name.empty()) {
          const auto& a = list.front();
          std::cout << "aliases: ";
          for (std::size_t i = 0; i < a.aliases.size(); ++i) std::cout << (i ? ", " : "") << a.aliases[i];
          std::cout << "\nmemory: " << a.memory_basis << "\nsource: " << a.source << "\n";
        }
      }
      return 0;
    };
  });
}

KVPLAN_VERB(45, register_gpus);

}  // namespace kvplan::cli
