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

  void add(CLI::App& cmd) {
    model.add(cmd);
    add_field(cmd, "plan", "gpu", gpu);
    cmd.add_option("--gpu-file", gpu_file, "a custom accelerator: JSON object with the catalog's keys");
    add_field(cmd, "plan", "gpu_memory", gpu_memory);
    add_field(cmd, "plan", "gpu_bandwidth", gpu_bandwidth);
    add_field(cmd, "plan", "gpu_flops", gpu_flops);
    add_field(cmd, "plan", "gpus", gpus);
    add_field(cmd, "plan", "tp", tp);
    add_field(cmd, "plan", "pp", pp)->capture_default_str();
    add_field(cmd, "plan", "pp_layers", pp_layers)
        ->delimiter(',');
    add_field(cmd, "plan", "dp", dp)->capture_default_str();
    dtypes.add(cmd);
    add_field(cmd, "plan", "weight_dtype", weight_dtype)
        ->capture_default_str();
    add_field(cmd, "plan", "weights", weights);
    add_field(cmd, "plan", "utilization", utilization);
    add_field(cmd, "plan", "reserved", reserved);
    add_field(cmd, "plan", "runtime_overhead", runtime_overhead);
    add_field(cmd, "plan", "prefill_chunk", prefill_chunk);
    add_field(cmd, "plan", "block_tokens", block_tokens);
    add_field(cmd, "plan", "engine", engine)->capture_default_str();
    add_field(cmd, "plan", "shared_prefix", shared_prefix)
        ->capture_default_str();
    add_field(cmd, "plan", "offload", offload);
    add_field(cmd, "plan", "offload_bandwidth", offload_bandwidth);
    add_field(cmd, "plan", "prefill_efficiency", prefill_efficiency)
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
