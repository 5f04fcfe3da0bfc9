// kvplan.simulate: vLLM's scheduler and KV allocator over a workload (kvplan/simulate.h). The
// Python package (_simulate.py) resolves the memory budget with kvplan.check first, as the CLI
// does, and passes it here as available_kv_bytes.
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

// The vLLM options kvplan.simulate resolved (_simulate.py), read by vLLM's option table
// (kvplan/engine_fields.h) as kvplan.engine() reads them.
VllmOptions engine_options(const pyb::dict& kw) {
  nlohmann::json req = nlohmann::json::object();
  for (auto item : kw) {
    const std::string k = pyb::str(item.first);
    req[k] = request_value(item.second, k);
  }
  return vllm_options_from_request(req);
}

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
  m.def("_vllm_serve_batch_defaults", [](const std::string& gpu) {
    const VllmBatchDefaults d = vllm_serve_batch_defaults(find_accelerator(gpu));
    return to_python({{"max_num_batched_tokens", d.max_num_batched_tokens}, {"max_num_seqs", d.max_num_seqs},
                      {"blackwell", d.blackwell}});
  }, "gpu"_a);
  m.def("_simulate", [](pyb::handle model, const std::string& gpu, const pyb::dict& engine, pyb::handle max_num_seqs,
                        pyb::handle long_prefill_token_threshold, bool chunked_prefill, bool reserve_full_isl,
                        const std::string& scheduling_policy,
                        pyb::handle workload, pyb::handle trace, pyb::handle requests, pyb::handle calibration, double prefill_efficiency,
                        double slo_ttft, double slo_tpot, double slo_e2e, bool steps, pyb::handle find,
                        double slo_percentile, double price, double target_rate) -> pyb::object {
    const ModelSpec& spec = model_arg(model).get();
    const Accelerator& acc = find_accelerator(gpu);
    SimOptions o;
    o.engine = engine_options(engine);
    o.scheduler.max_num_seqs = count_arg(max_num_seqs, "max_num_seqs", 1);
    if (!long_prefill_token_threshold.is_none())
      o.scheduler.long_prefill_token_threshold = tokens_arg(long_prefill_token_threshold, "long_prefill_token_threshold");
    o.scheduler.chunked_prefill = chunked_prefill;
    o.scheduler.reserve_full_isl = reserve_full_isl;
    // SchedulerConfig.policy (vllm/config/scheduler.py): fcfs or priority.
    if (scheduling_policy != "fcfs" && scheduling_policy != "priority")
      throw InputError::value("scheduling_policy", scheduling_policy, "fcfs or priority");
    o.scheduler.policy = scheduling_policy == "priority" ? SimSchedulerOptions::Policy::priority : SimSchedulerOptions::Policy::fcfs;
    return run_simulation(spec, acc, o, workload, trace, requests, calibration, prefill_efficiency, slo_ttft, slo_tpot, slo_e2e,
                          steps, find, slo_percentile, price, target_rate);
  }, "model"_a, "gpu"_a, "engine"_a, "max_num_seqs"_a, "long_prefill_token_threshold"_a, "chunked_prefill"_a,
     "reserve_full_isl"_a, "scheduling_policy"_a, "workload"_a, "trace"_a, "requests"_a, "calibration"_a, "prefill_efficiency"_a, "slo_ttft"_a, "slo_tpot"_a,
     "slo_e2e"_a, "steps"_a, "find"_a, "slo_percentile"_a, "price"_a, "target_rate"_a);
  // SGLang, llama-server and TensorRT-LLM: a launch command, read by kvplan check (the memory budget) and by the
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
