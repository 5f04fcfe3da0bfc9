// kvplan.simulate: an engine's scheduler and KV allocator over a workload (kvplan/simulate.h), on
// the launch command the Python package (_simulate.py) gives: prepare_simulation reads it as the
// CLI does (check's budget, the engine's option table, the flags the simulator refuses).
#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/engine_fields.h"
#include "kvplan/check.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/simulate.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace {
using namespace kvplan;
using namespace kvplan::py;

std::vector<SimRequest> requests_arg(pyb::handle reqs) {
  std::vector<SimRequest> out;
  for (auto r : reqs) {
    const nlohmann::json j = from_python(r, "requests");
    out.push_back({});
    // One request is a trace line: reuse the JSONL reader (one place for the field rules).
    const auto parsed = parse_trace(j.dump(), "requests[" + std::to_string(out.size() - 1) + "]", TraceFormat::jsonl);
    out.back() = parsed.front();
  }
  return out;
}
// The run every engine shares: the step-time model, SLOs, the workload (one of three) or the
// capacity search, and the JSON record.
pyb::object run_simulation(const ModelSpec& spec, const Accelerator& acc, SimOptions& o, pyb::handle workload, pyb::handle trace,
                           pyb::handle requests, pyb::handle calibration, double prefill_efficiency, double slo_ttft,
                           double slo_tpot, double slo_e2e, bool steps, pyb::handle find, double slo_percentile, double price,
                           double target_rate) {
  if (!calibration.is_none()) {
    pyb::object p = pyb::reinterpret_borrow<pyb::object>(calibration);
    if (pyb::hasattr(p, "__fspath__")) p = p.attr("__fspath__")();
    o.step_time = load_step_time(str_arg(p, "calibration"));
  }
  o.step_time.prefill_efficiency = prefill_efficiency;
  o.slo = {slo_ttft, slo_tpot, slo_e2e};
  nlohmann::json rows = nlohmann::json::array();
  if (steps)
    o.on_step = [&rows](const SimStep& s) {
      rows.push_back({s.index, s.start_s, s.duration_s, s.running, s.waiting, s.scheduled_requests, s.prefill_tokens,
                      s.decode_tokens, s.kv_tokens_read, s.blocks_used, s.cached_free_blocks, s.preemptions, s.finished});
    };
  const int given = !workload.is_none() + !trace.is_none() + !requests.is_none();
  if (given != 1) throw InputError::value("simulate", std::to_string(given) + " workloads", "exactly one of workload=, trace= or requests=");
  if (!find.is_none()) {
    if (str_arg(find, "find") != "max-rate") throw InputError::value("find", str_arg(find, "find"), "\"max-rate\"");
    if (workload.is_none()) throw InputError::value("find", "trace or requests", "a workload= spec");
    CapacityOptions c;
    c.percentile = slo_percentile;
    c.price_per_gpu_hour = price;
    c.target_rate = target_rate;
    o.on_step = nullptr;
    return to_python(to_json(find_max_rate(spec, acc, o, parse_workload_spec(str_arg(workload, "workload")), c)));
  }
  SimResult r;
  nlohmann::json wl;
  if (!workload.is_none()) {
    const WorkloadSpec w = parse_workload_spec(str_arg(workload, "workload"));
    wl = to_json(w);
    r = simulate(spec, acc, o, w);
  } else if (!trace.is_none()) {
    pyb::object p = pyb::reinterpret_borrow<pyb::object>(trace);
    if (pyb::hasattr(p, "__fspath__")) p = p.attr("__fspath__")();
    r = simulate(spec, acc, o, load_trace(str_arg(p, "trace")));
  } else {
    r = simulate(spec, acc, o, requests_arg(requests));
  }
  nlohmann::json j = to_json(r);
  if (!wl.is_null()) j["workload"] = wl;
  if (steps) j["step_rows"] = rows;
  j["text"] = format_simulate_text(r);
  return to_python(j);
}
}  // namespace

void bind_simulate(pyb::module_& m) {
  // Every engine, vLLM included: a launch command (kvplan.simulate turns vLLM's keywords into the
  // `vllm serve` command they stand for), read by kvplan check (the memory budget) and by the
  // engine's option table (prepare_simulation), as `kvplan simulate ... -- COMMAND` reads it.
  m.def("_simulate_launch", [](const std::vector<std::string>& command, const std::string& gpu, pyb::handle model,
                               pyb::handle workload, pyb::handle trace, pyb::handle requests, pyb::handle calibration,
                               double prefill_efficiency, double slo_ttft, double slo_tpot, double slo_e2e, bool steps,
                               pyb::handle find, double slo_percentile, double price, double target_rate) -> pyb::object {
    const Accelerator& acc = find_accelerator(gpu);
    const Deployment d = parse_launch_command(command);
    CheckOptions co;
    co.gpu = acc.name;
    if (!model.is_none()) co.model = str_arg(model, "model");
    SimDeployment sd = prepare_simulation(d, co);
    pyb::object out = run_simulation(sd.model, acc, sd.options, workload, trace, requests, calibration, prefill_efficiency,
                                     slo_ttft, slo_tpot, slo_e2e, steps, find, slo_percentile, price, target_rate);
    if (pyb::isinstance<pyb::dict>(out)) {
      pyb::list notes = out["notes"];
      for (const auto& n : sd.notes) notes.append(n);
    }
    return out;
  }, "command"_a, "gpu"_a, "model"_a, "workload"_a, "trace"_a, "requests"_a, "calibration"_a, "prefill_efficiency"_a,
     "slo_ttft"_a, "slo_tpot"_a, "slo_e2e"_a, "steps"_a, "find"_a, "slo_percentile"_a, "price"_a, "target_rate"_a);
}
