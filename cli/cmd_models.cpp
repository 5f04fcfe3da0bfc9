#include <iostream>

#include "common.h"
#include "verb_documents.h"

namespace kvplan::cli {

nlohmann::json models_document(std::string* text) {
  auto out = nlohmann::json::array();
  for (const auto& b : bundled_models()) {
    ModelSpec m = load_model_from_json(b.json, b.file_name);
    nlohmann::json counts = nlohmann::json::object();
    std::string kinds;
    for (const auto& l : m.layers)
      for (const auto& c : l.mixers) {
        std::string k(kind_name(c));
        if (!counts.contains(k)) {
          counts[k] = m.count_kind(k);
          kinds += (kinds.empty() ? "" : ", ") + std::to_string(m.count_kind(k)) + " " + k;
        }
      }
    Workload w;
    w.tokens = 1;
    auto per_token = cache_size(m, w).bytes_per_token;
    out.push_back({{"id", b.id}, {"file", b.file_name}, {"model_type", m.model_type},
                   {"layers", m.layers.size()}, {"layer_counts", counts}, {"dtype", std::string(name(m.dtype))},
                   {"bytes_per_token", per_token}});
    if (text) {
      char line[512];
      std::snprintf(line, sizeof line, "%-48s %-18s %-6s %12s B/token  %s\n", b.id.c_str(), m.model_type.c_str(),
                    std::string(name(m.dtype)).c_str(), format_count(per_token).c_str(), kinds.c_str());
      *text += line;
    }
  }
  return {{"models", out}};
}

static void register_models(CLI::App& app, Runner& run) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("models", "list the bundled model configs");
  cmd->add_flag("--json", *json, "print one JSON object");
  cmd->callback([&run, json] {
    run = [json] {
      std::string text;
      const nlohmann::json doc = models_document(&text);
      if (*json) print_json(doc);
      else std::cout << text;
      return 0;
    };
  });
}

KVPLAN_VERB(20, register_models);

}  // namespace kvplan::cli
