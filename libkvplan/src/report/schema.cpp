#include <array>
#include <string>
#include <string_view>

#include "kvplan/error.h"
#include "kvplan/report.h"

namespace kvplan {

namespace {
// The version of each verb's JSON document. Bump a verb's number (and CHANGELOG.md, and
// docs/schema/<verb>.schema.json) when a key is removed, renamed or changes type; adding a key
// is not a new version.
struct SchemaVersion {
  std::string_view verb;
  int version;
};
constexpr std::array kSchemas{
    SchemaVersion{"models", 1}, SchemaVersion{"inspect", 1}, SchemaVersion{"size", 1},
    SchemaVersion{"plan", 2},   SchemaVersion{"sweep", 1},   SchemaVersion{"compare", 1},
    SchemaVersion{"gpus", 1},   SchemaVersion{"engine", 1},  SchemaVersion{"check", 1},
    SchemaVersion{"measure", 1}, SchemaVersion{"simulate", 1}, SchemaVersion{"search", 1},
};
}  // namespace

std::string schema_id(std::string_view verb) {
  for (const auto& s : kSchemas)
    if (s.verb == verb) return "kvplan." + std::string(verb) + "/" + std::to_string(s.version);
  throw Error("internal: no JSON schema is registered for the verb \"" + std::string(verb) + "\"");
}

nlohmann::json with_schema(std::string_view verb, nlohmann::json document) {
  if (!document.is_object())
    throw Error("internal: the JSON document of \"" + std::string(verb) + "\" is not an object");
  document["schema"] = schema_id(verb);
  return document;
}

}  // namespace kvplan
