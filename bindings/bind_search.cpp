// kvplan.search (kvplan/search.h): the study as JSON text, so a candidate's evaluation is a pure
// function of (study, index) that pickles as two plain values for a Dask worker.
#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/error.h"
#include "kvplan/report.h"
#include "kvplan/search.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace {
using namespace kvplan;

SearchStudy study_arg(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw InputError::value("search study", "not JSON", "the text kvplan._core.search_study returns");
  }
  return search_study_from_json(j);
}
}  // namespace

void bind_search(pyb::module_& m) {
  m.def(
      "search_study",
      [](const std::string& model, const std::vector<std::string>& gpus, const std::string& workload, const std::string& trace,
         double slo_ttft, double slo_tpot, double slo_e2e, double slo_percentile, double target_rate,
         const std::string& prices, const std::vector<std::string>& kv_cache_dtypes, std::uint64_t max_tp,
         std::uint64_t max_replicas, std::uint64_t max_model_len, const std::string& router) {
        SearchStudy s;
        s.model = model;
        s.gpus = gpus;
        s.workload_spec = workload;
        s.trace_path = trace;
        s.slo = {slo_ttft, slo_tpot, slo_e2e};
        s.percentile = slo_percentile;
        s.target_rate = target_rate;
        if (!kv_cache_dtypes.empty()) s.kv_cache_dtypes = kv_cache_dtypes;
        s.max_tp = max_tp;
        s.max_replicas = max_replicas;
        s.max_model_len = max_model_len;
        s.router = parse_router(router);
        if (!prices.empty()) {
          s.prices = load_prices(prices);
          s.prices_source = prices;
        }
        return to_json(make_search_study(std::move(s))).dump();
      },
      "model"_a, "gpus"_a, "workload"_a, "trace"_a, "slo_ttft"_a, "slo_tpot"_a, "slo_e2e"_a, "slo_percentile"_a,
      "target_rate"_a, "prices"_a, "kv_cache_dtypes"_a, "max_tp"_a, "max_replicas"_a, "max_model_len"_a,
      "router"_a = "round-robin", "The validated study (kvplan/search.h SearchStudy) as JSON text.");
  m.def(
      "search_candidate_count", [](const std::string& study) { return enumerate_search_candidates(study_arg(study)).size(); },
      "study"_a, "How many candidates the study enumerates.");
  m.def(
      "search_evaluate",
      [](const std::string& study, std::size_t index) {
        pyb::gil_scoped_release release;
        return evaluate_search_candidate(study_arg(study), index).dump();
      },
      "study"_a, "index"_a, "One candidate's outcome (JSON text): check's verdict, then the simulated fleet.");
  m.def(
      "search_document",
      [](const std::string& study, const std::vector<std::string>& outcomes) {
        std::vector<nlohmann::json> parsed;
        for (const auto& o : outcomes) parsed.push_back(nlohmann::json::parse(o));
        return kvplan::py::to_python(with_schema("search", search_document(study_arg(study), std::move(parsed))));
      },
      "study"_a, "outcomes"_a, "The kvplan search document from every candidate's outcome (as kvplan search --json prints it).");
}
