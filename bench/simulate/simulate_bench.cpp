// Times kvplan::simulate on 100,000 requests of a ShareGPT-like length mix through
// meta-llama/Llama-3.1-8B on one H100 (vllm serve defaults, --max-model-len 8192), with prefix
// caching on and off, and reports seconds, steps, and the cost per simulated step and per
// request-step (one running request in one step).
//
//   kvplan_bench_simulate [REQUESTS] [RATE]
//
// The mix: mean prompt 161.31 and mean output 337.99 tokens, the ShareGPT means reported in the
// vLLM paper (Kwon et al., "Efficient Memory Management for Large Language Model Serving with
// PagedAttention", SOSP 2023, Fig. 11); lognormal shapes with sigma = 1 are an assumption of this
// benchmark (the paper shows histograms), so the medians are mean / e^(1/2).
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kvplan/check.h"
#include "kvplan/kvplan.h"
#include "kvplan/simulate.h"

int main(int argc, char** argv) try {
  const std::uint64_t requests = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  const double rate = argc > 2 ? std::atof(argv[2]) : 30.0;
  const std::string model_id = "meta-llama/Llama-3.1-8B";
  const kvplan::ModelSpec m = kvplan::load_model(model_id);
  const kvplan::Accelerator& gpu = kvplan::find_accelerator("H100");
  kvplan::Deployment d = kvplan::parse_launch_command(
      kvplan::split_command_line("vllm serve " + model_id + " --max-model-len 8192 --max-num-batched-tokens 8192"));
  kvplan::CheckOptions co;
  co.gpu = gpu.name;
  const kvplan::CheckResult cr = kvplan::check_deployment(d, co);
  const kvplan::VllmBatchDefaults def = kvplan::vllm_serve_batch_defaults(gpu);

  kvplan::WorkloadSpec w;
  w.arrivals = kvplan::WorkloadSpec::Arrivals::poisson;
  w.rate = rate;
  w.requests = requests;
  w.prompt = kvplan::parse_length_dist("lognormal:" + std::to_string(161.31 / std::exp(0.5)) + ":1.0", "prompt");
  w.output = kvplan::parse_length_dist("lognormal:" + std::to_string(337.99 / std::exp(0.5)) + ":1.0", "output");
  w.prompt.max = 4096;
  w.output.max = 4096;
  w.seed = 1;

  std::printf("%llu requests at %.1f req/s, %s on %s; %llu KV blocks\n", static_cast<unsigned long long>(requests), rate,
              model_id.c_str(), gpu.name.c_str(), static_cast<unsigned long long>(std::get<kvplan::VllmResult>(cr.engine_result).num_blocks));
  for (bool caching : {true, false}) {
    kvplan::SimOptions o;
    o.engine.max_model_len = cr.context;
    o.engine.max_num_batched_tokens = def.max_num_batched_tokens;
    o.engine.available_kv_bytes = cr.kv_budget_bytes;
    o.engine.enable_prefix_caching = caching;
    o.scheduler.max_num_seqs = def.max_num_seqs;
    std::uint64_t request_steps = 0;
    o.on_step = [&](const kvplan::SimStep& s) { request_steps += s.scheduled_requests; };
    // CPU seconds (this process, one thread) as well as wall: on a shared machine the CPU time is
    // the steadier figure, and the per-step costs are computed from it.
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const kvplan::SimResult r = kvplan::simulate(m, gpu, o, w);
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double s = cpu;
    std::printf("prefix caching %-3s: %.3f s CPU (%.3f s wall), %llu steps, %.0f ns/step, %.1f ns/request-step, %llu finished, "
                "%.0f simulated s\n",
                caching ? "on" : "off", cpu, wall, static_cast<unsigned long long>(r.steps), 1e9 * s / static_cast<double>(r.steps),
                1e9 * s / static_cast<double>(request_steps), static_cast<unsigned long long>(r.finished), r.makespan_s);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kvplan_bench_simulate: %s\n", e.what());
  return 2;
}
