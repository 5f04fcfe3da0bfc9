#pragma once
// `kvplan simulate`: a workload simulator that runs an engine's scheduler and KV-cache allocator
// step by step over a request trace, with the pool kvplan's engine profile sizes and a roofline
// or calibrated step time:
//  - vLLM V1 (continuous batching, chunked prefill, the hybrid allocator's groups and block
//    tables, prefix caching, preemption by recompute; the pool is vllm_profile's);
//  - SGLang (the radix-tree prefix cache over the token pool with LRU eviction of unlocked
//    leaves, PrefillAdder's admission with the new-token ratio, retraction when decoding runs
//    out of tokens; the pool is sglang_profile's max_total_num_tokens);
//  - llama.cpp's llama-server (fixed slots with a context each, the slot's cached prompt reused
//    by longest common prefix; the cells are llamacpp_profile's).
// docs/simulate.md explains each model, what it mirrors in the engine's code and its limits.
//
// Times are doubles in seconds and are estimates; block and token counts are exact integers.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/step_time.h"
#include "kvplan/check.h"
#include "kvplan/engines.h"
#include "kvplan/hardware.h"
#include "kvplan/model.h"

namespace kvplan {

// ---------------------------------------------------------------------------------------------
// Workloads
// ---------------------------------------------------------------------------------------------

// One request. Token content (what prefix caching can reuse) is described, not stored:
//  - prefix_id != 0: the first `prefix_tokens` prompt tokens (all of them when prefix_tokens is
//    0) are the first tokens of one shared token stream named prefix_id;
//  - session != 0: a later turn of a session starts with the previous turn's prompt and
//    output (as many of those tokens as the prompt holds), then new tokens;
//  - everything else is unique to the request.
struct SimRequest {
  double arrival_s = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t output_tokens = 0;   // max_tokens; generation always runs to it (no early EOS)
  std::uint64_t session = 0;         // 0 = none
  std::uint64_t prefix_id = 0;       // 0 = none
  std::uint64_t prefix_tokens = 0;   // 0 with prefix_id = the whole prompt is the shared stream
  std::int64_t priority = 0;         // vLLM --scheduling-policy priority: lower values first (the API field)
};

// Trace files. JSONL: one {"arrival_s", "prompt_tokens", "output_tokens", "session"?,
// "prefix_id"?, "prefix_tokens"?, "priority"?} per line (any other key is an error). CSV with the header of the public Azure LLM inference
// traces (TIMESTAMP,ContextTokens,GeneratedTokens; Azure/AzurePublicDataset, AzureLLMInferenceTrace
// 2023/2024) or of BurstGPT (Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type;
// HPMLL/BurstGPT), arrival times shifted to the earliest row (docs/simulate.md "Workloads") and
// the requests sorted by arrival. `source` names the file in messages.
enum class TraceFormat { automatic, jsonl, azure_csv, burstgpt_csv };
std::vector<SimRequest> parse_trace(std::string_view text, std::string_view source,
                                    TraceFormat format = TraceFormat::automatic);
std::vector<SimRequest> load_trace(const std::string& path, TraceFormat format = TraceFormat::automatic);

// A length distribution: fixed:N, uniform:LO:HI, normal:MEAN:SD, lognormal:MEDIAN:SIGMA,
// histogram:V1@W1,V2@W2,... (value@weight). Samples are rounded and clamped to [min, max].
struct LengthDist {
  enum class Kind { fixed, uniform, normal, lognormal, histogram } kind = Kind::fixed;
  double a = 0, b = 0;                                  // parameters (see above)
  std::vector<std::pair<std::uint64_t, double>> bins;   // histogram
  std::uint64_t min = 1, max = UINT64_MAX;
  static LengthDist fixed_at(std::uint64_t n) {
    LengthDist d;
    d.a = static_cast<double>(n);
    return d;
  }
};
LengthDist parse_length_dist(std::string_view text, std::string_view what);

// A synthetic workload, seeded and deterministic: the PRNG is xoshiro256** seeded by SplitMix64
// (Blackman & Vigna), and every distribution is sampled by formulas in kvplan's own code, so the
// same spec and seed give the same requests with any compiler and standard library.
struct WorkloadSpec {
  enum class Arrivals { poisson, bursty, closed, at_once } arrivals = Arrivals::poisson;
  double rate = 1.0;               // requests/s (poisson, bursty)
  double burstiness_cv = 2.0;      // bursty: gamma inter-arrivals with this coefficient of variation
  std::uint64_t users = 1;         // closed: users; each sends, waits for the answer, thinks
  double think_s = 0;              // closed and multi-turn: mean exponential think time (0 = none)
  std::uint64_t requests = 1000;   // total requests (all turns counted)
  LengthDist prompt = LengthDist::fixed_at(512);
  LengthDist output = LengthDist::fixed_at(128);
  std::uint64_t system_prompt_tokens = 0;  // a shared prefix every prompt starts with
  std::uint64_t turns = 1;         // >1: sessions; turn k's prompt = history + a new prompt sample
  std::uint64_t seed = 0;
};
// "rate=10 requests=1000 prompt=lognormal:1024:0.8 output=uniform:64:512 arrivals=poisson
//  system_prompt=512 turns=3 think=5 users=64 cv=2 seed=1" (space- or comma-separated key=value).
WorkloadSpec parse_workload_spec(std::string_view text);
nlohmann::json to_json(const WorkloadSpec& w);

// ---------------------------------------------------------------------------------------------
// Step time
// ---------------------------------------------------------------------------------------------

// One scheduler step's batch, as the step-time model sees it.
struct StepBatch {
  std::uint64_t prefill_tokens = 0;   // new tokens of requests still in their prompt
  std::uint64_t decode_tokens = 0;    // one per request past its prompt
  std::uint64_t kv_tokens_read = 0;   // sum over scheduled requests of the context they attend
  std::uint64_t requests = 0;
  double kv_bytes_read = 0;           // exact per-layer bytes read (windows capped), this GPU
  double flops = 0;                   // linear layers + attention, this GPU
  StepWork work;                      // what step_time() was given (filled when the step is timed)
};

// roofline (the default): kvplan/step_time.h's step_time() with the calibrated constants
// (data/step_time.json) on one GPU of the replica. linear: a + b x prefill + c x decode + d x
// kv_tokens_read, fitted to measured steps.
struct StepTimeModel {
  enum class Kind { roofline, linear } kind = Kind::roofline;
  // roofline: fraction of the dense peak GEMMs reach; 0 = the calibrated compute_fraction.
  double prefill_efficiency = 0;
  StepCalibration calibration = default_step_calibration();
  // Every step's time x this (the band's ends: calibration.fast_factor / slow_factor; 1 = typical).
  double time_scale = 1;
  double a = 0, b = 0, c = 0, d = 0;
  std::uint64_t samples = 0;        // linear: rows fitted
  double rms_error_s = 0;           // linear: fit residual
  std::string source;               // the calibration file
};
// CSV with a header naming prefill_tokens, decode_tokens, kv_tokens_read and seconds (any order;
// more columns are ignored); least squares on the four coefficients.
StepTimeModel fit_step_time(std::string_view csv_text, std::string_view source);
StepTimeModel load_step_time(const std::string& path);

// ---------------------------------------------------------------------------------------------
// The simulation
// ---------------------------------------------------------------------------------------------

// vLLM's scheduler settings (vllm/config/scheduler.py SchedulerConfig). max_num_batched_tokens,
// block size, prefix caching, max_model_len and the memory budget come from `engine`.
struct SimSchedulerOptions {
  std::uint64_t max_num_seqs = 256;              // --max-num-seqs (SchedulerConfig default 256)
  std::uint64_t long_prefill_token_threshold = 0;  // --long-prefill-token-threshold (0 = off)
  bool chunked_prefill = true;                   // --enable-chunked-prefill (V1 default on)
  // --scheduler-reserve-full-isl (SchedulerConfig.scheduler_reserve_full_isl, default True): a
  // waiting request is admitted only when the blocks of its whole sequence fit, not just those of
  // its first chunk (sliding-window and chunked-local groups counted at their per-request cap).
  bool reserve_full_isl = true;
  // --scheduling-policy (SchedulerConfig.policy): fcfs, or priority (vllm/v1/core/sched/request_queue.py
  // PriorityRequestQueue: waiting requests by (priority, arrival time); under block pressure the running
  // request with the largest (priority, arrival time) is preempted, not the last one).
  enum class Policy { fcfs, priority } policy = Policy::fcfs;
};

struct SloTargets {
  double ttft_s = 0;   // 0 = no target
  double tpot_s = 0;
  double e2e_s = 0;
};

// One step, for the per-step CSV (streamed through SimOptions::on_step; nothing is kept).
struct SimStep {
  std::uint64_t index = 0;
  double start_s = 0, duration_s = 0;
  std::uint64_t running = 0, waiting = 0;
  std::uint64_t scheduled_requests = 0, prefill_tokens = 0, decode_tokens = 0, kv_tokens_read = 0;
  std::uint64_t blocks_used = 0;                 // pool blocks with a reference (null block excluded)
  std::uint64_t cached_free_blocks = 0;          // free blocks still holding a prefix-cache hash
  std::vector<std::uint64_t> group_blocks;       // blocks held per KV cache group
  std::uint64_t preemptions = 0;                 // in this step
  std::uint64_t finished = 0;                    // in this step
  StepWork work;                                 // the step-time terms (this GPU)
};

// SGLang's scheduler settings that its engine profile does not hold (python/sglang/srt/server_args.py).
struct SglangSchedulerOptions {
  double schedule_conservativeness = 1.0;    // --schedule-conservativeness (new_token_ratio = min(0.7 x it, 1))
  std::uint64_t max_prefill_tokens = 16384;  // --max-prefill-tokens (PrefillAdder's rem_input_tokens)
  bool chunked_prefill = true;               // false: --chunked-prefill-size -1
  // --schedule-policy: only fcfs is simulated; any other (lpm, dfs-weight, lof, random, ...) is an error
  // naming it (SGLang's lpm reorders the waiting queue by prefix match, which the simulator does not).
  std::string schedule_policy = "fcfs";
};

// llama-server's settings that libllama's profile does not hold (common/arg.cpp, common/common.h).
struct LlamaServerOptions {
  double slot_prompt_similarity = 0.1;  // --slot-prompt-similarity / -sps (0: least recently used idle slot)
  bool cache_prompt = true;             // the request field cache_prompt (default true): reuse the slot's cached prefix
};

// SGLang and llama-server settings from a launch command (`python -m sglang.launch_server ...`,
// `llama-server ...`), read by the engine's own flag parser (the one `kvplan check` uses) and mapped
// onto the engine profile's typed options by its option table (kvplan/engine_fields.h), as
// `kvplan engine` maps its flags. The memory budget is not set here: kvplan check's is (see
// cmd_simulate.cpp). `notes`: settings simulated approximately.
struct SglangSimOptions {
  SglangOptions options;
  SglangSchedulerOptions scheduler;
  std::vector<std::string> notes;
};
SglangSimOptions sglang_sim_options(const Deployment& d);
struct LlamaServerSimOptions {
  LlamaCppOptions options;
  LlamaServerOptions server;
  std::vector<std::string> notes;
};
LlamaServerSimOptions llamacpp_sim_options(const Deployment& d);


// TensorRT-LLM's scheduler settings that its engine profile does not hold (tensorrt_llm/llmapi/llm_args.py:
// max_num_tokens 8192, enable_chunked_prefill False, SchedulerConfig.capacity_scheduler_policy GUARANTEED_NO_EVICT).
enum class TrtllmCapacityPolicy { guaranteed_no_evict, max_utilization };
struct TrtllmSchedulerOptions {
  TrtllmCapacityPolicy policy = TrtllmCapacityPolicy::guaranteed_no_evict;
  std::uint64_t max_num_tokens = 8192;   // tokens per step (MicroBatchScheduler)
  bool enable_chunked_context = false;   // enable_chunked_prefill
  // scheduler_config.context_chunking_policy (ContextChunkingPolicy): FIRST_COME_FIRST_SERVED is simulated;
  // EQUAL_PROGRESS is an error naming it.
  enum class ContextChunking { first_come_first_served, equal_progress } context_chunking =
      ContextChunking::first_come_first_served;
  // kv_cache_config (tensorrt_llm/llmapi/llm_args.py KvCacheConfig, defaults True): KV block reuse
  // (prefix hits on the radix tree of blocks), partial reuse of a block's leading tokens, and copying
  // a partially matched block another request holds.
  bool enable_block_reuse = true;
  bool enable_partial_reuse = true;
  bool copy_on_partial_reuse = true;
};
// TensorRT-LLM settings from a `trtllm-serve ...` command (its flags and --extra_llm_api_options).
struct TrtllmSimOptions {
  TrtllmOptions options;
  TrtllmSchedulerOptions scheduler;
  std::vector<std::string> notes;
};
TrtllmSimOptions trtllm_sim_options(const Deployment& d);

struct SimOptions {
  EngineKind engine_kind = EngineKind::vllm;  // whose scheduler runs: vllm, sglang, llamacpp or trtllm
  VllmOptions engine;            // vLLM: as `kvplan engine vllm`; the memory budget must be resolved
  SimSchedulerOptions scheduler;  // vLLM
  SglangOptions sglang;          // SGLang: as `kvplan engine sglang` (the pool: sglang_profile)
  SglangSchedulerOptions sglang_scheduler;
  LlamaCppOptions llamacpp;      // llama.cpp: as `kvplan engine llama.cpp` (slots and cells: llamacpp_profile)
  LlamaServerOptions llama_server;
  TrtllmOptions trtllm;          // TensorRT-LLM: as `kvplan engine trtllm` (the pool: trtllm_profile)
  TrtllmSchedulerOptions trtllm_scheduler;
  StepTimeModel step_time;
  SloTargets slo;
  std::function<void(const SimStep&)> on_step;   // optional per-step sink
  std::uint64_t timeline_points = 512;     // bound on the kept time series (decimated)
  std::uint64_t max_steps = 100'000'000;   // safety bound; exceeding it is an error
};

// A vLLM (as cmd_simulate's launch-command form reads it: vllm serve's batch defaults for the GPU),
// SGLang, llama-server or TensorRT-LLM deployment made ready to simulate: kvplan check's reading of it (the
// memory budget at the unfavourable end of its band), the model, and the simulator's options from
// the same command, whose pool must be the one check reports (an internal error otherwise). An
// engine that does not start on the GPU is an InputError with check's reason.
struct SimDeployment {
  Deployment deployment;     // the command as simulated (vLLM: with vllm serve's --max-num-batched-tokens default)
  CheckResult check;
  ModelSpec model;
  SimOptions options;        // engine_kind and the engine's options; step time, SLOs: the caller's
  std::uint64_t gpus = 1;    // GPUs of one replica
  std::vector<std::string> notes;
};
SimDeployment prepare_simulation(const Deployment& d, const CheckOptions& check, const LoadOptions& load = {});

struct Percentiles {
  std::uint64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct SimTimelinePoint {
  double t_s = 0;
  std::uint64_t running = 0, waiting = 0, blocks_used = 0;
  std::vector<std::uint64_t> group_blocks;
};

struct SimGroupInfo {
  std::string kind;
  std::uint64_t block_size = 0, window = 0, layers = 0;
  std::uint64_t peak_blocks = 0;
};

// What the engine-neutral fields mean per engine (docs/simulate.md, "JSON keys per engine"):
//               num_blocks              block_size   max_model_len    max_num_seqs          max_num_batched_tokens
//   vllm        num_blocks (+ null)     block_size   max_model_len    max_num_seqs          max_num_batched_tokens
//   sglang      pool pages              page_size    context_length   max_running_requests  chunked_prefill_size
//   llamacpp    cells (all streams)     1 (a cell)   slot context     slots (-np)           n_batch
//   trtllm      pool blocks             tokens_per_block max_seq_len  max_batch_size        max_num_tokens
struct SimResult {
  // The deployment as the engine sizes it (vllm_profile, sglang_profile, llamacpp_profile).
  std::string engine = "vllm";         // "vllm", "sglang", "llama.cpp", "trtllm"
  std::string model, gpu;
  std::uint64_t num_blocks = 0;        // the engine's pool in blocks (see the table above)
  std::uint64_t block_size = 0;
  std::uint64_t max_model_len = 0;
  double engine_max_concurrency = 0;   // the profile's max_concurrency (vLLM's "Maximum concurrency" figure)
  std::uint64_t max_num_seqs = 0, max_num_batched_tokens = 0;
  bool prefix_caching = false;
  std::vector<SimGroupInfo> groups;
  std::string step_time_model;         // the step model (kvplan/step_time.h) or "calibrated a + b ..."
  // The band on every time figure (data/step_time.json's held-out error): fast = x fast, slow = x
  // slow; throughput divides by them. 1 and 1 with a --calibration of the user's own steps.
  double time_fast_factor = 1, time_slow_factor = 1;
  // Outcome.
  std::uint64_t requests = 0, finished = 0, rejected = 0;   // rejected: longer than max_model_len
  std::uint64_t steps = 0;
  double makespan_s = 0;               // first arrival to last finish
  std::uint64_t peak_blocks = 0, peak_running = 0, peak_waiting = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t prompt_tokens = 0, output_tokens = 0, computed_prompt_tokens = 0;
  // Prefix-cache lookups as the engine counts them. vLLM (PrefixCacheStats, vllm/v1/metrics/stats.py):
  // none with prefix caching off; a preempted request's re-admission lookups in the separate
  // preempted counters, left out of the logged hit rate (hit_tokens / query_tokens).
  std::uint64_t prefix_query_tokens = 0, prefix_hit_tokens = 0;
  std::uint64_t prefix_preempted_query_tokens = 0, prefix_preempted_hit_tokens = 0;
  double prefix_hit_rate = 0;
  // TensorRT-LLM with block reuse (WindowBlockManager's counters, logged as "reused blocks", "missed
  // blocks", "cache hit rate" = reused / (reused + missed)); prefix_query_tokens / prefix_hit_tokens
  // are its total input tokens and reused (prepopulated) tokens.
  std::uint64_t reused_blocks = 0, missed_blocks = 0;
  double block_hit_rate = 0;
  Percentiles ttft_s, tpot_s, e2e_s, queue_s;
  double throughput_requests_per_s = 0, throughput_output_tokens_per_s = 0, throughput_total_tokens_per_s = 0;
  SloTargets slo;
  std::uint64_t slo_met = 0;
  double goodput_requests_per_s = 0;
  double mean_running = 0, mean_waiting = 0, mean_in_system = 0;   // time averages
  double arrival_rate_per_s = 0;       // finished / makespan (Little's law: L = lambda x W)
  std::vector<SimTimelinePoint> timeline;
  std::vector<std::string> notes;
};

// Runs the workload on o.engine_kind's scheduler. Throws InputError when the engine does not
// start (the engine's own message).
SimResult simulate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, std::vector<SimRequest> requests);
SimResult simulate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, const WorkloadSpec& w);
// The requests an open-loop spec produces (closed loops and multi-turn think times depend on the
// simulation and are generated inside it).
std::vector<SimRequest> generate_requests(const WorkloadSpec& w);

