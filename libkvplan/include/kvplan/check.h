#pragma once
// `kvplan check`: read an engine launch command (vllm serve / python -m sglang.launch_server /
// llama-server / trtllm-serve) or a deployment file (a documented YAML subset, or JSON), run
// the engine's profile against the GPU's memory, and give a verdict.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/engines.h"

namespace kvplan {

// A deployment as read from a command line or a file.
struct Deployment {
  std::string source;                  // "command line" or the file path (for messages)
  std::string name;                    // optional label (file key `name`)
  EngineKind engine = EngineKind::vllm;
  std::string model;                   // model id / config path for kvplan (may be empty for llama-server)
  std::vector<std::string> args;       // the engine's flags, after the executable and model
  std::string gpu;                     // from the file (CLI flags override)
  std::uint64_t gpus = 0;
  std::optional<std::uint64_t> require_concurrency;
  std::optional<std::uint64_t> require_context;
};

// Shell-like split: whitespace, '...' and "..." quoting, backslash escapes and line continuations.
std::vector<std::string> split_command_line(std::string_view text);
// Recognises the engine from the executable (vllm serve, python[3] -m sglang.launch_server,
// sglang serve, llama-server, trtllm-serve, python -m vllm.entrypoints.openai.api_server).
Deployment parse_launch_command(const std::vector<std::string>& argv, std::string_view source = "command line");
// A YAML-subset or JSON deployment file (keys: name, engine, model, command, args, gpu, gpus,
// require: {concurrency, context}). `base_dir` resolves relative paths named inside it.
Deployment parse_deployment(std::string_view text, std::string_view source);
Deployment load_deployment_file(const std::string& path);
// The YAML subset (flat keys, lists, one level of nesting) as JSON; clear errors for the rest.
nlohmann::json parse_yaml_subset(std::string_view text, std::string_view source);

struct CheckOptions {
  std::string gpu;                      // overrides the deployment's
  std::uint64_t gpus = 0;               // 0: the deployment's, else tp x pp (x dp)
  std::optional<std::string> model;     // overrides the model named in the command
  std::optional<std::uint64_t> weight_bytes;  // total weights, replaces weight_bytes(model) (--weights)
  std::optional<std::uint64_t> require_concurrency;
  std::optional<std::uint64_t> require_context;
};

struct CheckRequirement {
  std::string name;                     // "starts", "gpus", "concurrency", "context"
  bool ok = true;
  std::string required, actual;
  std::string message;
};

struct CheckResult {
  std::string source, name;
  std::string engine, model, gpu;
  std::uint64_t gpus = 0, gpus_needed = 0, tp = 1, pp = 1;
  std::uint64_t gpu_memory_bytes = 0;
  std::uint64_t weights_bytes_per_gpu = 0;
  std::uint64_t kv_budget_bytes = 0;    // per GPU, as the engine sizes it
  bool starts = true;
  std::uint64_t kv_cache_tokens = 0;    // predicted KV token capacity (engine-wide)
  std::uint64_t context = 0;            // max-model-len / context length / slot context
  double max_concurrency = 0;           // sequences of `context` tokens at once
  std::uint64_t max_fitting_context = 0;
  bool passed = true;
  std::vector<CheckRequirement> checks;
  std::vector<std::string> reasons;     // one sentence per failed check
  std::vector<std::string> notes;       // estimates and assumptions used
  std::vector<std::string> log_lines;   // the engine's own lines
  nlohmann::json engine_result;
  int exit_code() const { return passed ? 0 : 1; }
};

CheckResult check_deployment(const Deployment& d, const CheckOptions& o);

nlohmann::json to_json(const CheckResult& r);
std::string format_check_text(const CheckResult& r);
std::string format_check_github(const CheckResult& r);   // GitHub Actions workflow commands
std::string format_check_junit(const CheckResult& r);    // JUnit XML
// "text", "json", "github", "junit".
std::string format_check(const CheckResult& r, std::string_view format);

}  // namespace kvplan
