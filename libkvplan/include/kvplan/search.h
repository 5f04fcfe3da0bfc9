#pragma once
// `kvplan search`: the cheapest deployment that meets latency targets at a target rate.
//
// A study enumerates GPU x tensor-parallel size x KV-cache dtype x replica count for one model
// served by vLLM; each candidate is one `vllm serve` launch command per replica. A candidate is
//  1. pruned by exact memory first: kvplan check's verdict on its own launch command (only PASS
//     survives: a verdict is conservative, and so is the search);
//  2. simulated: the fleet's requests (the trace, or the workload spec at the target rate) go to
//     the replicas through the study's router (round-robin, least-outstanding or prefix-aware),
//     each replica is its own simulated engine (prepare_simulation on the same command, so the
//     pool is check's), and the SLOs must hold at the percentile on every replica that serves
//     requests (the worst replica's percentile bounds the fleet's from above);
//  3. kept when it meets the SLOs. The document lists every candidate's outcome, the Pareto set
//     over (cost per hour, goodput) of the kept ones, and the chosen one: the cheapest kept.
// Prices come only from the user's CSV (gpu,usd_per_hour,source,date); without one, cost is null
// and GPU count takes its place as the cost axis.
//
// Candidates are independent: evaluate_search_candidate(study, i) is a pure function of the study
// and the index, so a study can be split (--shard K/N: the i with i % N == K - 1, or a Dask
// client.map over the indices) and merged (merge_search) to the same document, byte for byte.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/simulate.h"

namespace kvplan {

// One row of a price file.
struct GpuPrice {
  std::string gpu;            // canonical catalog name
  double usd_per_hour = 0;    // one GPU, on demand
  std::string source, date;   // where the figure was read, and when
};
// A CSV with the header gpu,usd_per_hour,source,date (any order, no other columns): every row a
// catalog GPU (any name find_accelerator takes), a positive price, a non-empty source and date.
// A GPU named twice is an error naming both lines.
std::vector<GpuPrice> parse_prices(std::string_view csv_text, std::string_view source);
std::vector<GpuPrice> load_prices(const std::string& path);

// How a fleet's requests reach its replicas (search/router.cpp, each rule cited there):
//  - round_robin: request i (in arrival order) to replica i mod replicas;
//  - least_outstanding: the replica with the fewest requests routed and not finished (llm-d's
//    active-request-scorer);
//  - prefix_aware: NVIDIA Dynamo's KV router cost, overlap_score_weight x prefill blocks + decode
//    blocks, with its approximate (routing-history) prefix index and its defaults.
enum class RouterKind { round_robin, least_outstanding, prefix_aware };
std::string_view router_name(RouterKind k);          // "round-robin", "least-outstanding", "prefix-aware"
RouterKind parse_router(std::string_view text);      // an error naming --router otherwise
// A router for `replicas` replicas (simulate_fleet calls it while they run); block_size: the
// engine's KV block in tokens (the prefix-aware router hashes prompts in blocks of it).
std::unique_ptr<FleetRouter> make_router(RouterKind k, std::size_t replicas, std::uint64_t block_size);

struct SearchStudy {
  std::string model;                     // as for kvplan simulate (a bundled id or a path)
  std::vector<std::string> gpus;         // canonical names (resolved by make_search_study)
  // The workload: exactly one of a spec (open loop, one turn; its rate= is replaced by the
  // target rate) or a trace file (its arrivals scaled to the target rate when one is given).
  std::string workload_spec;
  std::string trace_path;
  SloTargets slo;                        // ttft_s / tpot_s / e2e_s (0 = no target; at least one)
  double percentile = 0.9;               // 0.5, 0.9 or 0.99
  double target_rate = 0;                // fleet requests/s (required with a spec)
  std::vector<std::string> kv_cache_dtypes{"auto", "fp8"};  // vLLM --kv-cache-dtype values
  std::uint64_t max_tp = 8;              // tensor-parallel sizes: divisors of the heads up to this
  std::uint64_t max_replicas = 8;        // replica counts 1..max_replicas
  std::uint64_t max_model_len = 0;       // --max-model-len (0: the model's)
  RouterKind router = RouterKind::round_robin;  // --router
  std::vector<GpuPrice> prices;          // from the user's CSV; empty: cost is null
  std::string prices_source;             // the CSV's path ("" without one)
};

// Validates and normalises a study (GPU names resolved, one workload, SLOs, percentile, rate,
// prices for listed GPUs); errors name the option.
SearchStudy make_search_study(SearchStudy s);
nlohmann::json to_json(const SearchStudy& s);
SearchStudy search_study_from_json(const nlohmann::json& j);

struct SearchCandidate {
  std::size_t index = 0;
  std::string gpu;
  std::uint64_t tp = 1, pp = 1, dp = 1, replicas = 1;
  std::string kv_cache_dtype;
  std::vector<std::string> launch_argv;   // `vllm serve MODEL ...` of one replica
  std::string launch_command;             // the same, shell-quoted
};
// Every candidate, in a fixed order: GPU (as listed), tp ascending, KV dtype (as listed),
// replicas ascending.
std::vector<SearchCandidate> enumerate_search_candidates(const SearchStudy& s);

// One candidate's outcome as JSON: "index", the candidate's fields, "status" ("pruned": check
// did not PASS; "slo_missed"; "kept"), "memory" (check's figures for the launch command),
// "reason", and for simulated ones "goodput", "ttft_s", "tpot_s", "e2e_s" (the worst replica's,
// at the percentile), "throughput_output_tokens_per_s", "router", "prefix_hit_rate" (the fleet's
// prefix-cache hit tokens over query tokens, as vLLM counts them) and "requests_per_replica".
nlohmann::json evaluate_search_candidate(const SearchStudy& s, std::size_t index);

// The document (schema kvplan.search/1, added by the caller's formatter) from the study and the
// outcomes of all its candidates (any order; each index once): "study", "candidates" (by index),
// "pareto", "chosen" (null when none is kept), "notes".
nlohmann::json search_document(const SearchStudy& s, std::vector<nlohmann::json> outcomes);
// The candidates i with i % shard_count == shard_index - 1 (1-based shard_index), evaluated; the
// document then also holds "shard": {"index", "count", "candidates_total"}.
nlohmann::json run_search(const SearchStudy& s, std::uint64_t shard_index = 1, std::uint64_t shard_count = 1);
// Shards of one study (the same "study", every index exactly once) to the unsharded document.
nlohmann::json merge_search(const std::vector<nlohmann::json>& shards);

// "K/N" with 1 <= K <= N.
std::pair<std::uint64_t, std::uint64_t> parse_shard(std::string_view text);

// The document as a table (report/search_report.cpp).
std::string format_search_text(const nlohmann::json& document);
// Every candidate as one CSV row (header first; numbers as the JSON writes them, null or absent
// empty), with whether it is in the Pareto set and whether it is the chosen one.
std::string format_search_csv(const nlohmann::json& document);

}  // namespace kvplan
