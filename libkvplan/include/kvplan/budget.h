#pragma once
// The engine's whole memory budget: every term an engine subtracts before the KV cache gets the
// rest, each with the engine code it mirrors and a band [low, high] for the terms the engine
// measures at start-up (docs/engines.md, "The memory budget"). The verdict of `kvplan check`
// evaluates the engine at both ends of the band.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/budget_terms.h"
#include "kvplan/engines.h"
#include "kvplan/model.h"

namespace kvplan {

// pipeline_split and activation_peak_bytes, shared with the planner, are the sizing layer's
// (kvplan/budget_terms.h).

// ---------------------------------------------------------------------------------------------
// Engine budgets.
// ---------------------------------------------------------------------------------------------
struct ByteBand {
  std::uint64_t low = 0, high = 0;
  std::uint64_t typical = 0;  // the best single estimate inside the band (0: its midpoint)
};

// One term the engine takes from the device before the KV cache (bytes per GPU).
struct BudgetTerm {
  std::string name;        // "weights", "activation peak", "non-torch (CUDA context, NCCL)", ...
  std::uint64_t low = 0;   // the favourable end (least memory taken)
  std::uint64_t high = 0;  // the unfavourable end; low == high: exact (given, counted or measured)
  std::string basis;       // "counted", "estimate", "measured (engine log)", "given"
  std::string source;      // the engine code it mirrors
  // The best single estimate (what public logs showed most often); 0: the band's midpoint. It
  // gives kvplan's point estimate of the KV memory, never a verdict.
  std::uint64_t typical = 0;
};
// The typical value clamped into the band (the midpoint when none is set).
std::uint64_t typical_of(std::uint64_t low, std::uint64_t high, std::uint64_t typical);
inline std::uint64_t typical_of(const BudgetTerm& t) { return typical_of(t.low, t.high, t.typical); }
inline std::uint64_t typical_of(const ByteBand& b) { return typical_of(b.low, b.high, b.typical); }

// vLLM version ranges whose budgets differ.
enum class VllmBudgetVersion {
  v0,          // V0 engine (worker.py determine_num_available_blocks; VLLM_USE_V1=0, < 0.11)
  v1,          // V1 before 0.21: CUDA graphs are captured after the KV cache, outside the budget
  v1_graphs,   // V1 0.21 and later: CUDA graph memory is estimated and taken from the budget
};
// "0.6.3" -> v0 (before 0.8, V0 was the default), "0.10.1" -> v1, "0.21" / "latest" / "" -> v1_graphs.
VllmBudgetVersion parse_vllm_version(std::string_view text);
std::string_view vllm_version_name(VllmBudgetVersion v);
// Whether that vLLM's --kv-cache-dtype auto takes a ModelOpt checkpoint's kv_cache_quant_algo
// (0.14 and later, "latest" and "": PR #30785, merged December 2025; VllmOptions).
bool vllm_auto_kv_follows_checkpoint(std::string_view text);
// Other processes on the GPU (kvplan check --gpu-used), by vLLM version:
// - V1 0.8 and 0.9 (before PR #19312, "Reuse V0's memory_profiling util for gpu worker memory
//   profiling", merged June 2025): determine_available_memory counted every byte the device had in
//   use beyond torch's as non_torch_allocations, other processes included, and took it from
//   utilization x total;
// - V1 from 0.9 on (vllm/v1/worker/gpu_worker.py init_device at
//   vllm-project/vllm@35d5cda123ec28581759b6d34cde8052314fb1e6): requested_memory = total x
//   utilization, and "Free memory on device (F/T GiB) on startup is less than desired GPU memory
//   utilization" refuses to start when free memory is below it; the KV budget is requested memory
//   less this process's own (memory_profiling from the init snapshot), so others do not enter it.
// 0.9 gets both (the PR landed during 0.9.x); V0 neither (memory_profiling's baseline since 0.6.4).
bool vllm_budget_counts_other_processes(std::string_view text);
bool vllm_refuses_short_free_memory(std::string_view text);

struct BudgetInput {
  EngineKind engine = EngineKind::vllm;
  ByteBand device;                         // the runtime's device total (hardware.h runtime_memory_band)
  std::uint64_t weights_bytes = 0;         // per GPU, counted from the checkpoint
  // Where the engine's kernels hold some weights at a layout kvplan bounds but cannot pin (vLLM's
  // MXFP4 MoE backends: kvplan/vllm_weights.h): weights_bytes is the favourable end, and the term
  // reaches weights_bytes + weights_layout_extra (its typical end weights_layout_typical_extra).
  std::uint64_t weights_layout_extra = 0;
  std::uint64_t weights_layout_typical_extra = 0;
  std::string weights_layout_source;
  std::uint64_t tp = 1;
  std::uint64_t max_num_batched_tokens = 8192;  // vLLM / TRT-LLM max_num_tokens / SGLang chunked prefill
  std::uint64_t sampler_seqs = 256;        // sequences the sampler warm-up holds logits for
  bool enforce_eager = false;              // no CUDA graphs
  std::uint64_t ubatch = 512;              // llama.cpp compute buffer
  std::uint64_t llama_ctx = 0;             // llama.cpp cells the KQ matrix spans (n_ctx)
  std::string llama_flash_attn = "auto";   // on | off | auto: without FA the KQ matrix is in the buffer
  VllmBudgetVersion vllm_version = VllmBudgetVersion::v1_graphs;
};

struct EngineBudget {
  ByteBand device;
  std::string device_basis;
  std::vector<BudgetTerm> terms;           // everything the engine takes before the KV cache
  std::vector<std::string> notes;
  std::uint64_t low() const;               // sum of the terms' low ends
  std::uint64_t high() const;
  // The term of that name, or nullptr.
  BudgetTerm* find(std::string_view name);
};

// The terms of `in.engine`'s budget (docs/engines.md names the source of each).
EngineBudget engine_budget(const ModelSpec& m, const BudgetInput& in);

// ---------------------------------------------------------------------------------------------
// Start-up logs (`kvplan check --engine-log FILE`): the terms the engine measured.
// ---------------------------------------------------------------------------------------------
struct EngineLogFigures {
  EngineKind engine = EngineKind::vllm;
  // vLLM: "Available KV cache memory: X GiB" (V1) / "the rest of the memory reserved for KV Cache
  // is X GiB" (V0) / "# GPU blocks: N"; "Model loading took X GiB" / "Loading model weights took X GB";
  // "total_gpu_memory (X GiB)"; "Estimated CUDA graph memory: X GiB".
  std::optional<ByteBand> available_kv_bytes;
  std::optional<std::uint64_t> gpu_blocks;
  std::optional<ByteBand> weights_bytes;
  std::optional<ByteBand> total_bytes;
  std::optional<ByteBand> cudagraph_bytes;
  std::optional<ByteBand> cudagraph_actual_bytes;  // "CUDA graph pool memory: X GiB (actual)"
  std::optional<ByteBand> activation_bytes;
  std::optional<ByteBand> non_torch_bytes;
  // SGLang "KV Cache is allocated. #tokens: N" and "max_total_num_tokens=N".
  std::optional<std::uint64_t> kv_tokens;
  // vLLM V1 "GPU KV cache size: N tokens" (used when the log has no KV memory line).
  std::optional<std::uint64_t> vllm_kv_tokens;
  // llama.cpp "<dev> KV buffer size = X MiB", "<dev> model buffer size", "<dev> compute buffer size"
  // summed over devices (CPU buffers excluded).
  std::optional<ByteBand> llama_kv_bytes, llama_model_bytes, llama_compute_bytes;
  // The engine did not start: the line that says so.
  std::optional<std::string> failure;
  std::vector<std::string> lines_used;     // the lines the figures came from
};

// `source` names the file in messages; an unrecognised log is an error that says what was looked for.
EngineLogFigures read_engine_log(std::string_view text, EngineKind engine, std::string_view source);

}  // namespace kvplan
