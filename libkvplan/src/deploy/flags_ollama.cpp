// Ollama's settings, every one classified: the server's OLLAMA_* environment (envconfig/config.go
// AsMap and the variables read elsewhere), `ollama run`'s flags (cmd/cmd.go), and the Modelfile
// PARAMETERs / API options (api/types.go Options and Runner), all at ollama/ollama v0.11.4
// (f2e9c9aff5f59b21a5d9a9668408732b3de01e20). An environment variable is its own row (its name is
// its spelling); its value is read as envconfig reads it (evaluate_ollama.cpp). "memory": changes
// the scheduler's estimate or the runner's cache and is modelled; "ignored": does not change GPU
// memory; "unmodelled": may change it and is not modelled (the verdict cannot pass).
#include "deploy/flags.h"
#include "deploy/ollama.h"

#include <algorithm>
#include <sstream>

#include "kvplan/error.h"
#include "kvplan/text.h"

namespace kvplan::detail {

EngineFlagTable ollama_flag_table() {
  EngineFlagTable t = make_flag_table("ollama", "ollama/ollama@f2e9c9af (v0.11.4) envconfig/config.go, cmd/cmd.go runCmd", R"(
# Server environment (envconfig/config.go)
OLLAMA_CONTEXT_LENGTH | 1 | memory | env=OLLAMA_CONTEXT_LENGTH
OLLAMA_NUM_PARALLEL | 1 | memory | env=OLLAMA_NUM_PARALLEL
OLLAMA_KV_CACHE_TYPE | 1 | memory | env=OLLAMA_KV_CACHE_TYPE
OLLAMA_FLASH_ATTENTION | 1 | memory | env=OLLAMA_FLASH_ATTENTION
OLLAMA_GPU_OVERHEAD | 1 | memory | env=OLLAMA_GPU_OVERHEAD
OLLAMA_NEW_ENGINE | 1 | memory | env=OLLAMA_NEW_ENGINE
OLLAMA_SCHED_SPREAD | 1 | unmodelled | env=OLLAMA_SCHED_SPREAD
OLLAMA_MAX_LOADED_MODELS | 1 | unmodelled | env=OLLAMA_MAX_LOADED_MODELS
OLLAMA_MULTIUSER_CACHE | 1 | ignored | env=OLLAMA_MULTIUSER_CACHE
OLLAMA_LLM_LIBRARY | 1 | unmodelled | env=OLLAMA_LLM_LIBRARY
OLLAMA_INTEL_GPU | 1 | unmodelled | env=OLLAMA_INTEL_GPU
OLLAMA_MAX_QUEUE | 1 | ignored | env=OLLAMA_MAX_QUEUE
OLLAMA_KEEP_ALIVE | 1 | ignored | env=OLLAMA_KEEP_ALIVE
OLLAMA_LOAD_TIMEOUT | 1 | ignored | env=OLLAMA_LOAD_TIMEOUT
OLLAMA_HOST | 1 | ignored | env=OLLAMA_HOST
OLLAMA_ORIGINS | 1 | ignored | env=OLLAMA_ORIGINS
OLLAMA_MODELS | 1 | ignored | env=OLLAMA_MODELS
OLLAMA_DEBUG | 1 | ignored | env=OLLAMA_DEBUG
OLLAMA_NOHISTORY | 1 | ignored | env=OLLAMA_NOHISTORY
OLLAMA_NOPRUNE | 1 | ignored | env=OLLAMA_NOPRUNE
OLLAMA_AUTH | 1 | ignored | env=OLLAMA_AUTH
OLLAMA_REGISTRY_MAXSTREAMS | 1 | ignored | env=OLLAMA_REGISTRY_MAXSTREAMS
OLLAMA_EXPERIMENT | 1 | ignored | env=OLLAMA_EXPERIMENT
# `ollama run MODEL [PROMPT]` (cmd/cmd.go): none changes memory
--keepalive | 1 | ignored
--verbose | 0 | ignored
--insecure | 0 | ignored
--nowordwrap | 0 | ignored
--format | 1 | ignored
--think | ? | ignored
--hidethinking | 0 | ignored
-h --help | 0 | ignored
)");
  return t;
}

// api/types.go Options (sampling, per request) and Runner (set when the model loads).
const std::vector<OllamaParameter>& ollama_parameters() {
  static const std::vector<OllamaParameter> p = {
      {"num_ctx", true}, {"num_batch", true}, {"num_gpu", true},
      {"main_gpu", false}, {"use_mmap", false}, {"num_thread", false},
      {"num_keep", false}, {"seed", false}, {"num_predict", false}, {"top_k", false}, {"top_p", false},
      {"min_p", false}, {"typical_p", false}, {"repeat_last_n", false}, {"temperature", false},
      {"repeat_penalty", false}, {"presence_penalty", false}, {"frequency_penalty", false}, {"stop", false},
  };
  return p;
}

const OllamaParameter* find_ollama_parameter(std::string_view name) {
  const auto& p = ollama_parameters();
  auto it = std::find_if(p.begin(), p.end(), [&](const OllamaParameter& x) { return x.name == name; });
  return it == p.end() ? nullptr : &*it;
}

// parser/parser.go: an instruction word (case-insensitive) and its argument; """ ... """ spans lines.
Modelfile parse_modelfile(std::string_view text, std::string_view source) {
  Modelfile mf;
  std::istringstream in{std::string(text)};
  std::string line;
  std::uint64_t n = 0;
  static const char* const kKnown[] = {"FROM", "PARAMETER", "TEMPLATE", "SYSTEM", "ADAPTER", "LICENSE", "MESSAGE", "REQUIRES"};
  while (std::getline(in, line)) {
    ++n;
    const std::string t = trim_space(line);
    if (t.empty() || t[0] == '#') continue;
    const auto sp = t.find_first_of(" \t");
    const std::string word = ascii_upper(t.substr(0, sp));
    std::string arg = sp == std::string::npos ? "" : trim_space(t.substr(sp));
    if (std::find(std::begin(kKnown), std::end(kKnown), word) == std::end(kKnown))
      throw InputError(std::string(source) + " (line " + std::to_string(n) + "): unknown Modelfile instruction " + word +
                       " (expected FROM, PARAMETER, TEMPLATE, SYSTEM, ADAPTER, LICENSE, MESSAGE)");
    if (arg.rfind("\"\"\"", 0) == 0 && (arg.size() < 6 || arg.substr(arg.size() - 3) != "\"\"\"")) {
      // A multi-line value: up to the closing triple quote.
      bool closed = false;
      while (std::getline(in, line)) {
        ++n;
        if (line.find("\"\"\"") != std::string::npos) { closed = true; break; }
      }
      if (!closed) throw InputError(std::string(source) + ": a \"\"\" value that is never closed");
    }
    mf.instructions.push_back(word);
    if (word == "FROM") {
      if (arg.empty()) throw InputError(std::string(source) + " (line " + std::to_string(n) + "): FROM needs a model");
      mf.from = arg;
    } else if (word == "PARAMETER") {
      const auto s2 = arg.find_first_of(" \t");
      const std::string name = ascii_lower(arg.substr(0, s2));
      const std::string value = s2 == std::string::npos ? "" : trim_space(arg.substr(s2));
      if (!find_ollama_parameter(name))
        throw InputError(std::string(source) + " (line " + std::to_string(n) + "): unknown PARAMETER " + name +
                         " (Ollama refuses it: \"invalid option\"; known: num_ctx, num_batch, num_gpu, num_thread, temperature, ...)");
      if (value.empty()) throw InputError(std::string(source) + " (line " + std::to_string(n) + "): PARAMETER " + name + " needs a value");
      std::string v = value;
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      mf.parameters[name] = v;
    }
  }
  if (mf.from.empty()) throw InputError(std::string(source) + ": a Modelfile needs a FROM line");
  return mf;
}

}  // namespace kvplan::detail
