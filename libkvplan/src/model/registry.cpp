#include "kvplan/registry.h"
#include "kvplan/text.h"

#include <algorithm>
#include <cctype>

#include "model/bundled_data.h"

namespace kvplan {

std::vector<BundledModel> bundled_models() {
  std::vector<BundledModel> out;
  for (const auto& c : detail::bundled_configs()) out.push_back({std::string(c.id), std::string(c.file_name), c.json});
  return out;
}

std::optional<BundledModel> find_bundled(std::string_view id) {
  const std::string key = ascii_lower(id);
  for (const auto& c : detail::bundled_configs()) {
    if (ascii_lower(c.id) == key || ascii_lower(c.file_name) == key) return BundledModel{std::string(c.id), std::string(c.file_name), c.json};
  }
  return std::nullopt;
}

std::vector<std::string> suggest_bundled(std::string_view id, std::size_t max) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  const std::string key = ascii_lower(id);
  for (const auto& c : detail::bundled_configs()) {
    std::string cid = ascii_lower(c.id);
    std::string name = cid.substr(cid.find('/') + 1);
    const std::size_t close = std::max<std::size_t>(3, key.size() / 3);
    std::size_t d = std::min(edit_distance(key, cid, close), edit_distance(key, name, close));
    if (key.size() >= 3 && (cid.find(key) != std::string::npos)) d = 0;
    if (d <= close) scored.emplace_back(d, std::string(c.id));
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace kvplan
