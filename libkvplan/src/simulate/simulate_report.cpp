// Reports for `kvplan simulate`: JSON (exact integer counts), a text summary and per-step CSV.
#include <cstdio>
#include <sstream>

#include "kvplan/simulate.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {
nlohmann::json pct(const Percentiles& p) {
  return {{"count", p.count}, {"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
}
std::string secs(double s) {
  char buf[64];
  if (s < 1) std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}
std::string num(double v, int d = 2) { return format_fixed(v, d); }
}  // namespace

nlohmann::json to_json(const SimResult& r) {
  nlohmann::json j;
  j["schema"] = "kvplan.simulate/1";
  j["model"] = r.model;
  j["gpu"] = r.gpu;
  j["engine"] = r.engine;
  j["num_blocks"] = r.num_blocks;
  j["block_size"] = r.block_size;
  j["max_model_len"] = r.max_model_len;
  j["engine_max_concurrency"] = r.engine_max_concurrency;
  j["max_num_seqs"] = r.max_num_seqs;
  j["max_num_batched_tokens"] = r.max_num_batched_tokens;
  j["prefix_caching"] = r.prefix_caching;
  auto& gs = j["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups)
    gs.push_back({{"kind", g.kind}, {"block_size", g.block_size}, {"window", g.window}, {"layers", g.layers},
                  {"peak_blocks", g.peak_blocks}});
  j["step_time_model"] = r.step_time_model;
  j["step_time_band"] = {{"fast_factor", r.time_fast_factor}, {"slow_factor", r.time_slow_factor}};
  j["requests"] = r.requests;
  j["finished"] = r.finished;
  j["rejected"] = r.rejected;
  j["steps"] = r.steps;
  j["makespan_s"] = r.makespan_s;
  j["peak_blocks"] = r.peak_blocks;
  j["peak_running"] = r.peak_running;
  j["peak_waiting"] = r.peak_waiting;
  j["preemptions"] = r.preemptions;
  j["prompt_tokens"] = r.prompt_tokens;
  j["output_tokens"] = r.output_tokens;
  j["computed_prefill_tokens"] = r.computed_prompt_tokens;
  j["prefix_cache"] = {{"query_tokens", r.prefix_query_tokens}, {"hit_tokens", r.prefix_hit_tokens},
                       {"hit_rate", r.prefix_hit_rate},
                       {"preempted_query_tokens", r.prefix_preempted_query_tokens},
                       {"preempted_hit_tokens", r.prefix_preempted_hit_tokens}};
  if (r.engine == "trtllm" && r.prefix_caching) {
    // WindowBlockManager's counters: query/hit tokens are mTotalInputTokens / mReusedTokens.
    j["prefix_cache"]["reused_blocks"] = r.reused_blocks;
    j["prefix_cache"]["missed_blocks"] = r.missed_blocks;
    j["prefix_cache"]["cache_hit_rate"] = r.block_hit_rate;
  }
  j["ttft_s"] = pct(r.ttft_s);
  j["tpot_s"] = pct(r.tpot_s);
  j["e2e_s"] = pct(r.e2e_s);
  j["queue_s"] = pct(r.queue_s);
  j["throughput"] = {{"requests_per_s", r.throughput_requests_per_s},
                     {"output_tokens_per_s", r.throughput_output_tokens_per_s},
                     {"total_tokens_per_s", r.throughput_total_tokens_per_s}};
  j["slo"] = {{"ttft_s", r.slo.ttft_s}, {"tpot_s", r.slo.tpot_s}, {"e2e_s", r.slo.e2e_s}, {"met", r.slo_met},
              {"goodput_requests_per_s", r.goodput_requests_per_s}};
  j["time_average"] = {{"running", r.mean_running}, {"waiting", r.mean_waiting}, {"in_system", r.mean_in_system}};
  auto& tl = j["timeline"] = nlohmann::json::array();
  for (const auto& p : r.timeline)
    tl.push_back({{"t_s", p.t_s}, {"running", p.running}, {"waiting", p.waiting}, {"blocks_used", p.blocks_used},
                  {"group_blocks", p.group_blocks}});
  j["notes"] = r.notes;
  return j;
}

nlohmann::json to_json(const CapacityResult& c) {
  nlohmann::json j;
  j["schema"] = "kvplan.simulate.capacity/1";
  j["max_rate"] = c.max_rate;
  j["runs"] = c.runs;
  j["gpus_per_replica"] = c.gpus_per_replica;
  if (c.replicas_for_target) j["replicas_for_target"] = c.replicas_for_target;
  if (c.cost_per_million_output_tokens > 0) {
    j["cost_per_million_output_tokens"] = c.cost_per_million_output_tokens;
    j["cost_per_million_total_tokens"] = c.cost_per_million_total_tokens;
  }
  j["at_max_rate"] = to_json(c.at_max);
  j["notes"] = c.notes;
  return j;
}

std::string format_simulate_text(const SimResult& r) {
  std::ostringstream os;
  const char* who = r.engine == "sglang" ? "SGLang scheduler and radix cache" : r.engine == "llama.cpp" ? "llama-server slots" : r.engine == "trtllm" ? "TensorRT-LLM batch manager" : "vLLM V1 scheduler";
  os << "simulate: " << r.model << " on " << r.gpu << " (" << who << ")\n";
  os << "  KV cache: " << format_count(r.num_blocks, "block") << " of " << format_count(r.block_size, "token") << ", "
     << format_count(r.groups.size(), "group") << "; max_model_len " << format_count(r.max_model_len) << "; engine max concurrency "
     << num(r.engine_max_concurrency) << "x\n";
  os << "  scheduler: max_num_seqs " << r.max_num_seqs << ", max_num_batched_tokens " << format_count(r.max_num_batched_tokens)
     << ", prefix caching " << (r.prefix_caching ? "on" : "off") << "\n";
  os << "  requests: " << format_count(r.finished) << " finished of " << format_count(r.requests);
  if (r.rejected) os << " (" << format_count(r.rejected) << " rejected)";
  os << " in " << secs(r.makespan_s) << ", " << format_count(r.steps, "step") << "\n";
  os << "  TTFT  p50 " << secs(r.ttft_s.p50) << "  p90 " << secs(r.ttft_s.p90) << "  p99 " << secs(r.ttft_s.p99) << "\n";
  os << "  TPOT  p50 " << secs(r.tpot_s.p50) << "  p90 " << secs(r.tpot_s.p90) << "  p99 " << secs(r.tpot_s.p99) << "\n";
  os << "  E2E   p50 " << secs(r.e2e_s.p50) << "  p90 " << secs(r.e2e_s.p90) << "  p99 " << secs(r.e2e_s.p99) << "\n";
  os << "  throughput: " << num(r.throughput_requests_per_s) << " req/s, " << num(r.throughput_output_tokens_per_s, 1)
     << " output tok/s";
  if (r.slo.ttft_s > 0 || r.slo.tpot_s > 0 || r.slo.e2e_s > 0)
    os << "; goodput " << num(r.goodput_requests_per_s) << " req/s (" << format_count(r.slo_met) << " within SLOs)";
  os << "\n";
  os << "  peak: " << format_count(r.peak_blocks, "block") << ", " << r.peak_running << " running, " << r.peak_waiting
     << " waiting; preemptions " << format_count(r.preemptions) << "\n";
  for (const auto& g : r.groups)
    os << "    group " << g.kind << " (" << format_count(g.layers, "layer") << ", block " << g.block_size
       << (g.window ? ", window " + std::to_string(g.window) : std::string()) << "): peak "
       << format_count(g.peak_blocks, "block") << "\n";
  if (r.prefix_caching && r.engine == "trtllm")
    os << "  KV block reuse: " << format_count(r.reused_blocks) << " blocks reused, " << format_count(r.missed_blocks)
       << " missed (cache hit rate " << num(100 * r.block_hit_rate, 1) << "%); reused tokens " << num(100 * r.prefix_hit_rate, 1)
       << "% of input tokens (" << format_count(r.prefix_hit_tokens) << " of " << format_count(r.prefix_query_tokens) << ")\n";
  else if (r.prefix_caching)
    os << "  prefix cache: " << num(100 * r.prefix_hit_rate, 1) << "% of looked-up tokens hit ("
       << format_count(r.prefix_hit_tokens) << " of " << format_count(r.prefix_query_tokens) << ")"
       << (r.prefix_preempted_query_tokens ? "; preempted requests' re-admissions apart: " + format_count(r.prefix_preempted_hit_tokens) +
                                                 " of " + format_count(r.prefix_preempted_query_tokens)
                                           : std::string()) << "\n";
  os << "  step time: " << r.step_time_model << "\n";
  if (r.time_fast_factor != 1 || r.time_slow_factor != 1)
    os << "  band: times x" << r.time_fast_factor << " (fast) .. x" << r.time_slow_factor << " (slow); throughput "
       << num(r.throughput_output_tokens_per_s / r.time_slow_factor, 1) << " .. "
       << num(r.throughput_output_tokens_per_s / r.time_fast_factor, 1) << " output tok/s\n";
  for (const auto& n : r.notes) os << "note: " << n << "\n";
  return os.str();
}

std::string format_capacity_text(const CapacityResult& c) {
  std::ostringstream os;
  os << "max rate within SLOs: " << num(c.max_rate, 3) << " req/s per replica (" << format_count(c.gpus_per_replica, "GPU") << ")\n";
  if (c.replicas_for_target) os << "replicas for the target rate: " << c.replicas_for_target << "\n";
  if (c.cost_per_million_output_tokens > 0)
    os << "cost: " << num(c.cost_per_million_output_tokens, 4) << " per million output tokens, "
       << num(c.cost_per_million_total_tokens, 4) << " per million prompt + output tokens\n";
  for (const auto& n : c.notes) os << "note: " << n << "\n";
  if (c.max_rate > 0) os << "\nat the max rate:\n" << format_simulate_text(c.at_max);
  return os.str();
}

std::string sim_step_csv_header() {
  return "step,start_s,duration_s,running,waiting,scheduled,prefill_tokens,decode_tokens,kv_tokens_read,blocks_used,"
         "cached_free_blocks,preemptions,finished,group_blocks,weight_bytes,kv_bytes,flops,allreduce_bytes,allreduces\n";
}

std::string format_sim_step_csv(const SimStep& s) {
  char buf[96];
  std::ostringstream os;
  os << s.index << ",";
  std::snprintf(buf, sizeof buf, "%.9g,%.9g", s.start_s, s.duration_s);
  os << buf << "," << s.running << "," << s.waiting << "," << s.scheduled_requests << "," << s.prefill_tokens << ","
     << s.decode_tokens << "," << s.kv_tokens_read << "," << s.blocks_used << "," << s.cached_free_blocks << ","
     << s.preemptions << "," << s.finished << ",";
  for (std::size_t i = 0; i < s.group_blocks.size(); ++i) os << (i ? ";" : "") << s.group_blocks[i];
  char work[160];
  std::snprintf(work, sizeof work, ",%.17g,%.17g,%.17g,%.17g,", s.work.weight_bytes, s.work.kv_bytes, s.work.flops,
                s.work.allreduce_bytes);
  os << work << s.work.allreduces << "\n";
  return os.str();
}

}  // namespace kvplan
