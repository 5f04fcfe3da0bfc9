// kvplan search MODEL --gpu H100,L40S (--trace FILE | --workload SPEC) --slo-ttft S --slo-tpot S
// --target-rate R [--prices CSV] [--shard K/N] [--json]: the cheapest vLLM deployment that meets
// the SLOs (kvplan/search.h), and kvplan search --merge A.json B.json for sharded runs.
#include <fstream>
#include <iostream>
#include <sstream>

#include "common.h"
#include "kvplan/search.h"

namespace kvplan::cli {

namespace {
struct SearchCliOptions {
  std::string model, gpus, trace, workload, prices, shard = "1/1", max_model_len, router = "round-robin";
  std::vector<std::string> kv_dtypes, merge;
  double slo_ttft = 0, slo_tpot = 0, slo_e2e = 0, slo_percentile = 0.9, target_rate = 0;
  std::uint64_t max_tp = 8, max_replicas = 8;
  bool json = false, csv = false;
  std::string study_option;  // a study option given (with --merge: an error, the study is in the files)
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!trim_space(item).empty()) out.push_back(trim_space(item));
  return out;
}

int run_search_cli(const SearchCliOptions& o) {
  nlohmann::json doc;
  if (!o.merge.empty()) {
    if (!o.study_option.empty())
      throw InputError::value("--merge", "with " + o.study_option, "--merge FILE... [--json] alone (the study is in the files)");
    std::vector<nlohmann::json> shards;
    for (const auto& f : o.merge) {
      std::ifstream in(f);
      if (!in) throw InputError::value("--merge", f, "a readable kvplan search --json file");
      try {
        shards.push_back(nlohmann::json::parse(in));
      } catch (const nlohmann::json::exception&) {
        throw InputError::value("--merge " + f, "not JSON", "the --json output of kvplan search --shard K/N");
      }
    }
    doc = merge_search(shards);
  } else {
    SearchStudy s;
    s.model = o.model;
    s.gpus = split_list(o.gpus);
    s.trace_path = o.trace;
    s.workload_spec = o.workload;
    s.slo = {o.slo_ttft, o.slo_tpot, o.slo_e2e};
    s.percentile = o.slo_percentile;
    s.target_rate = o.target_rate;
    if (!o.kv_dtypes.empty()) {
      s.kv_cache_dtypes.clear();
      for (const auto& x : o.kv_dtypes)
        for (auto& y : split_list(x)) s.kv_cache_dtypes.push_back(y);
    }
    s.max_tp = o.max_tp;
    s.max_replicas = o.max_replicas;
    s.router = parse_router(o.router);
    if (!o.max_model_len.empty()) s.max_model_len = parse_tokens(o.max_model_len, "--max-model-len");
    if (!o.prices.empty()) {
      s.prices = load_prices(o.prices);
      s.prices_source = o.prices;
    }
    s = make_search_study(std::move(s));
    const auto [k, n] = parse_shard(o.shard);
    doc = run_search(s, k, n);
  }
  if (o.json) print_json(doc);
  else if (o.csv) std::cout << format_search_csv(doc);
  else std::cout << format_search_text(doc);
  return 0;
}
}  // namespace

static void register_search(CLI::App& app, Runner& run) {
  auto o = std::make_shared<SearchCliOptions>();
  auto* cmd = app.add_subcommand("search", "the cheapest vLLM deployment (GPU, tp, KV dtype, replicas) that meets latency SLOs "
                                           "at a target rate: pruned by kvplan check, then simulated");
  cmd->add_option("MODEL", o->model, "a model (as for kvplan simulate)");
  cmd->add_option("--gpu", o->gpus, "GPU models to consider, comma-separated (kvplan gpus), e.g. H100,L40S");
  cmd->add_option("--trace", o->trace, "the fleet's requests (a trace, as for kvplan simulate); arrivals scaled to --target-rate");
  cmd->add_option("--workload", o->workload, "a synthetic open-loop workload (as for kvplan simulate); its rate is --target-rate");
  cmd->add_option("--slo-ttft", o->slo_ttft, "time-to-first-token target, seconds");
  cmd->add_option("--slo-tpot", o->slo_tpot, "time-per-output-token target, seconds");
  cmd->add_option("--slo-e2e", o->slo_e2e, "end-to-end latency target, seconds");
  cmd->add_option("--slo-percentile", o->slo_percentile, "the percentile the SLOs apply to (0.5, 0.9, 0.99)")->capture_default_str();
  cmd->add_option("--target-rate", o->target_rate, "the fleet's requests/s");
  cmd->add_option("--prices", o->prices, "CSV gpu,usd_per_hour,source,date (examples/prices/); without it cost is null");
  cmd->add_option("--kv-cache-dtype", o->kv_dtypes, "vLLM KV cache dtypes to try (default: auto,fp8)");
  cmd->add_option("--max-tp", o->max_tp, "largest tensor-parallel size (sizes tried: divisors of the heads)")->capture_default_str();
  cmd->add_option("--max-replicas", o->max_replicas, "largest replica count tried")->capture_default_str();
  cmd->add_option("--max-model-len", o->max_model_len, "vLLM --max-model-len of every candidate (default: the model's)");
  cmd->add_option("--router", o->router,
                  "how requests reach the replicas: round-robin, least-outstanding (fewest in flight, as llm-d's "
                  "active-request scorer) or prefix-aware (NVIDIA Dynamo's KV router cost)")
      ->capture_default_str();
  cmd->add_option("--shard", o->shard, "evaluate only candidates i with i % N == K - 1 (K/N)")->capture_default_str();
  cmd->add_option("--merge", o->merge, "merge the --json output of --shard runs into the unsharded document");
  auto* json = cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->add_flag("--csv", o->csv, "print every candidate as a CSV row (in the Pareto set, chosen, cost, goodput, memory)")
      ->excludes(json);
  cmd->callback([&run, o, cmd] {
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0 && opt->get_name() != "--merge" && opt->get_name() != "--json" && opt->get_name() != "--csv" && opt->get_name() != "--help") {
        o->study_option = opt->get_name();
        break;
      }
    run = [o] { return run_search_cli(*o); };
  });
}

KVPLAN_VERB(48, register_search);

}  // namespace kvplan::cli