// ---------------------------------------------------------------------------------------------
// A fleet: replicas behind a router
// ---------------------------------------------------------------------------------------------

// A router over a fleet's replicas (kvplan search's routers are in search/router.cpp). It decides
// by what a real router sees: its own decisions, and each request's first token and finish as
// they stream back.
class FleetRouter {
 public:
  virtual ~FleetRouter() = default;
  // The replica (below the fleet's count) that request `index` (its position in the trace, in
  // arrival order) goes to. Called in arrival order, once every first token and finish at or
  // before the request's arrival has been reported (and none later).
  virtual std::size_t route(std::size_t index, const SimRequest& r) = 0;
  virtual void first_token(std::size_t /*replica*/, std::size_t /*index*/, double /*t*/) {}
  virtual void finished(std::size_t /*replica*/, std::size_t /*index*/, double /*t*/) {}
};

struct FleetResult {
  std::vector<SimResult> replicas;        // each replica's run, as simulate() reports one
  std::vector<std::size_t> replica_of;    // by request index: where the router sent it
};

// `replicas` identical vLLM engines, each its own simulation, fed by `router` while they run:
// a request is routed at its arrival, when every replica's state up to that time is known
// (the replicas run in threads, one each, and wait for the router at each arrival they have
// reached). The result does not depend on thread timing. A router that sends request i to
// replica i mod N gives each replica exactly simulate() of its share (a test). `requests` must be
// sorted by arrival; o.on_step must be empty. vLLM only (the scheduler that reports first tokens
// to its source).
FleetResult simulate_fleet(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, std::size_t replicas,
                           const std::vector<SimRequest>& requests, FleetRouter& router);

