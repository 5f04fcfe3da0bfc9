#pragma once
// The --json documents of the verbs whose document is assembled in cli/ (no single library call),
// shared by the verb and `kvplan mcp` so that both return the same object.
#include <string>

#include <nlohmann/json.hpp>

namespace kvplan::cli {

// `kvplan models --json`; `text`, when given, receives the verb's text table.
nlohmann::json models_document(std::string* text = nullptr);
// `kvplan gpus [NAME] [--vendor V] --json`: one device's object, or {"gpus": [...]}.
nlohmann::json gpus_document(const std::string& name, const std::string& vendor);

}  // namespace kvplan::cli
