// kvplan check: does an engine launch command, launch script, Kubernetes manifest, compose file
// or deployment file start on the named GPUs, and does it meet --require-concurrency /
// --require-context? Exit 0 pass, 1 fail, 2 bad input, 3 uncertain (1 with --strict); every
// outcome in the --format asked for.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "plan_options.h"
#include "kvplan/check.h"

namespace kvplan::cli {

namespace {
struct CheckCliOptions {
  std::vector<std::string> command;
  std::string file, gpu, gpu_file, gpu_memory, model, weights, format = "text";
  std::string engine_log, engine_version, gpu_used;
  bool strict = false;
  std::optional<std::uint64_t> gpus;
  std::optional<std::uint64_t> require_concurrency;
  std::string require_context;
};

int run_check(const CheckCliOptions& o) {
  if (o.format != "text" && o.format != "json" && o.format != "github" && o.format != "junit")
    throw InputError::value("--format", o.format, "text, json, github or junit");
  std::vector<CheckOutcome> outcomes;
  try {
    CheckOptions c;
    c.gpu = o.gpu;
    if (!o.gpu_file.empty() || !o.gpu_memory.empty()) {
      PlanOptions dev;
      dev.fields["gpu"] = o.gpu;
      dev.gpu_file = o.gpu_file;
      dev.fields["gpu_memory"] = o.gpu_memory;
      c.device = dev.device();
    }
    c.strict = o.strict;
    c.engine_version = o.engine_version;
    if (!o.engine_log.empty()) {
      std::ifstream in(o.engine_log);
      if (!in) throw InputError::value("--engine-log", o.engine_log, "a readable start-up log file");
      std::stringstream ss;
      ss << in.rdbuf();
      c.engine_log = ss.str();
      c.engine_log_source = o.engine_log;
    }
    if (o.gpus && *o.gpus == 0) throw InputError::value("--gpus", "0", "a positive GPU count");
    c.gpus = o.gpus.value_or(0);
    if (!o.model.empty()) c.model = o.model;
    c.require_concurrency = o.require_concurrency;
    if (o.require_concurrency && *o.require_concurrency == 0)
      throw InputError::value("--require-concurrency", "0", "a positive number of sequences");
    if (!o.weights.empty()) c.weight_bytes = parse_bytes(o.weights, "--weights");
    if (!o.gpu_used.empty()) c.gpu_used = parse_gpu_used(o.gpu_used, "--gpu-used");
    if (!o.require_context.empty()) c.require_context = parse_tokens(o.require_context, "--require-context");
    std::error_code ec;
    if (!o.file.empty()) {
      if (!o.command.empty()) throw InputError::value("--file", o.file, "either a deployment file or a launch command, not both");
      outcomes = check_file(o.file, c);
    } else if (!o.command.empty() && std::all_of(o.command.begin(), o.command.end(), [&](const std::string& p) {
                 return p == "-" || (p.find(' ') == std::string::npos && std::filesystem::exists(p, ec));
               })) {
      // One or more files (pre-commit passes every changed file): each is checked; "-" is
      // standard input (helm template ... | kvplan check -).
      for (const auto& p : o.command) {
        auto more = check_file(p, c);
        outcomes.insert(outcomes.end(), more.begin(), more.end());
      }
    } else if (o.command.empty()) {
      throw InputError::value("kvplan check", "", "a launch command (quoted, or after --) or a deployment file");
    } else {
      // One quoted string is a command line to split as a shell would; several words (after
      // `--`) were split by the shell already and are kept as they are.
      outcomes = check_command(o.command.size() == 1 ? split_command_line(o.command[0]) : o.command, c);
    }
  } catch (const Error& e) {
    CheckOutcome err;
    err.error = e.what();
    err.label = o.file.empty() ? "command line" : o.file;
    err.file = o.file;
    outcomes = {err};
  }
  std::cout << format_check_outcomes(outcomes, o.format);
  for (const auto& x : outcomes)
    if (!x.result) std::cerr << "kvplan: " << x.error << "\n";
  return check_exit_code(outcomes);
}
}  // namespace

static void register_check(CLI::App& app, Runner& run) {
  auto o = std::make_shared<CheckCliOptions>();
  auto* cmd = app.add_subcommand("check", "gate a deployment: does the engine command start and meet the requirements?");
  cmd->add_option("COMMAND", o->command,
                  "the launch command, quoted or after -- (vllm serve ..., python -m sglang.launch_server ..., "
                  "llama-server ..., trtllm-serve ..., docker run IMAGE ...), or a file: a Kubernetes manifest, "
                  "helm template output, a compose file, a launch script or a kvplan deployment file (- : standard input)");
  cmd->add_option("--file,-f", o->file, "a deployment file (see docs/engines.md); - reads standard input");
  cmd->add_option("--gpu", o->gpu, "GPU model (kvplan gpus), e.g. H100; default: the manifest's nvidia.com/gpu.product selector");
  cmd->add_option("--gpu-memory", o->gpu_memory,
                  "device memory as the runtime reports it, with a unit (20GiB, 24GB); overrides the catalog, or alone a custom device");
  cmd->add_option("--gpu-file", o->gpu_file, "a custom accelerator: JSON object with the catalog's keys");
  cmd->add_option("--engine-log", o->engine_log,
                  "a start-up log of this deployment: the engine's measured memory replaces kvplan's estimates");
  cmd->add_option("--engine-version", o->engine_version, "vLLM version whose budget to model: 0.6.3 (V0), 0.10 (V1), 0.21+ (default: latest)");
  cmd->add_flag("--strict", o->strict, "treat UNCERTAIN as failure (exit 1 instead of 3)");
  cmd->add_option("--gpus", o->gpus, "GPU count (default: the deployment's, else tp x pp x dp)");
  cmd->add_option("--model", o->model, "the config kvplan reads (llama-server -m FILE.gguf: the file itself when it is there)");
  cmd->add_option("--weights", o->weights, "total weight bytes, replacing kvplan's count (e.g. 16GB)");
  cmd->add_option("--gpu-used", o->gpu_used,
                  "memory other processes hold on each GPU (14.99GiB, bytes), or @FILE: the output of "
                  "nvidia-smi --query-gpu=memory.used,memory.total --format=csv");
  cmd->add_option("--require-concurrency", o->require_concurrency, "sequences of max-model-len tokens that must fit at once");
  cmd->add_option("--require-context", o->require_context, "tokens one request must be able to hold (32k, 131072)");
  cmd->add_option("--format", o->format, "text, json, github or junit")->capture_default_str();
  cmd->callback([&run, o] { run = [o] { return run_check(*o); }; });
}

KVPLAN_VERB(45, register_check);

}  // namespace kvplan::cli
