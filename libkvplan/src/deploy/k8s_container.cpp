#include "deploy/k8s_container.h"

#include <algorithm>
#include <cctype>

#include "kvplan/check.h"
#include "util/config_view.h"

namespace kvplan::detail {

namespace {
[[noreturn]] void refuse(std::string_view where, const std::string& what) {
  throw DeploymentError(std::string(where) + ": " + what, "", 0);
}
}  // namespace

std::vector<std::string> k8s_string_list(const nlohmann::json& v, std::string_view where, std::string_view key) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array())
    refuse(where, std::string(key) + " must be a list of strings (Kubernetes' []string), got " + describe_json(v) +
                      "; the API server refuses the manifest");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto& x = v[i];
    if (x.is_string()) out.push_back(x.get<std::string>());
    else if (x.is_null()) out.emplace_back();  // Go decodes null into "" (encoding/json)
    else
      refuse(where, std::string(key) + "[" + std::to_string(i) + "] is " + describe_json(x) +
                        ", not a string; Kubernetes' API server refuses the manifest (quote it: \"" +
                        (x.is_number() || x.is_boolean() ? x.dump() : std::string("...")) + "\")");
  }
  return out;
}

std::optional<std::uint64_t> k8s_container_gpus(const nlohmann::json& c, std::string_view where) {
  if (!c.is_object()) return std::nullopt;
  const auto res = c.find("resources");
  if (res == c.end() || !res->is_object()) return std::nullopt;
  for (const char* part : {"limits", "requests"}) {
    const auto r = res->find(part);
    if (r == res->end() || !r->is_object()) continue;
    for (const char* k : {"nvidia.com/gpu", "amd.com/gpu"}) {
      const auto q = r->find(k);
      if (q == r->end()) continue;
      if (q->is_number_unsigned()) return q->get<std::uint64_t>();
      if (q->is_string()) {
        const std::string s = q->get<std::string>();
        if (!s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; }))
          return std::stoull(s);
      }
      refuse(where, std::string("expected a whole number of GPUs in resources.") + part + "." + k + ", got " + describe_json(*q));
    }
  }
  return std::nullopt;
}

}  // namespace kvplan::detail
