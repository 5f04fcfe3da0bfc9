// kvplan search as text: the Pareto set as a table and the chosen deployment's launch command.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/report.h"
#include "kvplan/search.h"
#include "kvplan/text.h"
#include "kvplan/units.h"

namespace kvplan {

std::string format_search_text(const nlohmann::json& d) {
  std::ostringstream os;
  if (d.contains("shard")) {
    const auto& sh = d.at("shard");
    os << "shard " << sh.at("index").get<std::uint64_t>() << "/" << sh.at("count").get<std::uint64_t>() << ": "
       << d.at("candidates").size() << " of " << sh.at("candidates_total").get<std::uint64_t>()
       << " candidates evaluated (merge the shards' --json output with kvplan search --merge)\n";
    return os.str();
  }
  os << d.at("model").get<std::string>() << ": " << d.at("candidates_total").get<std::uint64_t>() << " candidates, "
     << d.at("candidates_pruned").get<std::uint64_t>() << " pruned by kvplan check, "
     << d.at("candidates_slo_missed").get<std::uint64_t>() << " missing the SLOs, "
     << d.at("candidates_kept").get<std::uint64_t>() << " kept\n";
  const auto& pareto = d.at("pareto");
  if (pareto.empty()) {
    os << "no candidate meets the SLOs (raise --max-replicas or --max-tp, or add GPUs)\n";
    return os.str();
  }
  const double q = d.at("study").at("slo").at("percentile").get<double>();
  const std::string pq = q <= 0.5 ? "p50" : q <= 0.9 ? "p90" : "p99";
  const std::vector<std::string> head{"gpu", "tp", "kv", "replicas", "gpus", "$/hour", "goodput req/s", "ttft " + pq + " s",
                                      "tpot " + pq + " s"};
  std::vector<std::vector<std::string>> rows{head};
  for (const auto& e : pareto) {
    rows.push_back({e.at("gpu").get<std::string>(), std::to_string(e.at("tp").get<std::uint64_t>()),
                    e.at("kv_cache_dtype").get<std::string>(), std::to_string(e.at("replicas").get<std::uint64_t>()),
                    std::to_string(e.at("gpus").get<std::uint64_t>()),
                    e.at("cost_per_hour").is_null() ? "-" : format_fixed(e.at("cost_per_hour").get<double>(), 2),
                    format_fixed(e.at("goodput").get<double>(), 3), format_fixed(e.at("ttft_s").get<double>(), 3),
                    format_fixed(e.at("tpot_s").get<double>(), 4)});
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  os << "Pareto set (cost " << d.at("cost_axis").get<std::string>() << ", goodput):\n";
  for (const auto& r : rows) {
    os << " ";
    for (std::size_t i = 0; i < r.size(); ++i) os << " " << pad_to(r[i], width[i], i > 0);
    os << "\n";
  }
  const auto& c = d.at("chosen");
  os << "chosen: " << c.at("replicas").get<std::uint64_t>() << " x " << c.at("gpu").get<std::string>() << " (tp "
     << c.at("tp").get<std::uint64_t>() << "), each replica:\n  " << c.at("launch_command").get<std::string>() << "\n";
  return os.str();
}

}  // namespace kvplan

namespace kvplan {

std::string format_search_csv(const nlohmann::json& d) {
  std::ostringstream os;
  os << "index,gpu,tp,pp,dp,replicas,gpus,kv_cache_dtype,status,pareto,chosen,cost_per_hour,cost_per_million_output_tokens,"
        "goodput,ttft_s,tpot_s,e2e_s,verdict,kv_cache_tokens,kv_budget_bytes_per_gpu,launch_command,reason\n";
  std::vector<std::uint64_t> pareto;
  if (d.contains("pareto"))
    for (const auto& e : d.at("pareto")) pareto.push_back(e.at("index").get<std::uint64_t>());
  const bool has_chosen = d.contains("chosen") && !d.at("chosen").is_null();
  const std::uint64_t chosen = has_chosen ? d.at("chosen").at("index").get<std::uint64_t>() : 0;
  // Numbers as JSON writes them (shortest round trip); absent or null: an empty field.
  auto num = [](const nlohmann::json& e, const char* key) -> std::string {
    return e.contains(key) && !e.at(key).is_null() ? e.at(key).dump() : "";
  };
  for (const auto& e : d.at("candidates")) {
    const std::uint64_t i = e.at("index").get<std::uint64_t>();
    const nlohmann::json& m = e.at("memory");
    os << i << "," << csv_field(e.at("gpu").get<std::string>()) << "," << num(e, "tp") << "," << num(e, "pp") << ","
       << num(e, "dp") << "," << num(e, "replicas") << "," << num(e, "gpus") << ","
       << csv_field(e.at("kv_cache_dtype").get<std::string>()) << "," << e.at("status").get<std::string>() << ","
       << (std::find(pareto.begin(), pareto.end(), i) != pareto.end() ? "true" : "false") << ","
       << (has_chosen && chosen == i ? "true" : "false") << "," << num(e, "cost_per_hour") << ","
       << num(e, "cost_per_million_output_tokens") << "," << num(e, "goodput") << "," << num(e, "ttft_s") << ","
       << num(e, "tpot_s") << "," << num(e, "e2e_s") << "," << m.at("verdict").get<std::string>() << ","
       << num(m, "kv_cache_tokens") << "," << num(m.at("per_gpu"), "kv_budget_bytes") << ","
       << csv_field(e.at("launch_command").get<std::string>()) << ","
       << (e.contains("reason") && e.at("reason").is_string() ? csv_field(e.at("reason").get<std::string>()) : "") << "\n";
  }
  return os.str();
}

}  // namespace kvplan
