// kvplan search: the study (its validation and JSON form), the candidates it enumerates, and one
// candidate's evaluation: kvplan check's verdict on its launch command, then the fleet simulated
// as one engine per replica behind the study's router (router.cpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kvplan/check.h"
#include "kvplan/deploy.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/model.h"
#include "kvplan/search.h"
#include "kvplan/simulate.h"

namespace kvplan {

namespace {

using json = nlohmann::json;

// A word as a POSIX shell reads it back (split_command_line): plain when it holds only
// characters the shell leaves alone, else in single quotes.
std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char ch) {
    const unsigned char c = static_cast<unsigned char>(ch);
    return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '@' || c == '%' ||
           c == '+' || c == '=' || c == ',';
  });
  if (plain) return w;
  std::string out = "'";
  for (char ch : w) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Tensor-parallel sizes to try: the divisors of the attention heads up to max_tp (vLLM refuses a
// size that does not divide them; check refuses the rest, such as KV heads that do not divide).
std::vector<std::uint64_t> tp_sizes(const ModelSpec& m, std::uint64_t max_tp) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t tp = 1; tp <= max_tp; ++tp)
    if (m.dims.num_attention_heads == 0 || m.dims.num_attention_heads % tp == 0) out.push_back(tp);
  return out;
}

// check's memory figures, under the keys of `kvplan check --format json`.
json memory_json(const CheckResult& r) {
  return {{"verdict", verdict_name(r.verdict)},
          {"starts", r.starts},
          {"gpus", r.gpus},
          {"context", r.context},
          {"kv_cache_tokens", r.kv_cache_tokens},
          {"max_concurrency_ratio", r.max_concurrency},
          {"per_gpu",
           {{"memory_bytes", r.gpu_memory_bytes},
            {"weights_bytes", r.weights_bytes_per_gpu},
            {"kv_budget_bytes", r.kv_budget_bytes},
            {"kv_memory_bytes", r.kv_memory_bytes}}}};
}

// The fleet's requests, in arrival order: the trace (arrivals scaled to the target rate when one
// is given) or the spec at the target rate.
std::vector<SimRequest> fleet_requests(const SearchStudy& s) {
  std::vector<SimRequest> reqs;
  if (!s.trace_path.empty()) {
    reqs = load_trace(s.trace_path);
    std::stable_sort(reqs.begin(), reqs.end(), [](const SimRequest& a, const SimRequest& b) { return a.arrival_s < b.arrival_s; });
    if (s.target_rate > 0) {
      const double span = reqs.size() < 2 ? 0.0 : reqs.back().arrival_s - reqs.front().arrival_s;
      if (!(span > 0))
        throw InputError::value("--target-rate", "with a trace whose arrivals span no time",
                                "a trace with at least two distinct arrival times, or no --target-rate");
      const double t0 = reqs.front().arrival_s;
      const double scale = static_cast<double>(reqs.size() - 1) / (s.target_rate * span);
      for (auto& r : reqs) r.arrival_s = (r.arrival_s - t0) * scale;
    }
  } else {
    WorkloadSpec w = parse_workload_spec(s.workload_spec);
    w.rate = s.target_rate;
    reqs = generate_requests(w);
  }
  return reqs;
}

}  // namespace

