#pragma once
// The bookkeeping every engine's simulator shares: latency histograms, the bounded timeline, the
// per-step sink, time averages for Little's law and the final statistics. (vLLM's Scheduler
// keeps its own inline copy, tuned for speed and pinned by digests in tests/test_simulate.cpp;
// both end with finish_result, sim_internal.h.)
#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/simulate.h"
#include "simulate/sim_internal.h"
#include "simulate/source.h"

namespace kvplan::detail {

// The run's note on where step times come from.
std::string step_time_note(const StepTimeModel& t);

class RunRecorder {
 public:
  RunRecorder(SimResult& r, const SimOptions& o) : r_(r), o_(o) {}

  // The next request from the source, counted as arrived (how every engine's admit() starts).
  Pending take_arrival(Source& src);
  // One step about to run for dt seconds from `clock`, with the queues and pool as scheduled.
  void step(double clock, double dt, std::uint64_t running, std::uint64_t waiting, const StepBatch& batch,
            std::uint64_t blocks_used, std::uint64_t cached_free, std::uint64_t preempted);
  void step_finished(std::uint64_t finished);
  void queued(double clock, double arrival) { queue_.add(clock - arrival); }
  void first_token(double clock, double arrival) { ttft_.add(clock - arrival); }
  // A request done at `clock` with `outputs` tokens generated, its first at `first_token`.
  void finished(const SimRequest& in, std::uint64_t outputs, double first_token, double clock);
  void finalize(std::uint64_t preemptions, std::uint64_t query_tokens, std::uint64_t hit_tokens);

 private:
  SimResult& r_;
  const SimOptions& o_;
  SimStep st_;
  std::uint64_t stride_ = 1;
  bool started_ = false;
  double first_arrival_ = 0, last_finish_ = 0;
  double area_ = 0, area_run_ = 0, area_wait_ = 0;
  LogHistogram ttft_, tpot_, e2e_, queue_;
};

}  // namespace kvplan::detail
