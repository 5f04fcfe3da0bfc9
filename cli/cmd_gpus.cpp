#include <algorithm>
#include <cctype>
#include <iostream>

#include "common.h"
#include "kvplan/planner.h"
#include "kvplan/text.h"
#include "verb_documents.h"

namespace kvplan::cli {

namespace {
struct GpusOptions {
  std::string name;
  std::string vendor;
  bool json = false;
};
}  // namespace

namespace {
std::vector<Accelerator> select_gpus(const std::string& name, const std::string& vendor) {
  std::vector<Accelerator> list;
  if (!name.empty()) {
    list.push_back(find_accelerator(name));
  } else {
    for (const auto& a : accelerator_catalog())
      if (vendor.empty() || ascii_lower(a.vendor) == ascii_lower(vendor)) list.push_back(a);
    if (list.empty()) throw InputError::value("--vendor", vendor, "NVIDIA, AMD, Intel, Google or Apple");
  }
  return list;
}
}  // namespace

nlohmann::json gpus_document(const std::string& name, const std::string& vendor) {
  const std::vector<Accelerator> list = select_gpus(name, vendor);
  if (!name.empty()) return to_json(list.front());
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& a : list) arr.push_back(to_json(a));
  return {{"gpus", arr}};
}

static void register_gpus(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<GpusOptions>();
  auto* cmd = app.add_subcommand("gpus", "the accelerator catalog (or one device by name)");
  cmd->add_option("NAME", opt->name, "show one device (case-insensitive, aliases accepted)");
  cmd->add_option("--vendor", opt->vendor, "only this vendor (NVIDIA, AMD, Intel, Google, Apple)");
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->callback([&run, opt] {
    run = [opt] {
      if (opt->json) {
        print_json(gpus_document(opt->name, opt->vendor));
        return 0;
      }
      const std::vector<Accelerator> list = select_gpus(opt->name, opt->vendor);
      {
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
