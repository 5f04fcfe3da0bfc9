// kvplan search: the price file, the document over all candidates' outcomes (the Pareto set and
// the chosen deployment), shards and their merge.
#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "kvplan/error.h"
#include "kvplan/files.h"
#include "kvplan/hardware.h"
#include "kvplan/search.h"
#include "kvplan/text.h"
#include "util/csv.h"

namespace kvplan {

namespace {
using json = nlohmann::json;

constexpr std::uint64_t kMaxPriceFileBytes = 1u << 20;

const GpuPrice* price_of(const SearchStudy& s, const std::string& gpu) {
  for (const auto& p : s.prices)
    if (p.gpu == gpu) return &p;
  return nullptr;
}

// The cost axis: dollars per hour with prices, else the GPU count.
double cost_axis(const json& e) {
  return e.at("cost_per_hour").is_null() ? e.at("gpus").get<double>() : e.at("cost_per_hour").get<double>();
}

// a before b: cheaper, then more goodput, then the lower index (a total order: deterministic).
bool cheaper(const json& a, const json& b) {
  const double ca = cost_axis(a), cb = cost_axis(b);
  if (ca != cb) return ca < cb;
  const double ga = a.at("goodput").get<double>(), gb = b.at("goodput").get<double>();
  if (ga != gb) return ga > gb;
  return a.at("index").get<std::uint64_t>() < b.at("index").get<std::uint64_t>();
}
}  // namespace

std::vector<GpuPrice> parse_prices(std::string_view text, std::string_view source) {
  detail::CsvReader csv(text, source);
  std::vector<std::string> row;
  const std::string src(source);
  if (!csv.next(row)) throw InputError::value(src, "an empty file", "a CSV with the header gpu,usd_per_hour,source,date");
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const std::string name = ascii_lower(trim_space(row[i]));
    if (name != "gpu" && name != "usd_per_hour" && name != "source" && name != "date")
      throw InputError::value(src + ":1 (header)", row[i], "only the columns gpu, usd_per_hour, source, date");
    if (!col.emplace(name, i).second) throw InputError::value(src + ":1 (header)", row[i], "each column once");
  }
  for (const char* need : {"gpu", "usd_per_hour", "source", "date"})
    if (!col.count(need)) throw InputError::value(src + ":1 (header)", "no " + std::string(need) + " column", "gpu,usd_per_hour,source,date");
  std::vector<GpuPrice> out;
  std::map<std::string, std::size_t> line_of;
  while (csv.next(row)) {
    const std::string at = src + ":" + std::to_string(csv.line());
    if (row.size() != col.size()) throw InputError::value(at, std::to_string(row.size()) + " fields", std::to_string(col.size()) + " fields");
    GpuPrice p;
    p.gpu = find_accelerator(trim_space(row[col["gpu"]])).name;
    const std::string price = trim_space(row[col["usd_per_hour"]]);
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(price, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != price.size() || price.empty() || !(v > 0) || !std::isfinite(v))
      throw InputError::value(at + " (usd_per_hour)", price, "a positive price in US dollars per GPU-hour");
    p.usd_per_hour = v;
    p.source = trim_space(row[col["source"]]);
    p.date = trim_space(row[col["date"]]);
    if (p.source.empty()) throw InputError::value(at + " (source)", "", "where the price was read (a URL)");
    if (p.date.empty()) throw InputError::value(at + " (date)", "", "the date the price was read (YYYY-MM-DD)");
    if (line_of.count(p.gpu))
      throw InputError::value(at + " (gpu)", p.gpu, "each GPU once (also on line " + std::to_string(line_of[p.gpu]) + ")");
    line_of[p.gpu] = csv.line();
    out.push_back(std::move(p));
  }
  if (out.empty()) throw InputError::value(src, "no price rows", "one row per GPU: gpu,usd_per_hour,source,date");
  return out;
}

std::vector<GpuPrice> load_prices(const std::string& path) {
  return parse_prices(read_regular_file(path, kMaxPriceFileBytes, "--prices"), path);
}

