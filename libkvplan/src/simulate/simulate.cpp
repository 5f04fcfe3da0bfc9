// kvplan::simulate: runs a workload on one engine's scheduler. Each engine's simulator is its own
// unit, including nothing of the others; what they share is the workload source (source.h), the
// request content (request_content.h), the run bookkeeping (sim_run.h) and the step time:
//  - vLLM V1: vllm_block_pool, vllm_single_type_manager, vllm_kv_cache_coordinator,
//    vllm_kv_cache_manager and vllm_scheduler, as vllm/v1/core/ splits them (vllm_sim.h);
//  - SGLang: sglang_sim.h; TensorRT-LLM: trtllm_sim.h; llama-server: llamacpp_sim.h.
// docs/simulate.md lists what each mirrors and what is simplified.
#include <algorithm>
#include <cmath>

#include "simulate/llamacpp_sim.h"
#include "simulate/sglang_sim.h"
#include "simulate/trtllm_sim.h"
#include "simulate/vllm_sim.h"

namespace kvplan {

using detail::Simulator;
using detail::Source;
using detail::run_engine;

namespace {
// The engines whose scheduler the simulator runs.
template <class Sim>
SimResult run_with(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, Source& src, std::uint64_t last_turn) {
  Sim s(m, gpu, o);
  s.last_turn_ = last_turn;
  return s.run(src);
}

}  // namespace

SimResult detail::run_engine(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, Source& src, std::uint64_t last_turn) {
  SimResult r;
  switch (o.engine_kind) {
    case EngineKind::vllm: r = run_with<Simulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::sglang: r = run_with<detail::SglangSimulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::llamacpp: r = run_with<detail::LlamaServerSimulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::trtllm: r = run_with<detail::TrtllmSimulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::ollama: throw InputError::value("--engine", "ollama", "vllm, sglang, llama.cpp or trtllm (Ollama is not simulated)");
  }
  r.model = m.name;
  r.gpu = gpu.name;
  if (o.step_time.kind == StepTimeModel::Kind::roofline) {
    r.time_fast_factor = o.step_time.calibration.fast_factor;
    r.time_slow_factor = o.step_time.calibration.slow_factor;
  }
  return r;
}

SimResult simulate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, std::vector<SimRequest> requests) {
  for (const auto& q : requests)
    if (!(q.arrival_s >= 0) || !std::isfinite(q.arrival_s))
      throw InputError::value("request arrival_s", std::to_string(q.arrival_s), "a non-negative number of seconds");
  std::stable_sort(requests.begin(), requests.end(), [](const SimRequest& a, const SimRequest& b) { return a.arrival_s < b.arrival_s; });
  Source src(std::move(requests));
  return run_engine(m, gpu, o, src, 0);
}

SimResult simulate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, const WorkloadSpec& w) {
  Source src(w);
  return run_engine(m, gpu, o, src, w.turns > 1 ? w.turns : 0);
}

}  // namespace kvplan