// ---------------------------------------------------------------------------------------------
// Capacity search
// ---------------------------------------------------------------------------------------------
struct CapacityOptions {
  double percentile = 0.9;        // the SLO must hold at this percentile (0.5, 0.9 or 0.99)
  double rate_lo = 0, rate_hi = 0;  // 0: search from 0.5 req/s doubling
  std::uint64_t iterations = 12;
  double price_per_gpu_hour = 0;  // 0: no cost
  double target_rate = 0;         // > 0: fewest replicas for this rate
};
struct CapacityResult {
  double max_rate = 0;            // highest Poisson rate (req/s per replica) within the SLOs
  std::uint64_t runs = 0;
  SimResult at_max;               // the run at max_rate
  std::uint64_t gpus_per_replica = 0;
  std::uint64_t replicas_for_target = 0;
  double cost_per_million_output_tokens = 0, cost_per_million_total_tokens = 0;
  std::vector<std::string> notes;
};
// The figure of p an SLO at percentile q is judged on: p50 for q <= 0.5, p90 for q <= 0.9, else p99.
double percentile_of(const Percentiles& p, double q);
// Every target of s (0 = none) holds at percentile q, and at least one request finished (the rule
// of find_max_rate and kvplan search).
bool meets_slo(const SimResult& r, const SloTargets& s, double q);
// o with every step at the band's slow end (calibrated model: x slow_factor; a user's --calibration
// is their own measurement and stays as fitted). Every SLO verdict (--find, kvplan search) runs on
// it; `note`, when given, receives the sentence reports print (empty when nothing was scaled).
SimOptions at_slow_end(const SimOptions& o, std::string* note = nullptr);
// The workload's arrivals are replaced by Poisson arrivals at each probed rate (same seed). With
// the calibrated step model every probe runs at the band's slow end (step times x slow_factor):
// a rate passes only if the SLOs hold when the engine is as slow as the held-out error allows.
CapacityResult find_max_rate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, const WorkloadSpec& w,
                             const CapacityOptions& c);

// ---------------------------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------------------------
nlohmann::json to_json(const SimResult& r);       // "schema": "kvplan.simulate/1"
nlohmann::json to_json(const CapacityResult& r);
std::string format_simulate_text(const SimResult& r);
std::string format_capacity_text(const CapacityResult& r);
std::string sim_step_csv_header();
std::string format_sim_step_csv(const SimStep& s);

}  // namespace kvplan
