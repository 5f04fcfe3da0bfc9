// The bookkeeping every engine's simulator shares (sim_run.h).
#include "simulate/sim_run.h"

#include <algorithm>

namespace kvplan::detail {

std::string step_time_note(const StepTimeModel& t) {
  return std::string("step times are ") +
         (t.kind == StepTimeModel::Kind::roofline ? "estimates of the calibrated step model (data/step_time.json), not measurements" : "from the calibration fit");
}

Pending RunRecorder::take_arrival(Source& src) {
  Pending p = src.pop();
  src.popped_open(p);
  ++r_.requests;
  if (!started_) first_arrival_ = p.t, started_ = true;
  return p;
}

void RunRecorder::step(double clock, double dt, std::uint64_t running, std::uint64_t waiting, const StepBatch& batch,
                       std::uint64_t blocks_used, std::uint64_t cached_free, std::uint64_t preempted) {
  r_.computed_prompt_tokens += batch.prefill_tokens;
  r_.peak_running = std::max(r_.peak_running, running);
  r_.peak_waiting = std::max(r_.peak_waiting, waiting);
  r_.peak_blocks = std::max(r_.peak_blocks, blocks_used);
  if (!r_.groups.empty()) r_.groups[0].peak_blocks = std::max(r_.groups[0].peak_blocks, blocks_used);
  area_ += static_cast<double>(running + waiting) * dt;
  area_run_ += static_cast<double>(running) * dt;
  area_wait_ += static_cast<double>(waiting) * dt;
  st_.index = r_.steps;
  st_.start_s = clock;
  st_.duration_s = dt;
  st_.running = running;
  st_.waiting = waiting;
  st_.scheduled_requests = batch.requests;
  st_.prefill_tokens = batch.prefill_tokens;
  st_.decode_tokens = batch.decode_tokens;
  st_.kv_tokens_read = batch.kv_tokens_read;
  st_.work = batch.work;
  st_.blocks_used = blocks_used;
  st_.cached_free_blocks = cached_free;
  st_.group_blocks.assign(1, blocks_used);
  st_.preemptions = preempted;
  if (r_.steps % stride_ == 0) {
    r_.timeline.push_back({clock, running, waiting, blocks_used, st_.group_blocks});
    if (r_.timeline.size() >= 2 * std::max<std::uint64_t>(1, o_.timeline_points)) {
      std::vector<SimTimelinePoint> half;
      for (std::size_t i = 0; i < r_.timeline.size(); i += 2) half.push_back(std::move(r_.timeline[i]));
      r_.timeline = std::move(half);
      stride_ *= 2;
    }
  }
  ++r_.steps;
}

void RunRecorder::step_finished(std::uint64_t finished) {
  if (!o_.on_step) return;
  st_.finished = finished;
  o_.on_step(st_);
}

void RunRecorder::finished(const SimRequest& in, std::uint64_t outputs, double first_token, double clock) {
  const double e2e = clock - in.arrival_s;
  e2e_.add(e2e);
  double tpot = 0;
  if (outputs > 1) {
    tpot = (clock - first_token) / static_cast<double>(outputs - 1);
    tpot_.add(tpot);
  }
  const double ttft = first_token - in.arrival_s;
  const bool met = (o_.slo.ttft_s <= 0 || ttft <= o_.slo.ttft_s) &&
                   (o_.slo.tpot_s <= 0 || outputs <= 1 || tpot <= o_.slo.tpot_s) &&
                   (o_.slo.e2e_s <= 0 || e2e <= o_.slo.e2e_s);
  if (met) ++r_.slo_met;
  ++r_.finished;
  r_.output_tokens += outputs;
  last_finish_ = clock;
}

void RunRecorder::finalize(std::uint64_t preemptions, std::uint64_t query_tokens, std::uint64_t hit_tokens) {
  r_.makespan_s = started_ ? last_finish_ - first_arrival_ : 0;
  finish_result(r_, {ttft_, tpot_, e2e_, queue_, preemptions, query_tokens, hit_tokens, area_, area_run_, area_wait_});
}

}  // namespace kvplan::detail
