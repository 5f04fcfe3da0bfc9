#include "model/family.h"

#include <set>
#include <stdexcept>
#include <string>

namespace kvplan::detail {

namespace families {
#define KVPLAN_FAMILY(stem) std::vector<Family> stem();
#include "families_table.inc"
#undef KVPLAN_FAMILY
}  // namespace families

const std::vector<Family>& all_families() {
  static const std::vector<Family> all = [] {
    std::vector<Family> v;
#define KVPLAN_FAMILY(stem) \
  for (auto& f : families::stem()) v.push_back(std::move(f));
#include "families_table.inc"
#undef KVPLAN_FAMILY
    // Two families claiming one model_type is a programming error, caught by every test run.
    std::set<std::string_view> seen;
    for (const auto& f : v)
      for (auto t : f.model_types)
        if (!seen.insert(t).second)
          throw std::logic_error("kvplan: model_type \"" + std::string(t) + "\" is registered by two families");
    std::set<std::string_view> archs;
    for (const auto& f : v)
      for (const auto& g : f.gguf)
        if (!archs.insert(g.arch).second)
          throw std::logic_error("kvplan: GGUF architecture \"" + std::string(g.arch) + "\" is registered by two families");
    return v;
  }();
  return all;
}

const GgufArch* find_gguf_arch(std::string_view arch) {
  for (const auto& f : all_families())
    for (const auto& g : f.gguf)
      if (g.arch == arch) return &g;
  return nullptr;
}

const Family* find_family(std::string_view model_type) {
  for (const auto& f : all_families())
    for (auto t : f.model_types)
      if (t == model_type) return &f;
  return nullptr;
}

}  // namespace kvplan::detail
