// An engine option table entry as JSON (kvplan.fields("engine.vllm")), beside the request
// tables' (planner_report.cpp).
#include "kvplan/engine_fields.h"

namespace kvplan {

nlohmann::json to_json(const EngineField& f) {
  using json = nlohmann::json;
  json flags = json::array();
  for (std::size_t start = 0; start < f.cli_flags.size();) {
    const std::size_t comma = std::min(f.cli_flags.find(',', start), f.cli_flags.size());
    flags.push_back(f.cli_flags.substr(start, comma - start));
    start = comma + 1;
  }
  json aliases = json::array();
  for (std::size_t i = 1; i < flags.size(); ++i) aliases.push_back(flags[i]);
  return json{{"name", f.name},
              {"cli_flag", flags.empty() ? json(nullptr) : flags[0]},
              {"cli_aliases", aliases},
              {"type", field_type_name(f.type)},
              {"unit", f.unit},
              {"default", f.default_value.empty() ? json(nullptr) : json(f.default_value)},
              {"help", f.help}};
}

}  // namespace kvplan
