#pragma once
// Reading deployments (the deploy layer, below check and simulate): launch commands as the shell
// and each engine read them, launch scripts, Kubernetes manifests, `helm template` output,
// docker-compose files and kvplan's own deployment format; the engines' flag tables. The verdict
// over a Deployment is kvplan/check.h's.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvplan/engines.h"
#include "kvplan/error.h"

namespace kvplan {

// A deployment as read from a command line or a file.
struct Deployment {
  std::string source;                  // "command line" or the file path (for messages)
  std::uint64_t line = 0;              // 1-based line of the command / container in `source` (0: none)
  std::string document;                // "document 2" for multi-document YAML ("" for one document)
  std::string resource;                // "Deployment/vllm-llama", "compose service vllm", ...
  std::string container;               // the container running the engine
  std::string name;                    // optional label (file key `name`, or the resource name)
  EngineKind engine = EngineKind::vllm;
  std::string model;                   // model id / config path for kvplan (may be empty for llama-server)
  std::vector<std::string> args;       // the engine's flags, after the executable and model
  std::vector<std::pair<std::string, std::string>> env;  // NAME=value given to the engine
  std::string gpu;                     // from the file (CLI flags override)
  std::uint64_t gpus = 0;
  std::optional<std::uint64_t> require_concurrency;
  std::optional<std::uint64_t> require_context;
  std::string base_dir;                // a file's folder: files the command names are read from and kept inside it
                                       // ("" = the user's own command line: paths as the shell reads them)
  // "file (line 12, document 2, Deployment/x, container y)", or "command line".
  std::string where() const;
};

// A deployment input kvplan check cannot read, with the file and line for CI annotations.
class DeploymentError : public InputError {
 public:
  DeploymentError(std::string message, std::string file, std::uint64_t line)
      : InputError(std::move(message)), file_(std::move(file)), line_(line) {}
  // "<file> (line N): <detail>"
  static DeploymentError at(std::string_view file, std::uint64_t line, std::string_view detail);
  // The deployment's location followed by an error raised while checking it.
  static DeploymentError in(const Deployment& d, std::string_view detail);
  const std::string& file() const noexcept { return file_; }
  std::uint64_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::uint64_t line_ = 0;
};

// POSIX shell words: whitespace, '...' (literal), "..." (\\ \" \$ \` escapes), backslash
// escapes, line continuations and # comments at the start of a word; `;`, `&&` and newlines end
// a command only in launch scripts (see parse_launch_script).
std::vector<std::string> split_command_line(std::string_view text);
// Recognises the engine: `vllm serve`, `python[3] -m vllm.entrypoints.openai.api_server` (and the
// older vllm.entrypoints.api_server), `sglang serve`, `python -m sglang.launch_server`,
// `llama-server`, `trtllm-serve [serve]`, `python -m tensorrt_llm.commands.serve`; skips leading
// NAME=value assignments (kept in `env`), `env`, `exec`, `sudo`, and `docker run` / `podman run`
// wrappers around the engines' images (vllm/vllm-openai, lmsysorg/sglang,
// ghcr.io/ggml-org/llama.cpp:server*, nvcr.io/nvidia/tensorrt-llm/*), whose entrypoint is the engine.
Deployment parse_launch_command(const std::vector<std::string>& argv, std::string_view source = "command line");
// A shell script (`#!/bin/bash`, `export X=1`, continuations): the one line that starts an engine.
Deployment parse_launch_script(std::string_view text, std::string_view source);

// Every engine deployment in a file: kvplan's JSON or YAML deployment format (keys name, engine,
// model, command, args, gpu, gpus, env, require), Kubernetes workloads (Deployment, StatefulSet,
// DaemonSet, Pod, Job, CronJob, LeaderWorkerSet, KServe InferenceService / ServingRuntime,
// `helm template` multi-document output), operators' custom resources rendered as their
// controllers render them (KServe LLMInferenceService, KubeAI Model: deploy/operators.cpp),
// docker-compose files, and shell launch scripts. Containers that run no engine are skipped, and
// so are kinds that run none (Service, ConfigMap, CustomResourceDefinition, ...); any other kind
// that holds containers is an error naming it; a file with no engine is an error.
std::vector<Deployment> parse_deployments(std::string_view text, std::string_view source);
// Exactly one deployment (an error naming the count when the file holds several).
Deployment parse_deployment(std::string_view text, std::string_view source);
// Reads a regular file of at most kMaxDeploymentFileBytes; "-" reads standard input (`helm
// template ... | kvplan check -`), reported as kStdinSource.
std::vector<Deployment> load_deployment_files(const std::string& path);
Deployment load_deployment_file(const std::string& path);
// Standard input, up to kMaxDeploymentFileBytes (a DeploymentError past it).
std::string read_deployment_stdin();
inline constexpr const char* kStdinSource = "<stdin>";
inline constexpr std::uint64_t kMaxDeploymentFileBytes = 4ull << 20;   // 4 MiB
inline constexpr std::uint64_t kMaxYamlNodes = 200'000;                // after alias expansion
inline constexpr std::uint64_t kMaxYamlDepth = 64;                     // mapping / list nesting read

// How kvplan check treats one flag of an engine's current CLI (its spelling as written, a --no-x
// negation, or an environment variable such as LLAMA_ARG_CTX_SIZE): modelled (changes memory and
// kvplan models it), ignored (does not change GPU memory), unmodelled (may change GPU memory in
// a way kvplan does not model: the verdict is UNCERTAIN and names it, never PASS, never FAIL on that alone) or unknown (an error with a did-you-mean).
enum class EngineFlagClass { memory, ignored, unmodelled, unknown };
EngineFlagClass classify_engine_flag(EngineKind e, std::string_view flag);
// Where the engine's flag table was read from (repository, commit, path).
std::string engine_flag_source(EngineKind e);

}  // namespace kvplan
