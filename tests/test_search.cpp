// kvplan search: the price file, the candidates, memory pruned by kvplan check's own verdict, the
// round-robin fleet, the Pareto set and the choice, and shards that merge to the unsharded document.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "helpers.h"
#include "kvplan/check.h"
#include "kvplan/deploy.h"
#include "kvplan/engines.h"
#include "kvplan/simulate.h"
#include "kvplan/search.h"

using namespace kvplan;
using kvplan::test::HasMessage;
using nlohmann::json;

namespace {

// Qwen3-0.6B (16 attention heads, 8 KV heads): small enough that a study runs in well under a second.
SearchStudy small_study() {
  SearchStudy s;
  s.model = "Qwen/Qwen3-0.6B";
  s.gpus = {"H100", "L40S"};
  s.workload_spec = "requests=120 prompt=fixed:512 output=fixed:32 seed=3";
  s.slo = {2.0, 0.05, 0};
  s.percentile = 0.9;
  s.target_rate = 8;
  s.max_tp = 2;
  s.max_replicas = 2;
  s.max_model_len = 4096;
  return make_search_study(s);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(search)

BOOST_AUTO_TEST_CASE(price_file_sample_parses_with_its_sources) {
  const auto prices = load_prices(test::source_path("examples/prices/lambda-on-demand-2026-09-20.csv"));
  BOOST_REQUIRE_EQUAL(prices.size(), 7u);
  // The first row, as the file writes it (lambda.ai/instances, 1x H100 SXM, $4.29 per GPU-hour).
  BOOST_TEST(prices[0].gpu == "H100-SXM-80GB");
  BOOST_TEST(prices[0].usd_per_hour == 4.29);
  BOOST_TEST(prices[0].date == "2026-09-20");
  BOOST_TEST(prices[0].source.find("https://lambda.ai/instances") == 0u);
  BOOST_TEST(prices[2].gpu == "A100-80GB");
}

BOOST_AUTO_TEST_CASE(price_file_errors_name_line_and_column) {
  BOOST_CHECK_EXCEPTION(parse_prices("gpu,usd_per_hour,source\nH100,1,x\n", "p.csv"), InputError, HasMessage({"p.csv:1", "date"}));
  BOOST_CHECK_EXCEPTION(parse_prices("gpu,usd_per_hour,source,date,region\n", "p.csv"), InputError, HasMessage({"region"}));
  BOOST_CHECK_EXCEPTION(parse_prices("gpu,usd_per_hour,source,date\nH100,free,x,2026-01-01\n", "p.csv"), InputError,
                        HasMessage({"p.csv:2 (usd_per_hour)", "free"}));
  BOOST_CHECK_EXCEPTION(parse_prices("gpu,usd_per_hour,source,date\nH100,0,x,2026-01-01\n", "p.csv"), InputError,
                        HasMessage({"positive"}));
  BOOST_CHECK_EXCEPTION(parse_prices("gpu,usd_per_hour,source,date\nH100,2,,2026-01-01\n", "p.csv"), InputError,
                        HasMessage({"(source)"}));
  BOOST_CHECK_EXCEPTION(parse_prices("gpu,usd_per_hour,source,date\nH100,2,x,2026-01-01\nH100-SXM-80GB,3,y,2026-01-01\n", "p.csv"),
                        InputError, HasMessage({"p.csv:3", "H100-SXM-80GB", "line 2"}));
  BOOST_CHECK_THROW(parse_prices("gpu,usd_per_hour,source,date\nH1000,2,x,2026-01-01\n", "p.csv"), InputError);
}

BOOST_AUTO_TEST_CASE(study_refuses_what_it_cannot_search) {
  SearchStudy s = small_study();
  s.slo = {0, 0, 0};
  BOOST_CHECK_EXCEPTION(make_search_study(s), InputError, HasMessage({"SLO"}));
  s = small_study();
  s.percentile = 0.95;
  BOOST_CHECK_EXCEPTION(make_search_study(s), InputError, HasMessage({"--slo-percentile", "0.99"}));
  s = small_study();
  s.trace_path = "t.jsonl";
  BOOST_CHECK_EXCEPTION(make_search_study(s), InputError, HasMessage({"exactly one of --trace"}));
  s = small_study();
  s.workload_spec = "turns=3 requests=10";
  BOOST_CHECK_EXCEPTION(make_search_study(s), InputError, HasMessage({"single-turn"}));
  s = small_study();
  s.prices = {{"H100-SXM-80GB", 4.29, "x", "2026-09-20"}};
  s.prices_source = "p.csv";
  BOOST_CHECK_EXCEPTION(make_search_study(s), InputError, HasMessage({"L40S-48GB", "p.csv"}));
  // A KV dtype vLLM does not take is bad input (kvplan check's reading of the command), not a pruned candidate.
  s = small_study();
  s.kv_cache_dtypes = {"fp9"};
  BOOST_CHECK_EXCEPTION(evaluate_search_candidate(make_search_study(s), 0), InputError, HasMessage({"--kv-cache-dtype", "fp9"}));
  BOOST_CHECK_EXCEPTION(parse_shard("3/2"), InputError, HasMessage({"--shard", "K/N"}));
  BOOST_CHECK_EXCEPTION(parse_shard("0/2"), InputError, HasMessage({"--shard"}));
  BOOST_TEST((parse_shard("2/4") == std::pair<std::uint64_t, std::uint64_t>{2, 4}));
}

BOOST_AUTO_TEST_CASE(candidates_are_gpu_by_tp_by_dtype_by_replicas) {
  SearchStudy s = small_study();
  s.max_tp = 8;
  const auto c = enumerate_search_candidates(make_search_study(s));
  // Qwen3-0.6B's 16 heads: tp 1, 2, 4, 8 (3, 5, 6, 7 do not divide them); 2 GPUs x 4 x 2 dtypes x 2 replicas.
  BOOST_REQUIRE_EQUAL(c.size(), 2u * 4u * 2u * 2u);
  BOOST_TEST(c[0].gpu == "H100-SXM-80GB");
  BOOST_TEST(c[0].tp == 1u);
  BOOST_TEST(c[0].kv_cache_dtype == "auto");
  BOOST_TEST(c[1].replicas == 2u);
  BOOST_TEST(c[2].kv_cache_dtype == "fp8");
  BOOST_TEST(c[4].tp == 2u);
  BOOST_TEST(c[15].tp == 8u);
  BOOST_TEST(c[16].gpu == "L40S-48GB");
  // vllm serve's batch defaults for each GPU are written out (>= 70 GiB and not an A100: 8192 and
  // 1024; else 2048 and 256: vllm/engine/arg_utils.py get_batch_defaults).
  BOOST_TEST(c[0].launch_command ==
             "vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 1 --kv-cache-dtype auto --max-num-batched-tokens 8192 "
             "--max-num-seqs 1024 --max-model-len 4096");
  BOOST_TEST(c[16].launch_command.find("--max-num-batched-tokens 2048 --max-num-seqs 256") != std::string::npos);
  for (std::size_t i = 0; i < c.size(); ++i) BOOST_TEST(c[i].index == i);
}

// Every candidate's memory figures are kvplan check's for its launch command, read back from the
// command text as `kvplan check` reads it.
BOOST_AUTO_TEST_CASE(every_candidate_memory_is_checks_for_its_command) {
  const SearchStudy s = small_study();
  const json doc = run_search(s);
  BOOST_REQUIRE_EQUAL(doc.at("candidates").size(), 16u);
  for (const auto& c : doc.at("candidates")) {
    CheckOptions co;
    co.gpu = c.at("gpu").get<std::string>();
    const CheckResult r = check_deployment(parse_launch_command(split_command_line(c.at("launch_command").get<std::string>())), co);
    const json& m = c.at("memory");
    BOOST_TEST(m.at("verdict").get<std::string>() == std::string(verdict_name(r.verdict)));
    BOOST_TEST(m.at("kv_cache_tokens").get<std::uint64_t>() == r.kv_cache_tokens);
    BOOST_TEST(m.at("per_gpu").at("kv_budget_bytes").get<std::uint64_t>() == r.kv_budget_bytes);
    BOOST_TEST(m.at("per_gpu").at("weights_bytes").get<std::uint64_t>() == r.weights_bytes_per_gpu);
    BOOST_TEST(m.at("per_gpu").at("memory_bytes").get<std::uint64_t>() == r.gpu_memory_bytes);
    BOOST_TEST(m.at("context").get<std::uint64_t>() == 4096u);
    // Only PASS is simulated.
    BOOST_TEST((c.at("status") == "pruned") == (r.verdict != Verdict::pass));
  }
  BOOST_REQUIRE(!doc.at("chosen").is_null());
  BOOST_TEST(doc.at("chosen").at("memory").at("verdict") == "PASS");
}

// A deployment check says does not fit is never simulated: Llama-3.1-70B's bf16 weights
// (about 141 GB) do not fit one L40S (48 GB).
BOOST_AUTO_TEST_CASE(memory_prunes_before_any_simulation) {
  SearchStudy s = small_study();
  s.model = "meta-llama/Llama-3.1-70B";
  s.gpus = {"L40S"};
  s.max_tp = 1;
  s.max_replicas = 1;
  s.kv_cache_dtypes = {"auto"};
  const json o = evaluate_search_candidate(make_search_study(s), 0);
  BOOST_TEST(o.at("status") == "pruned");
  BOOST_TEST(o.at("memory").at("verdict") == "FAIL");
  BOOST_TEST(!o.contains("goodput"));
  BOOST_TEST(o.at("reason").get<std::string>().find("kvplan check: FAIL") == 0u);
}

// N identical replicas behind the round-robin router serve N times one replica's goodput (within
// 1 %). A trace with a request every 1/12 s split over 4 replicas gives replica k the requests k,
// k + 4, ...: a request every 1/3 s from k/12 s, which is the one-replica trace (200 requests every
// 1/3 s) shifted by k/12 s. So every replica is that one replica, and the fleet's goodput is 4 x its
// requests over a span longer by 3/12 s (about 0.4 % of the span). Qwen3-8B on an L40S: at 12 req/s
// one replica misses TTFT p90 <= 2 s (the router matters), at 3 req/s it meets it.
BOOST_AUTO_TEST_CASE(round_robin_replicas_scale_goodput) {
  const auto dir = std::filesystem::temp_directory_path() / ("kvplan_search_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write_trace = [&](const std::string& name, std::size_t n, double gap) {
    std::ofstream f(dir / name);
    for (std::size_t i = 0; i < n; ++i)
      f << "{\"arrival_s\": " << static_cast<double>(i) * gap << ", \"prompt_tokens\": 1024, \"output_tokens\": 128}\n";
    return (dir / name).string();
  };
  SearchStudy one;
  one.model = "Qwen/Qwen3-8B";
  one.gpus = {"L40S"};
  one.max_tp = 1;
  one.kv_cache_dtypes = {"auto"};
  one.max_replicas = 4;
  one.max_model_len = 4096;
  one.slo = {2.0, 0.1, 0};
  one.trace_path = write_trace("one.jsonl", 200, 1.0 / 3);
  SearchStudy fleet = one;
  fleet.trace_path = write_trace("fleet.jsonl", 800, 1.0 / 12);
  const json single = evaluate_search_candidate(make_search_study(one), 0);
  const json four = evaluate_search_candidate(make_search_study(fleet), 3);
  const json alone = evaluate_search_candidate(make_search_study(fleet), 0);
  std::filesystem::remove_all(dir);
  BOOST_REQUIRE(single.at("status") == "kept");
  BOOST_REQUIRE(four.at("status") == "kept");
  BOOST_TEST(four.at("replicas").get<std::uint64_t>() == 4u);
  BOOST_TEST(single.at("slo_met").get<std::uint64_t>() == 200u);
  BOOST_TEST(four.at("slo_met").get<std::uint64_t>() == 800u);
  const double g1 = single.at("goodput").get<double>(), g4 = four.at("goodput").get<double>();
  BOOST_TEST(std::abs(g4 / (4 * g1) - 1) < 0.01, "4 replicas " << g4 << " vs 4 x " << g1);
  // Each replica is the one-replica run shifted in time: the same latencies.
  BOOST_TEST(std::abs(four.at("ttft_s").get<double>() - single.at("ttft_s").get<double>()) < 1e-9);
  BOOST_TEST(std::abs(four.at("tpot_s").get<double>() - single.at("tpot_s").get<double>()) < 1e-9);
  // The whole fleet's traffic on one replica misses the TTFT target.
  BOOST_TEST(alone.at("status") == "slo_missed");
  BOOST_TEST(alone.at("ttft_s").get<double>() > 2.0);
}

// A trace's arrivals are scaled to the target rate: 60 requests one second apart at a target of
// 10 req/s are 60 requests 0.1 s apart (scale (60 - 1) / (10 x 59 s) = 0.1), so each candidate's
// outcome is that of the trace written 0.1 s apart without a target.
BOOST_AUTO_TEST_CASE(trace_arrivals_scale_to_the_target_rate) {
  const auto dir = std::filesystem::temp_directory_path() / ("kvplan_search_trace_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write_trace = [&](const std::string& name, double gap) {
    std::ofstream f(dir / name);
    for (int i = 0; i < 60; ++i)
      f << "{\"arrival_s\": " << i * gap << ", \"prompt_tokens\": " << 256 + 8 * i << ", \"output_tokens\": 64}\n";
    return (dir / name).string();
  };
  SearchStudy s = small_study();
  s.workload_spec.clear();
  s.trace_path = write_trace("slow.jsonl", 1.0);
  s.target_rate = 10;
  SearchStudy fast = s;
  fast.trace_path = write_trace("fast.jsonl", 0.1);
  fast.target_rate = 0;
  const SearchStudy a = make_search_study(s), b = make_search_study(fast);
  for (std::size_t i : {0u, 3u, 9u}) {
    const json x = evaluate_search_candidate(a, i), y = evaluate_search_candidate(b, i);
    BOOST_TEST(x.dump() == y.dump());
    BOOST_TEST(x.at("requests").get<std::uint64_t>() == 60u);
  }
  // A target rate for a trace whose arrivals span no time is refused.
  { std::ofstream f(dir / "once.jsonl"); f << "{\"arrival_s\": 0, \"prompt_tokens\": 8, \"output_tokens\": 8}\n"; }
  s.trace_path = (dir / "once.jsonl").string();
  BOOST_CHECK_EXCEPTION(evaluate_search_candidate(make_search_study(s), 0), InputError, HasMessage({"--target-rate"}));
  std::filesystem::remove_all(dir);
}

// The Pareto set and the choice from outcomes written by hand: a (1 GPU, goodput 5), b (2 GPUs, 4:
// dominated by a) and c (3 GPUs, 6). Without prices the cost axis is the GPU count.
BOOST_AUTO_TEST_CASE(pareto_and_choice_by_cost_then_goodput) {
  SearchStudy s = small_study();
  s.gpus = {"H100"};
  s.max_tp = 1;
  s.kv_cache_dtypes = {"auto"};
  s.max_replicas = 3;
  s = make_search_study(s);
  auto outcome = [](std::size_t i, double goodput, const char* status) {
    return json{{"index", i}, {"gpu", "H100-SXM-80GB"}, {"gpus", i + 1}, {"replicas", i + 1}, {"tp", 1}, {"goodput", goodput},
                {"status", status}, {"throughput_output_tokens_per_s", 100.0}};
  };
  json d = search_document(s, {outcome(2, 6, "kept"), outcome(0, 5, "kept"), outcome(1, 4, "kept")});
  BOOST_REQUIRE_EQUAL(d.at("pareto").size(), 2u);
  BOOST_TEST(d.at("pareto")[0].at("index") == 0);
  BOOST_TEST(d.at("pareto")[1].at("index") == 2);
  BOOST_TEST(d.at("chosen").at("index") == 0);
  BOOST_TEST(d.at("chosen").at("cost_per_hour").is_null());
  BOOST_TEST(d.at("cost_axis") == "gpus");
  // With prices: $4.29 per GPU-hour x 3 GPUs for c; a stays the cheapest.
  s.prices = {{"H100-SXM-80GB", 4.29, "https://lambda.ai/instances", "2026-09-20"}};
  s.prices_source = "p.csv";
  d = search_document(s, {outcome(2, 6, "kept"), outcome(0, 5, "slo_missed"), outcome(1, 4, "kept")});
  BOOST_REQUIRE_EQUAL(d.at("pareto").size(), 2u);
  BOOST_TEST(d.at("chosen").at("index") == 1);
  BOOST_TEST(d.at("chosen").at("cost_per_hour").get<double>() == 4.29 * 2);
  BOOST_TEST(d.at("pareto")[1].at("cost_per_hour").get<double>() == 4.29 * 3);
  // cost per million output tokens: $8.58/h over 100 tokens/s x 3600 s, per million.
  BOOST_TEST(std::abs(d.at("chosen").at("cost_per_million_output_tokens").get<double>() - 8.58 / 0.36) < 1e-9);
  // Every candidate once.
  BOOST_CHECK_EXCEPTION(search_document(s, {outcome(0, 5, "kept"), outcome(0, 5, "kept"), outcome(1, 4, "kept")}), InputError,
                        HasMessage({"exactly once"}));
}

// --shard K/N: the shards' documents, written out and read back, merge to the unsharded one, byte
// for byte, in any order.
BOOST_AUTO_TEST_CASE(shards_merge_to_the_unsharded_document) {
  const SearchStudy s = small_study();
  const std::string whole = run_search(s).dump(2);
  std::vector<json> shards;
  for (std::uint64_t k = 3; k >= 1; --k) shards.push_back(json::parse(run_search(s, k, 3).dump(2)));
  BOOST_TEST(shards[0].at("candidates").size() == 5u);  // indices 2, 5, 8, 11, 14 of 16
  BOOST_TEST(merge_search(shards).dump(2) == whole);
  // A shard missing, or one of another study, is an error.
  BOOST_CHECK_EXCEPTION(merge_search({shards[0], shards[1]}), InputError, HasMessage({"exactly once"}));
  SearchStudy other = s;
  other.target_rate = 9;
  BOOST_CHECK_EXCEPTION(merge_search({shards[0], shards[1], run_search(make_search_study(other), 1, 3)}), InputError,
                        HasMessage({"another study"}));
}

namespace {
// One replica of `model` on `gpu` as kvplan search prepares it (check's pool, vLLM's defaults).
SimDeployment replica_of_command(const std::string& model, const std::string& gpu) {
  CheckOptions co;
  co.gpu = gpu;
  return prepare_simulation(parse_launch_command({"vllm", "serve", model, "--max-model-len", "8192"}), co);
}

// 15 chat sessions of 4 turns, 5 s apart, sessions starting 0.3 s apart: turn 1 is a shared
// 1,024-token system prompt (prefix_id 1) and 512 own tokens; each later turn is the previous
// turn's prompt and 64-token answer plus 512 new tokens (1,536, 2,112, 2,688, 3,264 tokens).
std::vector<SimRequest> multi_turn_trace() {
  std::vector<SimRequest> out;
  for (std::uint64_t s = 1; s <= 15; ++s) {
    std::uint64_t prompt = 1536;
    for (std::uint64_t k = 1; k <= 4; ++k) {
      SimRequest r;
      r.arrival_s = 0.3 * static_cast<double>(s - 1) + 5.0 * static_cast<double>(k - 1);
      r.prompt_tokens = prompt;
      r.output_tokens = 64;
      r.session = s;
      if (k == 1) r.prefix_id = 1, r.prefix_tokens = 1024;
      out.push_back(r);
      prompt += 64 + 512;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const SimRequest& a, const SimRequest& b) { return a.arrival_s < b.arrival_s; });
  return out;
}

struct FleetFigures {
  double hit_rate = 0, mean_ttft = 0;
  std::uint64_t finished = 0;
};
FleetFigures figures(const FleetResult& f) {
  FleetFigures x;
  std::uint64_t q = 0, h = 0;
  double ttft_sum = 0;
  for (const auto& r : f.replicas) {
    q += r.prefix_query_tokens;
    h += r.prefix_hit_tokens;
    ttft_sum += r.ttft_s.mean * static_cast<double>(r.ttft_s.count);
    x.finished += r.finished;
  }
  x.hit_rate = q ? static_cast<double>(h) / static_cast<double>(q) : 0;
  x.mean_ttft = x.finished ? ttft_sum / static_cast<double>(x.finished) : 0;
  return x;
}
}  // namespace

BOOST_AUTO_TEST_CASE(router_names_round_trip_and_refuse_others) {
  for (RouterKind k : {RouterKind::round_robin, RouterKind::least_outstanding, RouterKind::prefix_aware})
    BOOST_TEST((parse_router(router_name(k)) == k));
  BOOST_CHECK_EXCEPTION(parse_router("random"), InputError, HasMessage({"--router", "random", "prefix-aware"}));
  SearchStudy s = small_study();
  s.router = RouterKind::prefix_aware;
  s.max_replicas = 513;
  BOOST_CHECK_EXCEPTION(make_search_study(s), InputError, HasMessage({"--max-replicas", "512"}));
  s.max_replicas = 2;
  // The router is part of the study (its JSON, so shards of different routers do not merge).
  BOOST_TEST(to_json(make_search_study(s)).at("router") == "prefix-aware");
  BOOST_TEST((search_study_from_json(to_json(make_search_study(s))).router == RouterKind::prefix_aware));
}

// The fleet co-simulation is exact: with the round-robin router, simulate_fleet's replicas (run in
// threads, fed at each arrival) are exactly simulate() of each replica's share, field for field.
BOOST_AUTO_TEST_CASE(fleet_with_round_robin_router_is_each_share_simulated_alone) {
  const SimDeployment p = replica_of_command("Qwen/Qwen3-0.6B", "L40S");
  const std::vector<SimRequest> reqs = multi_turn_trace();
  const auto router = make_router(RouterKind::round_robin, 3, 16);
  const FleetResult f = simulate_fleet(p.model, find_accelerator("L40S"), p.options, 3, reqs, *router);
  BOOST_REQUIRE_EQUAL(f.replicas.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<SimRequest> part;
    for (std::size_t i = k; i < reqs.size(); i += 3) part.push_back(reqs[i]);
    const SimResult alone = simulate(p.model, find_accelerator("L40S"), p.options, part);
    BOOST_TEST(to_json(f.replicas[k]).dump() == to_json(alone).dump());
    BOOST_TEST(f.replica_of[k] == k);
  }
}

// Least-outstanding sends a request to the replica with the fewest requests in flight: request 0
// (4,000 tokens to generate) holds replica 0; request 1 (one token) goes to replica 1 (0 vs 1 in
// flight) and is done well before 5 s; at 5 s replica 0 still has request 0 and replica 1 none, so
// request 2 goes to replica 1 (round-robin would send it to replica 0).
BOOST_AUTO_TEST_CASE(least_outstanding_routes_to_the_replica_with_fewest_in_flight) {
  const SimDeployment p = replica_of_command("Qwen/Qwen3-0.6B", "L40S");
  std::vector<SimRequest> reqs(3);
  reqs[0] = {0.0, 256, 4000};
  reqs[1] = {0.001, 256, 1};
  reqs[2] = {5.0, 256, 8};
  const auto router = make_router(RouterKind::least_outstanding, 2, 16);
  const FleetResult f = simulate_fleet(p.model, find_accelerator("L40S"), p.options, 2, reqs, *router);
  BOOST_TEST((f.replica_of == std::vector<std::size_t>{0, 1, 1}));
  // Request 0 is still running at 5 s: 4,000 decode steps of a 0.6B model take longer than that here.
  BOOST_TEST(f.replicas[0].makespan_s > 5.0);
  BOOST_TEST(f.replicas[1].finished == 2u);
}

// Prefix-aware routing beats round-robin on a multi-turn trace with shared prefixes. Each later
// turn starts with its whole previous turn (prompt and answer), so a replica that served the turn
// before holds that history in its prefix cache (vLLM keeps freed blocks' hashes until evicted).
// Round-robin over 4 replicas sends turn k+1 of a session elsewhere (15 sessions: the request
// index moves by 15 per turn, 15 mod 4 = 3, so never the same replica as the turn before): a turn
// finds at most the 1,024-token system prompt (64 blocks) on its replica. Dynamo's cost sends it
// where its history is (overlap blocks cut its prefill term) unless that replica is loaded by more
// active blocks than the history saves. Figures from this run (typical step times; hit rate = hit /
// query tokens, as vLLM logs it; TTFT: fleet mean): round-robin hits 7.8 % (the system prompt only),
// mean TTFT 0.218 s; prefix-aware 49.7 %, mean TTFT 0.125 s (a hit skips the history's prefill); one
// replica serving everything is the ceiling (every history on the one cache). Asserted:
// prefix-aware's hit rate above 45 % and at least 5 x round-robin's (under 12 %), below the one
// replica's, and its mean TTFT at most 70 % of round-robin's; every request finished.
BOOST_AUTO_TEST_CASE(prefix_aware_beats_round_robin_on_multi_turn_sessions) {
  const SimDeployment p = replica_of_command("Qwen/Qwen3-8B", "L40S");
  const Accelerator& gpu = find_accelerator("L40S");
  const std::vector<SimRequest> reqs = multi_turn_trace();
  const std::uint64_t block = vllm_profile(p.model, p.options.engine).block_size;
  BOOST_TEST(block == 16u);
  const auto rr = make_router(RouterKind::round_robin, 4, block);
  const auto kv = make_router(RouterKind::prefix_aware, 4, block);
  const FleetFigures a = figures(simulate_fleet(p.model, gpu, p.options, 4, reqs, *rr));
  const FleetResult kf = simulate_fleet(p.model, gpu, p.options, 4, reqs, *kv);
  const FleetFigures b = figures(kf);
  BOOST_TEST_MESSAGE("round-robin hit " << a.hit_rate << " ttft " << a.mean_ttft << "; prefix-aware hit " << b.hit_rate
                                         << " ttft " << b.mean_ttft);
  BOOST_TEST(a.finished == 60u);
  BOOST_TEST(b.finished == 60u);
  BOOST_TEST(a.hit_rate < 0.12);
  BOOST_TEST(b.hit_rate > 0.45);
  BOOST_TEST(b.hit_rate > 5 * a.hit_rate);
  const auto one_router = make_router(RouterKind::round_robin, 1, block);
  const FleetFigures one = figures(simulate_fleet(p.model, gpu, p.options, 1, reqs, *one_router));
  BOOST_TEST_MESSAGE("one replica hit " << one.hit_rate);
  BOOST_TEST(b.hit_rate < one.hit_rate);
  BOOST_TEST(b.mean_ttft < 0.7 * a.mean_ttft, "prefix-aware mean TTFT " << b.mean_ttft << " vs round-robin " << a.mean_ttft);
  // A later turn sent where its previous turn went: most of them.
  std::size_t sticky = 0, later = 0;
  for (std::size_t i = 0; i < reqs.size(); ++i)
    for (std::size_t j = i + 1; j < reqs.size(); ++j)
      if (reqs[j].session == reqs[i].session) {
        ++later;
        sticky += kf.replica_of[j] == kf.replica_of[i];
        break;
      }
  BOOST_TEST(later == 45u);
  BOOST_TEST(sticky * 2 > later, sticky << " of " << later << " later turns on their previous turn's replica");
}

BOOST_AUTO_TEST_SUITE_END()
