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

#include "kvplan/budget.h"
#include "kvplan/engines.h"
#include "kvplan/hardware.h"

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
  std::optional<Accelerator> device;    // a custom device (--gpu-memory / --gpu-file): replaces gpu
  std::uint64_t gpus = 0;               // 0: the deployment's, else tp x pp (x dp)
  std::optional<std::string> model;     // overrides the model named in the command
  std::optional<std::uint64_t> require_concurrency;
  std::optional<std::uint64_t> require_context;
  bool strict = false;                  // UNCERTAIN exits 1 instead of kExitUncertain
  std::string engine_version;           // vLLM: "0.6.3", "0.10.1", "0.21", "latest" (default)
  std::optional<std::string> engine_log;  // the text of the engine's start-up log (--engine-log)
  std::string engine_log_source;        // its file name, for messages
};

// PASS: every requirement holds at the unfavourable end of the budget's band; FAIL: one fails
// even at the favourable end; UNCERTAIN: otherwise.
enum class Verdict { pass, uncertain, fail };
std::string_view verdict_name(Verdict v);  // "PASS", "UNCERTAIN", "FAIL"
// Exit codes: 0 pass, 1 fail, 3 uncertain (1 with --strict); 2 is bad input.
inline constexpr int kExitUncertain = 3;

struct CheckRequirement {
  std::string name;                     // "starts", "gpus", "concurrency", "context"
  bool ok = true;
  std::string required, actual;
  std::string message;
  Verdict status = Verdict::pass;       // ok is status == pass (holds at the unfavourable end)
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
  bool passed = true;                   // verdict == pass
  Verdict verdict = Verdict::pass;
  bool strict = false;
  bool calibrated = false;              // an engine log supplied the measured terms
  std::string engine_version;           // the budget model used (vLLM version range)
  // The budget: device total as the runtime sees it and the terms taken before the KV cache.
  std::uint64_t device_low_bytes = 0, device_high_bytes = 0;
  std::string device_basis;
  std::vector<BudgetTerm> budget;
  // KV memory per GPU, signed (negative when weights and the rest overrun the budget), at the
  // unfavourable and favourable ends; kv_budget_bytes above is the first clamped at 0.
  std::int64_t kv_memory_bytes = 0, kv_memory_favourable_bytes = 0;
  std::uint64_t kv_cache_tokens_favourable = 0;
  double max_concurrency_favourable = 0;
  std::uint64_t margin_bytes = 0;       // more KV memory per GPU that would make an UNCERTAIN verdict PASS
  std::string margin;                   // the same, as advice (empty unless UNCERTAIN)
  std::vector<CheckRequirement> checks;
  std::vector<std::string> reasons;     // one sentence per failed check
  std::vector<std::string> notes;       // estimates and assumptions used
  std::vector<std::string> log_lines;   // the engine's own lines
  nlohmann::json engine_result;
  int exit_code() const {
    return verdict == Verdict::pass ? 0 : verdict == Verdict::fail ? 1 : (strict ? 1 : kExitUncertain);
  }
};

CheckResult check_deployment(const Deployment& d, const CheckOptions& o);

nlohmann::json to_json(const CheckResult& r);
std::string format_check_text(const CheckResult& r);
std::string format_check_github(const CheckResult& r);   // GitHub Actions workflow commands
std::string format_check_junit(const CheckResult& r);    // JUnit XML
// "text", "json", "github", "junit".
std::string format_check(const CheckResult& r, std::string_view format);

}  // namespace kvplan
