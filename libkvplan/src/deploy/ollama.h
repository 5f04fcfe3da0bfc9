#pragma once
// Ollama's Modelfile PARAMETERs / API options as data (flags_ollama.cpp) and the Modelfile reader.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan::detail {

struct OllamaParameter {
  std::string_view name;   // num_ctx, ...
  bool memory = false;     // changes memory (modelled); else does not
};
const std::vector<OllamaParameter>& ollama_parameters();
const OllamaParameter* find_ollama_parameter(std::string_view name);

// A Modelfile (parser/parser.go): FROM and PARAMETER lines; other instructions (TEMPLATE, SYSTEM,
// ADAPTER, LICENSE, MESSAGE) are kept by name. Errors name the line.
struct Modelfile {
  std::string from;
  std::map<std::string, std::string> parameters;  // the last value of each (stop: the last)
  std::vector<std::string> instructions;          // upper-cased instruction names met
};
Modelfile parse_modelfile(std::string_view text, std::string_view source);

}  // namespace kvplan::detail