json search_document(const SearchStudy& s, std::vector<json> outcomes) {
  const std::size_t total = enumerate_search_candidates(s).size();
  std::sort(outcomes.begin(), outcomes.end(),
            [](const json& a, const json& b) { return a.at("index").get<std::uint64_t>() < b.at("index").get<std::uint64_t>(); });
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i].at("index").get<std::uint64_t>() != i || outcomes.size() != total)
      throw InputError::value("search results", "candidates " + std::to_string(outcomes.size()) + " (index " +
                                                    outcomes[i].at("index").dump() + " at " + std::to_string(i) + ")",
                              "every one of the study's " + std::to_string(total) + " candidates exactly once");
  std::vector<json> kept;
  std::uint64_t pruned = 0, missed = 0;
  for (auto& o : outcomes) {
    const GpuPrice* p = price_of(s, o.at("gpu").get<std::string>());
    o["cost_per_hour"] = nullptr;
    o["cost_per_million_output_tokens"] = nullptr;
    if (p) {
      const double per_hour = p->usd_per_hour * o.at("gpus").get<double>();
      o["cost_per_hour"] = per_hour;
      if (o.contains("throughput_output_tokens_per_s") && o["throughput_output_tokens_per_s"].get<double>() > 0)
        o["cost_per_million_output_tokens"] = per_hour / (o["throughput_output_tokens_per_s"].get<double>() * 3600.0) * 1e6;
    }
    const std::string status = o.at("status").get<std::string>();
    if (status == "kept") kept.push_back(o);
    else if (status == "pruned") ++pruned;
    else ++missed;
  }
  // Pareto over (cost, goodput): kept entries no other kept entry is at least as cheap and at least
  // as good as, and better in one.
  std::vector<json> pareto;
  for (const auto& e : kept) {
    const double ce = cost_axis(e), ge = e.at("goodput").get<double>();
    const bool dominated = std::any_of(kept.begin(), kept.end(), [&](const json& f) {
      const double cf = cost_axis(f), gf = f.at("goodput").get<double>();
      return cf <= ce && gf >= ge && (cf < ce || gf > ge);
    });
    if (!dominated) pareto.push_back(e);
  }
  std::sort(pareto.begin(), pareto.end(), cheaper);
  json doc;
  doc["model"] = s.model;
  doc["study"] = to_json(s);
  doc["cost_axis"] = s.prices.empty() ? "gpus" : "usd_per_hour";
  doc["candidates_total"] = total;
  doc["candidates_pruned"] = pruned;
  doc["candidates_slo_missed"] = missed;
  doc["candidates_kept"] = kept.size();
  doc["pareto"] = pareto;
  doc["chosen"] = pareto.empty() ? json(nullptr) : pareto.front();
  doc["candidates"] = outcomes;
  json notes = json::array();
  notes.push_back("memory first: a candidate is simulated only when kvplan check's verdict on its launch command is PASS");
  if (s.router == RouterKind::round_robin)
    notes.push_back("replicas: requests go round-robin (request i to replica i mod replicas), each replica its own simulated "
                    "vLLM engine; the SLOs must hold at the percentile on every replica, and the reported latencies are the "
                    "worst replica's");
  else
    notes.push_back("replicas: requests go through the " + std::string(router_name(s.router)) +
                    " router, decided at each arrival from what the replicas have sent back by then (each replica its own "
                    "simulated vLLM engine); the SLOs must hold at the percentile on every replica that serves requests, and "
                    "the reported latencies are the worst replica's");
  notes.push_back("goodput: requests within every SLO per second, over the fleet's first arrival to last finish");
  if (s.prices.empty()) notes.push_back("no --prices: cost is null; the cost axis and the choice are by GPU count");
  else notes.push_back("prices: " + s.prices_source + " (per GPU-hour, times the fleet's GPUs)");
  if (!s.trace_path.empty() && s.target_rate > 0)
    notes.push_back("the trace's arrivals are scaled so that its mean rate is the target rate");
  doc["notes"] = notes;
  return doc;
}

json run_search(const SearchStudy& s, std::uint64_t shard_index, std::uint64_t shard_count) {
  if (shard_count == 0 || shard_index == 0 || shard_index > shard_count)
    throw InputError::value("--shard", std::to_string(shard_index) + "/" + std::to_string(shard_count), "K/N with 1 <= K <= N");
  const std::size_t total = enumerate_search_candidates(s).size();
  std::vector<json> outcomes;
  for (std::size_t i = 0; i < total; ++i)
    if (i % shard_count == shard_index - 1)
      outcomes.push_back(json::parse(evaluate_search_candidate(s, i).dump()));  // as a shard file reads it back
  if (shard_count == 1) return search_document(s, std::move(outcomes));
  json doc;
  doc["model"] = s.model;
  doc["study"] = to_json(s);
  doc["shard"] = {{"index", shard_index}, {"count", shard_count}, {"candidates_total", total}};
  doc["candidates"] = outcomes;
  return doc;
}

json merge_search(const std::vector<json>& shards) {
  if (shards.empty()) throw InputError::value("--merge", "no files", "the shard documents of one study");
  std::vector<json> outcomes;
  std::string study;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const json& d = shards[i];
    const std::string what = "--merge file " + std::to_string(i + 1);
    if (!d.is_object() || !d.contains("study") || !d.contains("candidates") || !d.at("candidates").is_array())
      throw InputError::value(what, "not a kvplan search document", "the --json output of kvplan search --shard K/N");
    const std::string this_study = d.at("study").dump();
    if (i == 0) study = this_study;
    else if (this_study != study) throw InputError::value(what, "another study", "shards of one study (the same \"study\" object)");
    for (const auto& o : d.at("candidates")) {
      // A candidate read back carries only what evaluate_search_candidate wrote.
      json x = o;
      x.erase("cost_per_hour");
      x.erase("cost_per_million_output_tokens");
      outcomes.push_back(std::move(x));
    }
  }
  return search_document(search_study_from_json(json::parse(study)), std::move(outcomes));
}

}  // namespace kvplan