SearchStudy make_search_study(SearchStudy s) {
  if (s.model.empty()) throw InputError::value("MODEL", "", "a model (a bundled id or a config path)");
  if (s.gpus.empty()) throw InputError::value("--gpu", "", "one or more GPU models, e.g. H100,L40S");
  std::vector<std::string> names;
  for (const auto& g : s.gpus) {
    const std::string name = find_accelerator(g).name;
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw InputError::value("--gpu", g, "each GPU once (" + name + " is listed twice)");
    names.push_back(name);
  }
  s.gpus = names;
  if (s.workload_spec.empty() == s.trace_path.empty())
    throw InputError::value("workload", "", "exactly one of --trace FILE or --workload SPEC");
  if (!s.workload_spec.empty()) {
    if (!(s.target_rate > 0)) throw InputError::value("--target-rate", std::to_string(s.target_rate), "a positive rate in requests/s");
    const WorkloadSpec w = parse_workload_spec(s.workload_spec);
    if (w.arrivals == WorkloadSpec::Arrivals::closed || w.turns > 1)
      throw InputError::value("--workload", s.workload_spec, "an open-loop, single-turn spec (the router splits its requests)");
  }
  if (s.target_rate < 0 || !std::isfinite(s.target_rate))
    throw InputError::value("--target-rate", std::to_string(s.target_rate), "a positive rate in requests/s");
  if (s.slo.ttft_s <= 0 && s.slo.tpot_s <= 0 && s.slo.e2e_s <= 0)
    throw InputError::value("SLO (--slo-ttft, --slo-tpot, --slo-e2e)", "none", "at least one latency target");
  if (s.percentile != 0.5 && s.percentile != 0.9 && s.percentile != 0.99)
    throw InputError::value("--slo-percentile", std::to_string(s.percentile), "0.5, 0.9 or 0.99");
  if (s.kv_cache_dtypes.empty()) throw InputError::value("--kv-cache-dtype", "", "one or more of auto, fp8, ...");
  for (std::size_t i = 0; i < s.kv_cache_dtypes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (s.kv_cache_dtypes[i] == s.kv_cache_dtypes[j])
        throw InputError::value("--kv-cache-dtype", s.kv_cache_dtypes[i], "each KV dtype once");
  if (s.max_tp == 0 || s.max_tp > 64) throw InputError::value("--max-tp", std::to_string(s.max_tp), "1 to 64");
  if (s.max_replicas == 0 || s.max_replicas > 4096)
    throw InputError::value("--max-replicas", std::to_string(s.max_replicas), "1 to 4096");
  if (s.router != RouterKind::round_robin && s.max_replicas > 512)
    throw InputError::value("--max-replicas", std::to_string(s.max_replicas),
                            "at most 512 with --router " + std::string(router_name(s.router)) + " (one thread per replica)");
  if (!s.prices.empty()) {
    for (const auto& g : s.gpus) {
      if (std::none_of(s.prices.begin(), s.prices.end(), [&](const GpuPrice& p) { return p.gpu == g; }))
        throw InputError::value("--prices " + s.prices_source, "no row for " + g, "a price for every GPU searched (or no --prices)");
    }
  }
  return s;
}

json to_json(const SearchStudy& s) {
  json prices = json::array();
  for (const auto& p : s.prices)
    prices.push_back({{"gpu", p.gpu}, {"usd_per_hour", p.usd_per_hour}, {"source", p.source}, {"date", p.date}});
  return {{"model", s.model},
          {"gpus", s.gpus},
          {"workload", s.workload_spec.empty() ? json(nullptr) : json(s.workload_spec)},
          {"trace", s.trace_path.empty() ? json(nullptr) : json(s.trace_path)},
          {"slo", {{"ttft_s", s.slo.ttft_s}, {"tpot_s", s.slo.tpot_s}, {"e2e_s", s.slo.e2e_s}, {"percentile", s.percentile}}},
          {"target_rate", s.target_rate},
          {"kv_cache_dtypes", s.kv_cache_dtypes},
          {"max_tp", s.max_tp},
          {"max_replicas", s.max_replicas},
          {"max_model_len", s.max_model_len},
          {"router", router_name(s.router)},
          {"prices", prices},
          {"prices_source", s.prices_source.empty() ? json(nullptr) : json(s.prices_source)}};
}

SearchStudy search_study_from_json(const json& j) {
  try {
    SearchStudy s;
    s.model = j.at("model").get<std::string>();
    s.gpus = j.at("gpus").get<std::vector<std::string>>();
    if (!j.at("workload").is_null()) s.workload_spec = j.at("workload").get<std::string>();
    if (!j.at("trace").is_null()) s.trace_path = j.at("trace").get<std::string>();
    const json& slo = j.at("slo");
    s.slo = {slo.at("ttft_s").get<double>(), slo.at("tpot_s").get<double>(), slo.at("e2e_s").get<double>()};
    s.percentile = slo.at("percentile").get<double>();
    s.target_rate = j.at("target_rate").get<double>();
    s.kv_cache_dtypes = j.at("kv_cache_dtypes").get<std::vector<std::string>>();
    s.max_tp = j.at("max_tp").get<std::uint64_t>();
    s.max_replicas = j.at("max_replicas").get<std::uint64_t>();
    s.max_model_len = j.at("max_model_len").get<std::uint64_t>();
    s.router = parse_router(j.at("router").get<std::string>());
    for (const auto& p : j.at("prices"))
      s.prices.push_back({p.at("gpu").get<std::string>(), p.at("usd_per_hour").get<double>(), p.at("source").get<std::string>(),
                          p.at("date").get<std::string>()});
    if (!j.at("prices_source").is_null()) s.prices_source = j.at("prices_source").get<std::string>();
    return make_search_study(std::move(s));
  } catch (const json::exception& e) {
    throw InputError::value("search study (\"study\")", e.what(), "the \"study\" object kvplan search writes");
  }
}

std::vector<SearchCandidate> enumerate_search_candidates(const SearchStudy& s) {
  const ModelSpec m = load_model(s.model);
  const std::vector<std::uint64_t> tps = tp_sizes(m, s.max_tp);
  std::vector<SearchCandidate> out;
  for (const auto& gpu_name : s.gpus) {
    const Accelerator& gpu = find_accelerator(gpu_name);
    const VllmBatchDefaults def = vllm_serve_batch_defaults(gpu);
    for (std::uint64_t tp : tps) {
      for (const auto& dtype : s.kv_cache_dtypes) {
        // vllm serve's batch defaults for the GPU written out, so the command is exactly what
        // check judges and the simulator runs.
        std::vector<std::string> argv{"vllm", "serve", s.model, "--tensor-parallel-size", std::to_string(tp),
                                      "--kv-cache-dtype", dtype, "--max-num-batched-tokens",
                                      std::to_string(def.max_num_batched_tokens), "--max-num-seqs", std::to_string(def.max_num_seqs)};
        if (s.max_model_len) argv.insert(argv.end(), {"--max-model-len", std::to_string(s.max_model_len)});
        std::string cmd;
        for (const auto& w : argv) cmd += (cmd.empty() ? "" : " ") + shell_word(w);
        for (std::uint64_t r = 1; r <= s.max_replicas; ++r) {
          SearchCandidate c;
          c.index = out.size();
          c.gpu = gpu.name;
          c.tp = tp;
          c.replicas = r;
          c.kv_cache_dtype = dtype;
          c.launch_argv = argv;
          c.launch_command = cmd;
          out.push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

json evaluate_search_candidate(const SearchStudy& s, std::size_t index) {
  const std::vector<SearchCandidate> all = enumerate_search_candidates(s);
  if (index >= all.size())
    throw InputError::value("candidate index", std::to_string(index), "below " + std::to_string(all.size()));
  const SearchCandidate& c = all[index];
  json out = {{"index", c.index},
              {"gpu", c.gpu},
              {"gpus_per_replica", c.tp * c.pp},
              {"gpus", c.tp * c.pp * c.dp * c.replicas},
              {"tp", c.tp},
              {"pp", c.pp},
              {"dp", c.dp},
              {"replicas", c.replicas},
              {"kv_cache_dtype", c.kv_cache_dtype},
              {"launch_command", c.launch_command}};
  const Deployment d = parse_launch_command(c.launch_argv);
  CheckOptions co;
  co.gpu = c.gpu;
  // An engine that refuses to start (a tp its KV heads reject, too little memory) is check's
  // verdict, an outcome; an error (a KV dtype vLLM does not take) is the study's bad input.
  const CheckResult cr = check_deployment(d, co);
  out["memory"] = memory_json(cr);
  if (cr.verdict != Verdict::pass) {
    out["status"] = "pruned";
    std::string why = "kvplan check: " + std::string(verdict_name(cr.verdict));
    if (!cr.reasons.empty()) why += ": " + cr.reasons.front();
    else if (!cr.margin.empty()) why += ": " + cr.margin;
    out["reason"] = why;
    return out;
  }
  SimDeployment p = prepare_simulation(d, co);
  p.options.slo = s.slo;
  // Kept only if the SLOs hold with every step at the band's slow end (simulate --find's rule).
  p.options = at_slow_end(p.options);
  const Accelerator& gpu = find_accelerator(c.gpu);
  const std::vector<SimRequest> fleet = fleet_requests(s);
  // Each replica's run and the first arrival it served (NaN: none).
  std::vector<SimResult> runs(c.replicas);
  std::vector<double> first_arrival(c.replicas, NAN);
  if (s.router == RouterKind::round_robin) {
    // Round-robin needs nothing back from the replicas: request i (in arrival order) to replica
    // i mod replicas, each share simulated on its own (simulate_fleet with make_router's
    // round-robin gives the same runs; a test).
    std::vector<std::vector<SimRequest>> parts(c.replicas);
    for (std::size_t i = 0; i < fleet.size(); ++i) parts[i % c.replicas].push_back(fleet[i]);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (parts[k].empty()) continue;
      runs[k] = simulate(p.model, gpu, p.options, parts[k]);
      first_arrival[k] = parts[k].front().arrival_s;
    }
  } else {
    const std::unique_ptr<FleetRouter> router = make_router(s.router, c.replicas, vllm_profile(p.model, p.options.engine).block_size);
    FleetResult fr = simulate_fleet(p.model, gpu, p.options, c.replicas, fleet, *router);
    runs = std::move(fr.replicas);
    for (std::size_t i = 0; i < fleet.size(); ++i)
      if (std::isnan(first_arrival[fr.replica_of[i]])) first_arrival[fr.replica_of[i]] = fleet[i].arrival_s;
  }
  std::uint64_t slo_met = 0, rejected = 0, finished = 0, query_tokens = 0, hit_tokens = 0;
  double first = INFINITY, last = -INFINITY, output_tokens = 0;
  double ttft = 0, tpot = 0, e2e = 0;
  bool met = true;
  json per_replica = json::array();
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const SimResult& r = runs[k];
    per_replica.push_back(r.requests);
    if (std::isnan(first_arrival[k])) {
      // Round-robin: a replica with no request says nothing about its latency (fewer requests
      // than replicas). A router that leaves one idle has simply not needed it.
      if (s.router == RouterKind::round_robin) met = false;
      continue;
    }
    slo_met += r.slo_met;
    rejected += r.rejected;
    finished += r.finished;
    query_tokens += r.prefix_query_tokens;
    hit_tokens += r.prefix_hit_tokens;
    output_tokens += static_cast<double>(r.output_tokens);
    first = std::min(first, first_arrival[k]);
    last = std::max(last, first_arrival[k] + r.makespan_s);
    ttft = std::max(ttft, percentile_of(r.ttft_s, s.percentile));
    tpot = std::max(tpot, percentile_of(r.tpot_s, s.percentile));
    e2e = std::max(e2e, percentile_of(r.e2e_s, s.percentile));
    if (!meets_slo(r, s.slo, s.percentile)) met = false;
  }
  const double span = last > first ? last - first : 0;
  out["requests"] = fleet.size();
  out["finished"] = finished;
  out["rejected"] = rejected;
  out["slo_met"] = slo_met;
  out["goodput"] = span > 0 ? static_cast<double>(slo_met) / span : 0.0;
  out["throughput_output_tokens_per_s"] = span > 0 ? output_tokens / span : 0.0;
  out["ttft_s"] = ttft;
  out["tpot_s"] = tpot;
  out["e2e_s"] = e2e;
  out["router"] = router_name(s.router);
  out["requests_per_replica"] = per_replica;
  out["prefix_hit_rate"] = query_tokens ? static_cast<double>(hit_tokens) / static_cast<double>(query_tokens) : 0.0;
  if (rejected > 0) {
    out["status"] = "slo_missed";
    out["reason"] = std::to_string(rejected) + " requests are longer than max_model_len " + std::to_string(cr.context);
  } else if (!met) {
    out["status"] = "slo_missed";
    out["reason"] = "an SLO is missed at the percentile on at least one replica";
  } else {
    out["status"] = "kept";
    out["reason"] = nullptr;
  }
  return out;
}

std::pair<std::uint64_t, std::uint64_t> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  auto num = [&](std::string_view x) -> std::uint64_t {
    if (x.empty() || x.size() > 9 || !std::all_of(x.begin(), x.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      throw InputError::value("--shard", text, "K/N with 1 <= K <= N, e.g. 2/4");
    return std::stoull(std::string(x));
  };
  if (slash == std::string_view::npos) throw InputError::value("--shard", text, "K/N with 1 <= K <= N, e.g. 2/4");
  const std::uint64_t k = num(text.substr(0, slash)), n = num(text.substr(slash + 1));
  if (k == 0 || n == 0 || k > n) throw InputError::value("--shard", text, "K/N with 1 <= K <= N, e.g. 2/4");
  return {k, n};
}

}  // namespace kvplan
