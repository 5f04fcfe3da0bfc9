#pragma once
// vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py Scheduler.schedule and
// update_from_output) over the KV cache manager, and the run loop that steps it with a clock.
// Private: the public API is kvplan/simulate.h.
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "kvplan/engines.h"
#include "kvplan/simulate.h"
#include "simulate/request_content.h"
#include "simulate/sim_internal.h"
#include "simulate/source.h"
#include "simulate/vllm_kv_cache_manager.h"
#include "simulate/vllm_request.h"

namespace kvplan::detail {

// All members are reachable: the tests step it and inspect its queues.
class Scheduler {
 public:
  Scheduler(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o);
  // From an engine profile (the tests build one the way vLLM's tests build a KVCacheConfig).
  Scheduler(VllmResult profile, const SimOptions& o, StepTimer timer);

  SimResult run(Source& src);
  // The next arrival joins the waiting queue (add_request), or is rejected as vLLM's server would.
  void admit(Source& src, SimResult& r, double& first_arrival, bool& started);
  // Scheduler.schedule: (request, tokens) pairs for this step; `preempted` counts this step's preemptions.
  void schedule(std::vector<std::pair<std::uint32_t, std::uint64_t>>& out, std::uint64_t& preempted);

  void fill_header(SimResult& r);
  void finish(Req& q, double clock, SimResult& r);
  void release(std::uint32_t id);
  void finish_stats(SimResult& r, double area, double area_run, double area_wait);
  // Queue time (arrival to first scheduled) is stamped with the step's start.
  void stamp_queue(double clock);
  // A waiting request's lookup, counted once when it is admitted (vLLM's PrefixCacheStats).
  void preempt_request(std::uint32_t id);
  bool later(std::uint32_t a, std::uint32_t b) const;
  void record_prefix_cache_stats(const Req& q, std::uint64_t hit);

  std::uint64_t last_turn_ = 0;  // synthetic sessions: the last turn's number
  std::uint64_t unranked_priorities_ = 0;  // requests with a priority under FCFS (vLLM V1 ignores it)

  SimOptions o_;
  VllmResult profile_;
  StepTimer timer_;
  KVCacheManager kv_cache_manager_;
  std::uint64_t M_ = 0;
  std::vector<Req> reqs_;
  std::vector<std::uint32_t> free_ids_;
  std::vector<std::uint32_t> running_;
  std::deque<std::uint32_t> waiting_;
  std::vector<std::uint32_t> queue_pending_;
  SessionHistory sessions_;
  std::vector<std::uint64_t> group_peak_;
  GroupBlocks hits_;  // scratch for schedule()
  // PrefixCacheStats: queries / hits of new requests, preempted_queries / preempted_hits of re-admitted ones.
  std::uint64_t uid_ = 0, preemptions_ = 0, prefix_query_ = 0, prefix_hit_ = 0, preempted_query_ = 0, preempted_hit_ = 0;
  LogHistogram ttft_, tpot_, e2e_, queue_;
};

}  // namespace kvplan::detail
