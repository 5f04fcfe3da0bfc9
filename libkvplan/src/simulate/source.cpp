// The workload source (source.h).
#include "simulate/source.h"

#include <algorithm>
#include <limits>

#include "kvplan/checked.h"
#include "simulate/sim_internal.h"

namespace kvplan::detail {

Source::Source(std::vector<SimRequest> trace) : trace_(std::move(trace)), rng_(0) {}

Source::Source(const WorkloadSpec& w) : spec_(&w), rng_(w.seed) {
  if (w.arrivals == WorkloadSpec::Arrivals::closed) {
    for (std::uint64_t u = 0; u < w.users && created_ < w.requests; ++u) push_new_session(0.0, u + 1);
  } else {
    open_next_ = 0;
    open_left_ = true;
  }
}

double Source::next_time() {
  if (feed_) return feed_->next_time();
  fill();
  double t = std::numeric_limits<double>::infinity();
  if (next_ < trace_.size()) t = trace_[next_].arrival_s;
  if (!heap_.empty()) t = std::min(t, heap_.top().t);
  return t;
}

Pending Source::pop() {
  if (feed_) return feed_->pop();
  fill();
  if (next_ < trace_.size() && (heap_.empty() || trace_[next_].arrival_s <= heap_.top().t)) {
    Pending p;
    p.t = trace_[next_].arrival_s;
    p.r = trace_[next_++];
    return p;
  }
  Pending p = heap_.top();
  heap_.pop();
  return p;
}

void Source::on_finish_turn(std::uint64_t session, std::uint64_t turn, std::uint64_t user, std::uint64_t prompt_tokens,
                            std::uint64_t output_tokens, double t) {
  if (feed_) return feed_->finished(user, t);
  if (!spec_ || created_ >= spec_->requests) return;
  const bool closed = spec_->arrivals == WorkloadSpec::Arrivals::closed;
  const double think = spec_->think_s > 0 ? rng_.exponential(spec_->think_s) : 0.0;
  if (turn < spec_->turns) {
    Pending p;
    p.t = t + think;
    p.seq = seq_++;
    p.user = user;
    p.turn = turn + 1;
    p.r.arrival_s = p.t;
    p.r.session = session;
    const std::uint64_t history = checked_add(prompt_tokens, output_tokens, "prompt tokens");
    p.r.prompt_tokens = checked_add(history, sample_length(spec_->prompt, rng_), "prompt tokens");
    p.r.output_tokens = sample_length(spec_->output, rng_);
    ++created_;
    heap_.push(p);
  } else if (closed) {
    push_new_session(t + think, user);
  }
}

void Source::fill() {
  // Open-loop arrivals are generated one ahead, so memory does not grow with the run.
  if (!open_pending() || open_queued_) return;
  if (created_ > 0) open_next_ += sample_gap(*spec_, rng_);
  push_new_session(open_next_, 0);
  open_queued_ = true;
}

void Source::push_new_session(double t, std::uint64_t user) {
  Pending p;
  p.t = t;
  p.seq = seq_++;
  p.user = user;
  p.turn = 1;
  p.r.arrival_s = t;
  const std::uint64_t prompt = sample_length(spec_->prompt, rng_);
  p.r.prompt_tokens = checked_add(prompt, spec_->system_prompt_tokens, "prompt tokens");
  p.r.output_tokens = sample_length(spec_->output, rng_);
  if (spec_->system_prompt_tokens) {
    p.r.prefix_id = 1;
    p.r.prefix_tokens = spec_->system_prompt_tokens;
  }
  if (spec_->turns > 1) p.r.session = ++sessions_;
  ++created_;
  heap_.push(p);
}

void Source::popped_open(const Pending& p) {
  if (p.user == 0 && p.turn == 1 && spec_ && spec_->arrivals != WorkloadSpec::Arrivals::closed) open_queued_ = false;
}

}  // namespace kvplan::detail
