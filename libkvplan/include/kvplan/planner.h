#pragma once
#include <iosfwd>
// The planner: what fits on which accelerators, and how fast decode can be.
//
// Everything memory-related is exact integer bytes built from layer_bytes() (so TP head
// splitting, head replication, MLA replication and state splitting are the layer rules, not a
// second copy of them). Times are roofline estimates (floats) and say so.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/dtype.h"
#include "kvplan/hardware.h"
#include "kvplan/layer.h"
#include "kvplan/model.h"
#include "kvplan/units.h"
#include "kvplan/weights.h"

namespace kvplan {

// Memory a serving engine keeps outside weights and cache: CUDA context, NCCL buffers, CUDA
// graphs, allocator slack (runtime_bytes), plus the activations of the largest forward pass.
// The estimate (per GPU):
//   runtime_bytes + prefill_chunk_tokens x (4 x hidden_size + 2 x ceil(mlp_width / tp)) x 2 B
// with mlp_width = max(intermediate_size, experts_per_token x moe_intermediate_size): the
// residual stream, attention input/output and the gate+up projection of one chunk in bf16.
// It is a rule of thumb, not a measurement; override_bytes replaces it.
struct ReservedMemory {
  std::optional<std::uint64_t> override_bytes;
  std::uint64_t runtime_bytes = 1 * GiB;
  std::uint64_t prefill_chunk_tokens = 8192;  // vLLM's default max_num_batched_tokens
};
std::uint64_t reserved_bytes(const ModelSpec& m, const ReservedMemory& r, std::uint64_t tp);

struct PlanInput {
  Accelerator gpu;                 // find_accelerator("H100") or a custom device
  // gpus = tp x pp x dp. Give gpus, tp, or both; no tp means gpus / (pp x dp) (or 1).
  std::optional<std::uint64_t> gpus;
  std::optional<std::uint64_t> tp;
  std::uint64_t pp = 1;
  std::vector<std::uint64_t> pp_layers;  // layers per stage; empty = vLLM's default split
  std::uint64_t dp = 1;                  // data-parallel replicas; concurrency is spread over them
  std::uint64_t context = 4096;          // tokens per sequence
  std::uint64_t concurrency = 1;         // sequences in flight (whole deployment)
  std::uint64_t shared_prefix_tokens = 0;  // a common prompt prefix stored once (prefix caching)
  std::optional<Dtype> k_dtype, v_dtype, state_dtype;  // nullopt = model's own
  std::optional<WeightFormat> weight_dtype;  // nullopt = the checkpoint's format; a dtype or a preset
  std::optional<std::uint64_t> weight_bytes;  // total weights, replaces weight_bytes(model)
  double utilization = 0.9;              // fraction of memory_bytes the engine may use
  ReservedMemory reserved;
  std::uint64_t block_tokens = 1;        // paging granularity: per-sequence tokens round up to it
  std::uint64_t offload_bytes = 0;       // host memory per GPU the cache may spill into
  double offload_bytes_per_s = 0;        // host<->GPU link per GPU (reads of spilled cache)
  double prefill_efficiency = 0;         // fraction of the dense peak GEMMs reach; 0: the calibrated one (data/step_time.json)
  std::vector<Dtype> kv_dtypes;          // KV dtypes the engine offers (EnginePreset); empty: any
  // `context` was not given: the default (4,096) applies. Reported (plan's JSON "context_default",
  // "(default)" in its text); set by the request parser (kvplan/request.h). A caller that sets
  // `context` itself after parsing clears it (a sweep's grid does not report it).
  bool context_default = false;
};

struct PerGpu {
  std::uint64_t memory_bytes = 0;     // device-reported capacity
  std::uint64_t usable_bytes = 0;     // floor(memory_bytes x utilization)
  std::uint64_t weights_bytes = 0;    // ceil(weights / (tp x pp))
  std::uint64_t kv_bytes = 0;         // busiest stage, this GPU's sequences
  std::uint64_t state_bytes = 0;
  std::uint64_t reserved_bytes = 0;
  std::uint64_t free_bytes = 0;       // usable - everything above (0 when short)
  std::uint64_t shortfall_bytes = 0;  // how much is missing when it does not fit
  std::uint64_t offloaded_bytes = 0;  // cache bytes spilled to host memory
};

struct Plan {
  std::string model, gpu;
  bool fits = false;
  std::uint64_t gpus = 0, tp = 0, pp = 0, dp = 0;
  std::uint64_t context = 0, concurrency = 0, shared_prefix_tokens = 0;
  bool context_default = false;  // PlanInput::context_default: the context is the default 4,096
  CacheDtypes dtypes;
  std::vector<std::uint64_t> pp_layers;
  std::uint64_t busiest_stage = 0;
  PerGpu per_gpu;
  std::uint64_t weights_total_bytes = 0;
  std::uint64_t cache_bytes_per_token = 0;   // per GPU, busiest stage, no window full
  std::uint64_t max_concurrency = 0;         // sequences of `context` tokens (all replicas)
  std::uint64_t max_context = 0;             // longest context for `concurrency` sequences
  bool max_context_unbounded = false;        // no token cache: context is not memory-bound
  std::uint64_t kv_capacity_tokens = 0;      // tokens the cache budget holds (all replicas)
  std::uint64_t min_gpus = 0, min_gpus_tp = 0, min_gpus_pp = 0;  // 0: no split up to the limit fits
  // Why that layout: TP within one node (kGpusPerNode GPUs) first, then PP across nodes; not
  // simply the fewest GPUs (docs/planner.md "Minimum GPUs"). Empty when nothing fits.
  std::string min_gpus_reason;
  std::optional<Dtype> kv_dtype_to_fit;      // least lossy KV dtype in kv_dtype_ladder() that fits
  // Whole-deployment cache and the seeds' "how many GPUs the cache alone takes" (S12).
  std::uint64_t cache_total_bytes = 0;       // concurrency sequences, unsharded
  std::uint64_t cache_only_gpus_marketing = 0;
  std::uint64_t cache_only_gpus_device = 0;
  // Roofline (per replica, one decode step for all its sequences).
  std::uint64_t weight_bytes_read_per_step = 0;  // per GPU, summed over PP stages
  std::uint64_t kv_bytes_read_per_step = 0;
  double decode_step_seconds = 0;
  // Its terms, which add up to decode_step_seconds: the weight reads of every PP stage (a stage
  // waits for the one before), the cache reads, and the offloaded cache over the host link.
  double decode_weight_seconds = 0, decode_kv_seconds = 0, decode_offload_seconds = 0;
  // The step model's other terms (kvplan/step_time.h): compute (max'ed with the memory term, not
  // added), and the fixed overhead plus TP all-reduces.
  double decode_compute_seconds = 0, decode_overhead_seconds = 0;
  // The band: the held-out error of the calibration (data/step_time.json, docs/speed.md).
  double decode_step_seconds_fast = 0, decode_step_seconds_slow = 0;
  double decode_tokens_per_second = 0;           // per sequence
  double decode_tokens_per_second_aggregate = 0; // all sequences, all replicas
  double prefill_flops = 0;
  double ttft_seconds = 0;
  bool ttft_known = false;              // false: no FLOP/s figure for the GPU (notes say which)
  double ttft_seconds_fast = 0, ttft_seconds_slow = 0;
  std::string step_time_model;          // describe_step_time(): the formula and its constants
  std::uint64_t crossover_tokens = 0;  // fewest cached tokens (batch x context) whose reads reach the weights'
  std::uint64_t crossover_concurrency = 0;  // sequences of `context` tokens past which cache reads dominate
  std::string reason;                 // one sentence when it does not fit
  std::vector<std::string> notes;     // assumptions and estimates used
};

// Defaults an engine applies that change the plan: paging block and memory fraction.
// "none" (block 1, 0.9) and "vllm" (16-token blocks, gpu_memory_utilization 0.9). Exact engine
// accounting (profiling, block counts, log lines) is `kvplan engine`, not the planner.
struct EnginePreset {
  std::uint64_t block_tokens = 1;
  double utilization = 0.9;
  // KV cache dtypes the engine offers (vLLM: the elements of kVllmKvCacheDtypes in dtype.h, the
  // list engines/engine_vllm.cpp parses --kv-cache-dtype with); empty: any.
  std::vector<Dtype> kv_dtypes;
};
EnginePreset engine_preset(std::string_view engine);

// Validates the input (InputError naming the field) and plans.
Plan plan(const ModelSpec& m, const PlanInput& in);

// Precision ladder for kv_dtype_to_fit: the serving dtype, then q8_0, fp8_e4m3, q4_0, int4,
// keeping only the dtypes in `offered` (an engine's EnginePreset::kv_dtypes) when it is not empty.
std::vector<Dtype> kv_dtype_ladder(const ModelSpec& m, std::span<const Dtype> offered = {});

// vLLM's default pipeline split (get_pp_indices): extra layers go to the stages before the last.
std::vector<std::uint64_t> default_pp_split(std::uint64_t layers, std::uint64_t pp);

// Bytes one decode step reads from weights. `active_bytes` is what one token reads at batch 1
// (WeightBytes::active: top-k experts, one embedding row); the routed experts' share grows with
// the batch to the expected number of distinct experts that `batch` tokens touch,
// E x (1 - (1 - k/E)^batch). Dense models read active_bytes at any batch.
double weight_bytes_read(std::uint64_t active_bytes, std::uint64_t expert_bytes, std::uint64_t experts,
                         std::uint64_t experts_per_token, std::uint64_t batch);

// Attention work on one layer, as the planner's TTFT and the simulator's step time count it:
// 2 x heads x (qk_dim + v_dim) FLOPs per attended (query, key) pair (the scores and the weighted
// sum), and the most keys one query attends there (a window or chunk; UINT64_MAX: all). A layer
// without attention (Mamba, no cache) costs 0.
struct AttentionCost {
  double flops_per_pair = 0;
  std::uint64_t max_keys = UINT64_MAX;
};
AttentionCost attention_cost(const ModelSpec& m, const LayerSpec& layer);  // every mixer of the layer
AttentionCost attention_cost(const ModelSpec& m, const LayerCache& mixer);
// Causal (query, key) pairs for the query positions i in (from, to], each attending min(i, cap) keys.
double attended_pairs(std::uint64_t from, std::uint64_t to, std::uint64_t cap);

// The cache of one pipeline stage on one GPU, compressed to what the sweep needs: layers with
// the same (bytes per token, token cap) merged, plus constant per-sequence state.
struct CacheProfile {
  struct Group {
    std::uint64_t bytes_per_token = 0;
    std::uint64_t cap_tokens = 0;   // window/chunk; UINT64_MAX for full attention and MLA
    std::uint64_t layers = 0;
  };
  std::vector<std::vector<Group>> stages;
  std::vector<std::uint64_t> state_bytes;  // per sequence, per stage
};
CacheProfile cache_profile(const ModelSpec& m, const PlanInput& in);

// A context x concurrency grid, row-major [context][concurrency], for plots and numpy. Each
// cell is exact and checked like plan(); per-cell work is a few integer ops.
struct SweepResult {
  std::vector<std::uint64_t> contexts, concurrency;
  std::uint64_t weights_bytes = 0, reserved_bytes = 0, usable_bytes = 0;  // per GPU
  std::vector<std::uint64_t> cache_bytes;   // per GPU, busiest stage (kv + state)
  std::vector<std::uint8_t> fits;
  std::vector<double> decode_step_seconds;
  // Memory one GPU holds in cell k (row-major): weights + reserved + cache_bytes[k]; the CLI's
  // CSV/JSON column and the Python DataFrame's memory_bytes.
  std::uint64_t memory_bytes(std::size_t k) const;
};
// The largest grid sweep() evaluates: contexts x concurrency above this is an InputError before
// any work (a 1,024 x 1,024 grid; the CSV of a full grid is about 70 MB).
inline constexpr std::size_t kMaxSweepCells = 1u << 20;
SweepResult sweep(const ModelSpec& m, const PlanInput& base, std::span<const std::uint64_t> contexts,
                  std::span<const std::uint64_t> concurrency);

// One row of `kvplan compare`: a model's cache next to its weights.
struct CompareRow {
  std::string model;
  std::uint64_t layers = 0;
  std::string kinds;                   // "32 full_attention" / "20 sliding_attention + 4 full_attention"
  std::uint64_t bytes_per_token = 0;   // one sequence, no window full
  std::uint64_t tokens = 0;
  std::uint64_t cache_bytes = 0;       // one sequence of `tokens`
  std::uint64_t weights_bytes = 0;
  double share_of_weights = 0;         // cache_bytes / weights_bytes (0 when weights unknown)
};
CompareRow compare_row(const ModelSpec& m, std::uint64_t tokens, std::optional<Dtype> kv_dtype = std::nullopt,
                       std::optional<WeightFormat> weight_dtype = std::nullopt);

// Reports (planner_report.cpp): the CLI and the Python module print these, so every surface
// shows the same figures. JSON byte counts are exact integers.
nlohmann::json to_json(const Accelerator& a);
nlohmann::json to_json(const Plan& p);
nlohmann::json to_json(const CompareRow& r);
nlohmann::json to_json(const SweepResult& s);
std::string format_plan_text(const Plan& p);
std::string format_gpus_text(const std::vector<Accelerator>& gpus);
std::string format_compare_text(const std::vector<CompareRow>& rows);
// The same table as CSV: one row per model, byte counts exact (weights_bytes empty when unknown).
std::string format_compare_csv(const std::vector<CompareRow>& rows);
std::string format_sweep_csv(const SweepResult& s);
// The same CSV and JSON (to_json(s) with `extra`'s keys added, printed with indent 2), written
// cell by cell to `out`: a large grid never exists as one JSON document in memory.
void write_sweep_csv(std::ostream& out, const SweepResult& s);
void write_sweep_json(std::ostream& out, const SweepResult& s, const nlohmann::json& extra);

}  // namespace kvplan
