#pragma once
// Options shared by `kvplan plan` and `kvplan sweep`: device, parallelism, dtypes, memory
// budget. Parsing only; the planner does the work.
#include <fstream>
#include <sstream>

#include "common.h"
#include "kvplan/planner.h"
#include "kvplan/request.h"

namespace kvplan::cli {

struct PlanOptions {
  ModelOptions model;
  DtypeOptions dtypes;
  std::string gpu, gpu_file, gpu_memory;
  double gpu_bandwidth = 0, gpu_flops = 0;
  std::optional<std::uint64_t> gpus, tp;
  std::uint64_t pp = 1, dp = 1;
  std::vector<std::uint64_t> pp_layers;
  std::string shared_prefix = "0";
  std::string weight_dtype = "auto";
  std::string weights;  // total weight bytes override
  std::optional<double> utilization;
  std::string reserved, runtime_overhead;
  std::string prefill_chunk;
  std::optional<std::uint64_t> block_tokens;
  std::string engine = "none";
  std::string offload;
  double offload_bandwidth = 0;
  double prefill_efficiency = 0.5;

  // Help texts come from the request field table (kvplan/request.h), which the tests walk.
  static std::string help(std::string_view name) { return std::string(plan_request_field(name).help); }

  void add(CLI::App& cmd) {
    model.add(cmd);
    cmd.add_option("--gpu", gpu, help("gpu"));
    cmd.add_option("--gpu-file", gpu_file, "a custom accelerator: JSON object with the catalog's keys");
    cmd.add_option("--gpu-memory", gpu_memory, help("gpu_memory"));
    cmd.add_option("--gpu-bandwidth", gpu_bandwidth, help("gpu_bandwidth"));
    cmd.add_option("--gpu-flops", gpu_flops, help("gpu_flops"));
    cmd.add_option("--gpus", gpus, help("gpus"));
    cmd.add_option("--tp", tp, help("tp"));
    cmd.add_option("--pp", pp, help("pp"))->capture_default_str();
    cmd.add_option("--pp-layers", pp_layers, help("pp_layers"))
        ->delimiter(',');
    cmd.add_option("--dp", dp, help("dp"))->capture_default_str();
    dtypes.add(cmd);
    cmd.add_option("--weight-dtype", weight_dtype, help("weight_dtype"))
        ->capture_default_str();
    cmd.add_option("--weights", weights, help("weights"));
    cmd.add_option("--utilization", utilization, help("utilization"));
    cmd.add_option("--reserved", reserved, help("reserved"));
    cmd.add_option("--runtime-overhead", runtime_overhead, help("runtime_overhead"));
    cmd.add_option("--prefill-chunk", prefill_chunk, help("prefill_chunk"));
    cmd.add_option("--block-tokens", block_tokens, help("block_tokens"));
    cmd.add_option("--engine", engine, help("engine"))->capture_default_str();
    cmd.add_option("--shared-prefix", shared_prefix, help("shared_prefix"))
        ->capture_default_str();
    cmd.add_option("--offload", offload, help("offload"));
    cmd.add_option("--offload-bandwidth", offload_bandwidth, help("offload_bandwidth"));
    cmd.add_option("--prefill-efficiency", prefill_efficiency, help("prefill_efficiency"))
        ->capture_default_str();
  }

  Accelerator device() const {
    Accelerator a;
    if (!gpu_file.empty()) {
      a = accelerator_from_json(read_regular_file(gpu_file, kMaxGpuFileBytes, "--gpu-file"), gpu_file);
    } else if (!gpu.empty()) {
      a = find_accelerator(gpu);
    } else if (!gpu_memory.empty()) {
      a.name = "custom";
      a.memory_basis = "given by --gpu-memory";
    } else {
      throw InputError::value("--gpu", "nothing", "an accelerator name (kvplan gpus), --gpu-file or --gpu-memory");
    }
    if (!gpu_memory.empty()) {
      a.memory_bytes = parse_memory_size(gpu_memory, "--gpu-memory");
      a.memory_basis = "given by --gpu-memory";
      a.memory_marketing_bytes = a.memory_bytes;
      a.memory_marketing = format_gb(a.memory_bytes, 0);
    }
    if (gpu_bandwidth != 0) a.bandwidth_bytes_per_s = gpu_bandwidth;
    if (gpu_flops != 0) a.bf16_flops = gpu_flops;
    return a;
  }

  // The planner input; context/concurrency are set by the verb.
  PlanInput input() const {
    PlanInput in;
    in.gpu = device();
    const EnginePreset preset = engine_preset(engine);
    in.gpus = gpus;
    in.tp = tp;
    in.pp = pp;
    in.pp_layers = pp_layers;
    in.dp = dp;
    Workload w;
    dtypes.apply(w);
    in.k_dtype = w.k_dtype;
    in.v_dtype = w.v_dtype;
    in.state_dtype = w.state_dtype;
    in.weight_dtype = parse_weight_format_or_auto(weight_dtype, "--weight-dtype");
    if (!weights.empty()) in.weight_bytes = parse_bytes(weights, "--weights");
    in.utilization = utilization.value_or(preset.utilization);
    in.block_tokens = block_tokens.value_or(preset.block_tokens);
    in.kv_dtypes = preset.kv_dtypes;
    if (!reserved.empty()) in.reserved.override_bytes = parse_bytes(reserved, "--reserved");
    if (!runtime_overhead.empty()) in.reserved.runtime_bytes = parse_bytes(runtime_overhead, "--runtime-overhead");
    if (!prefill_chunk.empty()) in.reserved.prefill_chunk_tokens = parse_tokens(prefill_chunk, "--prefill-chunk");
    in.shared_prefix_tokens = parse_tokens(shared_prefix, "--shared-prefix");
    if (!offload.empty()) in.offload_bytes = parse_bytes(offload, "--offload");
    in.offload_bytes_per_s = offload_bandwidth;
    in.prefill_efficiency = prefill_efficiency;
    return in;
  }
};

// "4096,32k,128k" -> token counts.
inline std::vector<std::uint64_t> parse_token_list(const std::vector<std::string>& items, const char* flag) {
  std::vector<std::uint64_t> out;
  for (const auto& s : items) out.push_back(parse_tokens(s, flag));
  if (out.empty()) throw InputError::value(flag, "nothing", "a comma-separated list such as 4096,32k,128k");
  return out;
}

}  // namespace kvplan::cli
