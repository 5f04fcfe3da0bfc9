#pragma once
// Private pieces shared by the simulator's files.
#include <cstdint>
#include <vector>

#include "kvplan/error.h"
#include "kvplan/simulate.h"
#include "simulate/rng.h"

namespace kvplan::detail {

// Requests (and radix-tree nodes) live in a vector whose entries are reused once they end, so a
// long run holds only what is in flight: the index of a free entry, or of a new one at the end.
// A reused entry keeps its old contents (and vectors' capacity); the caller resets what it needs.
template <class T>
std::uint32_t take_slot(std::vector<T>& items, std::vector<std::uint32_t>& free_ids) {
  if (!free_ids.empty()) {
    const std::uint32_t id = free_ids.back();
    free_ids.pop_back();
    return id;
  }
  if (items.size() >= UINT32_MAX) throw OverflowError::in("simulate: live requests or radix-tree nodes (2^32 at most)");
  items.emplace_back();
  return static_cast<std::uint32_t>(items.size() - 1);
}

std::uint64_t sample_length(const LengthDist& d, SimRng& rng);
double sample_gap(const WorkloadSpec& w, SimRng& rng);

// Percentiles from a log-bucketed histogram: buckets 0.1 % wide from 1 us to ~10^6 s, so
// memory is fixed (about 110 KiB) however many requests run, and a percentile is within 0.1 %
// of the exact order statistic (the exact minimum and maximum are kept).
class LogHistogram {
 public:
  void add(double v);
  Percentiles summary() const;
  double quantile(double q) const;

 private:
  std::vector<std::uint32_t> counts_;
  std::uint64_t n_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

// The statistics every engine's simulator ends with, from its latency histograms, counters and
// time integrals (requests in the system, running, waiting); r.makespan_s, finished, slo_met and
// the token totals are already set.
struct RunTotals {
  const LogHistogram &ttft, &tpot, &e2e, &queue;
  std::uint64_t preemptions = 0, prefix_query_tokens = 0, prefix_hit_tokens = 0;
  double area_in_system = 0, area_running = 0, area_waiting = 0;
  std::uint64_t preempted_query_tokens = 0, preempted_hit_tokens = 0;  // vLLM's preempted_queries / preempted_hits
};
inline void finish_result(SimResult& r, const RunTotals& t) {
  r.preemptions = t.preemptions;
  r.ttft_s = t.ttft.summary();
  r.tpot_s = t.tpot.summary();
  r.e2e_s = t.e2e.summary();
  r.queue_s = t.queue.summary();
  r.prefix_query_tokens = t.prefix_query_tokens;
  r.prefix_hit_tokens = t.prefix_hit_tokens;
  r.prefix_preempted_query_tokens = t.preempted_query_tokens;
  r.prefix_preempted_hit_tokens = t.preempted_hit_tokens;
  r.prefix_hit_rate =
      t.prefix_query_tokens ? static_cast<double>(t.prefix_hit_tokens) / static_cast<double>(t.prefix_query_tokens) : 0;
  if (r.makespan_s > 0) {
    const double s = r.makespan_s;
    r.throughput_requests_per_s = static_cast<double>(r.finished) / s;
    r.throughput_output_tokens_per_s = static_cast<double>(r.output_tokens) / s;
    r.throughput_total_tokens_per_s = static_cast<double>(r.output_tokens + r.prompt_tokens) / s;
    r.goodput_requests_per_s = static_cast<double>(r.slo_met) / s;
    r.mean_in_system = t.area_in_system / s;
    r.mean_running = t.area_running / s;
    r.mean_waiting = t.area_waiting / s;
    r.arrival_rate_per_s = static_cast<double>(r.finished) / s;
  }
}

// One simulation's step-time model, prepared once from the model, GPU and options.
class StepTimer {
 public:
  // Cache bytes one scheduled request reads per token of context (per GPU), up to `cap` tokens.
  struct CacheRead {
    double bytes_per_token = 0;
    std::uint64_t cap = UINT64_MAX;
  };
  // vLLM: the cache read from vllm_profile's per-group pages.
  StepTimer(const ModelSpec& m, const Accelerator& gpu, const VllmOptions& e, const StepTimeModel& t);
  // Another engine: its own cache read per token and constant state per request, tp-way split.
  StepTimer(const ModelSpec& m, const Accelerator& gpu, std::uint64_t tp, std::vector<CacheRead> cache, double state_bytes,
            const StepTimeModel& t);
  // A calibrated (linear) model needs no model or GPU.
  explicit StepTimer(const StepTimeModel& linear);
  // Adds one scheduled request (context before, tokens scheduled) to the batch being built.
  void add(StepBatch& b, std::uint64_t computed, std::uint64_t scheduled) const;
  // Times the batch; fills b.work with the terms step_time() was given.
  double seconds(StepBatch& b) const;
  std::string describe() const;

 private:
  using CacheGroup = CacheRead;
  void init_compute(const ModelSpec& m, const Accelerator& gpu, const StepTimeModel& t);
  struct AttnGroup {
    double flops_per_pair = 0;  // 2 x heads x (dk + dv) x layers, this GPU
    std::uint64_t cap = 0;
  };
  StepTimeModel model_;
  std::vector<CacheGroup> cache_;
  std::vector<AttnGroup> attn_;
  double state_bytes_ = 0;
  double linear_flops_per_token_ = 0;
  std::uint64_t active_bytes_ = 0, expert_bytes_ = 0, experts_ = 0, experts_per_token_ = 0;
  double tp_ = 1;
  StepDevice device_;
};

}  // namespace kvplan::detail
