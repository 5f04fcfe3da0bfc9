#pragma once
// `kvplan check`: read what a team deploys (an engine launch command, a launch script, a
// Kubernetes manifest, `helm template` output, a docker-compose file, or kvplan's own JSON/YAML
// deployment format), run the engine's profile against the GPU's memory, and give a verdict.
// Reading deployments is the deploy layer's (kvplan/deploy.h: deploy/launch.cpp, flags*.cpp,
// manifest.cpp); the verdict is check/check.cpp's steps, each engine's evaluation check/evaluate_<engine>.cpp;
// every formatter lives in report (check_report.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kvplan/budget.h"
#include "kvplan/deploy.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"

namespace kvplan {

struct CheckOptions {
  std::string gpu;                      // overrides the deployment's
  std::optional<Accelerator> device;    // a custom device (--gpu-memory / --gpu-file): replaces gpu
  std::uint64_t gpus = 0;               // 0: the deployment's, else tp x pp (x dp)
  std::optional<std::string> model;     // overrides the model named in the command
  std::optional<std::uint64_t> weight_bytes;  // total weights, replaces weight_bytes(model) (--weights)
  std::optional<std::uint64_t> require_concurrency;
  std::optional<std::uint64_t> require_context;
  bool strict = false;                  // UNCERTAIN exits 1 instead of kExitUncertain
  std::string engine_version;           // vLLM: "0.6.3", "0.10.1", "0.21", "latest" (default)
  std::optional<std::string> engine_log;  // the text of the engine's start-up log (--engine-log)
  std::string engine_log_source;        // its file name, for messages
  // Memory other processes hold on each GPU (--gpu-used SIZE or @nvidia-smi-csv, hardware.h
  // parse_gpu_used): replaces the catalog's band of other processes, and enters each engine's
  // accounting where that engine sees it (docs/cli.md "kvplan check").
  std::optional<GpuUsed> gpu_used;
};

// PASS: every requirement holds at the unfavourable end of the budget's band; FAIL: one fails
// even at the favourable end; UNCERTAIN: otherwise.
enum class Verdict { pass, uncertain, fail };
std::string_view verdict_name(Verdict v);  // "PASS", "UNCERTAIN", "FAIL"
// Exit codes: 0 pass, 1 fail, 3 uncertain (1 with --strict); 2 is bad input (docs/cli.md).
inline constexpr int kExitUncertain = 3;

struct CheckRequirement {
  std::string name;                     // "starts", "gpus", "concurrency", "context", "validation"
  bool ok = true;
  std::string required, actual;
  std::string message;
  Verdict status = Verdict::pass;       // ok is status == pass (holds at the unfavourable end)
};

// The engine's own figures, as its profile computed them (formatted by report's to_json).
using EngineResult = std::variant<std::monostate, VllmResult, SglangResult, LlamaCppResult, TrtllmResult, OllamaResult>;

struct CheckResult {
  std::string source, name;
  std::string where;                    // Deployment::where()
  std::uint64_t line = 0;               // Deployment::line
  std::string engine, model, gpu;
  std::string model_ref;                // what the model was loaded from (id, path or GGUF file)
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
  // kvplan's point estimate inside the band: every term at its typical value (budget.h). Reported
  // for comparison with the engine; the verdict rests on the band's ends.
  std::int64_t kv_memory_estimate_bytes = 0;
  std::uint64_t kv_cache_tokens_estimate = 0;
  double max_concurrency_favourable = 0;
  std::uint64_t margin_bytes = 0;       // more KV memory per GPU that would make an UNCERTAIN verdict PASS
  std::string margin;                   // the same, as advice (empty unless UNCERTAIN)
  std::vector<CheckRequirement> checks;
  std::vector<std::string> reasons;     // one sentence per failed check
  std::vector<std::string> notes;       // estimates and assumptions used
  std::vector<std::string> ignored_flags;  // engine flags that do not change memory
  std::vector<std::string> log_lines;   // the engine's own lines
  EngineResult engine_result;           // at the unfavourable end of the band
  // 0 PASS, 1 FAIL, kExitUncertain UNCERTAIN (1 with strict).
  int exit_code() const {
    return verdict == Verdict::pass ? 0 : verdict == Verdict::fail ? 1 : (strict ? 1 : kExitUncertain);
  }
};

CheckResult check_deployment(const Deployment& d, const CheckOptions& o);

// A vLLM launch command read as vLLM reads it (check/flags_vllm.cpp): the one reading that
// check_deployment profiles and `kvplan simulate` runs, so a command is simulated exactly as check
// reads it. The memory budget (device, weights, activations, graphs, available KV bytes) is left
// unset: check_deployment resolves it on its band, and simulate takes check's.
// `vllm serve`'s batch defaults (vllm/engine/arg_utils.py EngineArgs.get_batch_defaults, the
// OPENAI_API_SERVER context): on a GPU with at least 70 GiB whose name has no "a100",
// max_num_batched_tokens 8192 and max_num_seqs 1024; otherwise 2048 and 256. `blackwell` is the
// platform flag VllmOptions takes (the MLA backend default), by the GPU's name as kvplan check
// reads it (B100, B200, B300).
struct VllmBatchDefaults {
  std::uint64_t max_num_batched_tokens = 0, max_num_seqs = 0;
  bool blackwell = false;
};
VllmBatchDefaults vllm_serve_batch_defaults(const Accelerator& gpu);

struct VllmLaunch {
  std::string model_ref;                    // the model as the command names it (positional or --model)
  ModelSpec model;                          // loaded from model_ref, with --dtype applied
  VllmOptions options;                      // the flags as the engine profile's options
  bool max_model_len_auto = false;          // --max-model-len -1 / auto: the largest length that fits
  std::uint64_t data_parallel_size = 1;
  std::uint64_t max_num_seqs = 0;           // --max-num-seqs (0: not given, the engine's default)
  std::uint64_t long_prefill_token_threshold = 0;  // 0: none
  bool chunked_prefill = true;              // --no-enable-chunked-prefill: off
  bool reserve_full_isl = true;             // --no-scheduler-reserve-full-isl: off
  bool priority_scheduling = false;         // --scheduling-policy priority (SchedulerConfig.policy; fcfs by default)
  bool enforce_eager = false;
  bool max_num_batched_tokens_given = false;  // else options hold vllm serve's default for the GPU
  std::vector<std::string> notes;           // choices the reading made (the MLA backend off SM90/SM100)
};
// `gpu` decides the platform defaults (the MLA backend); `load` is how the model is loaded
// (--assume). Errors name the flag.
VllmLaunch read_vllm_launch(const Deployment& d, const Accelerator& gpu, const LoadOptions& load = {});

// A trtllm-serve command's pool settings as check reads them: its flags, then the
// --extra_llm_api_options YAML over them (typed as TensorRT-LLM's pydantic models require; keys
// that do not change the KV budget noted; speculative decoding, LoRA and beams listed as
// unmodelled). `extra` is that YAML mapping (null without the flag), for simulate's scheduler keys.
struct TrtllmLaunch {
  TrtllmOptions options;
  std::uint64_t max_num_tokens = 8192;      // --max_num_tokens / max_num_tokens
  std::vector<std::string> notes, unmodelled;
  std::string extra_path;
  nlohmann::json extra;
};
TrtllmLaunch read_trtllm_launch(const Deployment& d);

// One deployment's outcome: a result, or the error that stopped it (with where, for CI formats).
struct CheckOutcome {
  std::optional<CheckResult> result;
  std::string error;                    // the message when !result
  std::string file;                     // where the error is ("" or "command line": none)
  std::uint64_t line = 0;
  std::string label;                    // the deployment (Deployment::where()) or the input
  int exit_code() const { return result ? result->exit_code() : 2; }
};
// Every deployment in a file / one launch command, each checked; errors become outcomes.
std::vector<CheckOutcome> check_file(const std::string& path, const CheckOptions& o);
std::vector<CheckOutcome> check_command(const std::vector<std::string>& argv, const CheckOptions& o);
// 2 if any outcome is an error, else 1 if any result is FAIL (or UNCERTAIN under strict), else
// kExitUncertain if any is UNCERTAIN, else 0.
int check_exit_code(const std::vector<CheckOutcome>& outcomes);

// Formatters (report/check_report.cpp).
nlohmann::json to_json(const CheckResult& r);
std::string format_check_text(const CheckResult& r);
std::string format_check_github(const CheckResult& r);   // GitHub Actions workflow commands
std::string format_check_junit(const CheckResult& r);    // JUnit XML
// "text", "json", "github", "junit".
std::string format_check(const CheckResult& r, std::string_view format);
// Every outcome in one report: text (errors are left to stderr: the text is ""), json (one object,
// or {"passed", "exit_code", "results": [...]} for several; an error is {"error": message, ...}),
// github (::error file=...,line=...:: for errors and failed checks), junit (one well-formed
// document; an error is a failing testcase with its message).
std::string format_check_outcomes(const std::vector<CheckOutcome>& outcomes, std::string_view format);
// An error that stopped `kvplan check` before any deployment was read, in the asked format.
std::string format_check_error(std::string_view message, std::string_view file, std::uint64_t line,
                               std::string_view format);

}  // namespace kvplan
