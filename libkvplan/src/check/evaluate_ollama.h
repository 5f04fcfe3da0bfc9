#pragma once
// kvplan check for an Ollama deployment (evaluate_ollama.cpp).
#include "kvplan/check.h"

namespace kvplan::detail {

// Ollama's settings as its server reads them (envconfig at v0.11.4): an unparsable number keeps
// the default (Ollama logs "invalid environment variable, using default"); a boolean that is set
// but not a strconv.ParseBool spelling is true.
struct OllamaLaunch {
  OllamaOptions options;                 // without the GPUs and weights
  std::vector<std::string> notes;
};
OllamaLaunch read_ollama_launch(const Deployment& d);

CheckResult check_ollama(const Deployment& d, const CheckOptions& o);

}  // namespace kvplan::detail
