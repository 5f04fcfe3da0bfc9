#pragma once
// YAML through yaml-cpp (Debian's libyaml-cpp-dev), with limits: the text size, the nesting
// depth (yaml-cpp refuses more than 2,000 levels while parsing; kvplan reads at most
// kMaxYamlDepth) and the nodes visited after alias expansion (kMaxYamlNodes: billion laughs).
// The web build has no yaml-cpp: there every YAML input is a clear error.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvplan::detail {

// One YAML document as JSON (plain scalars typed as YAML 1.2's core schema: null, true/false,
// integers, floats; quoted scalars stay strings), with the 1-based line of every mapping and
// sequence entry kept in `lines` by JSON pointer.
struct YamlDocument {
  nlohmann::json value;
  std::uint64_t line = 1;                              // where the document starts
  std::vector<std::pair<std::string, std::uint64_t>> lines;  // JSON pointer -> line
  std::uint64_t line_of(const std::string& pointer) const;   // the nearest recorded ancestor's line
};

bool yaml_available();
// Every document of a (multi-document) YAML text. ConfigError / DeploymentError naming `source`
// and the line for syntax errors and exceeded limits.
std::vector<YamlDocument> parse_yaml_documents(std::string_view text, std::string_view source);

}  // namespace kvplan::detail
