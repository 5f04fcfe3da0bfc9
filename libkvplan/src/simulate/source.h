#pragma once
// Where a simulation's requests come from: a trace (sorted by arrival), or a synthetic workload
// spec whose later turns and closed-loop requests depend on when earlier ones finish. Every
// engine's simulator takes its arrivals from one Source.
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "kvplan/simulate.h"
#include "simulate/rng.h"

namespace kvplan::detail {

// One arrival: when, the request, and (synthetic sessions) its user and turn.
struct Pending {
  double t = 0;
  std::uint64_t seq = 0;
  SimRequest r;
  std::uint64_t user = 0, turn = 1;
  bool operator>(const Pending& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Source {
 public:
  explicit Source(std::vector<SimRequest> trace);
  explicit Source(const WorkloadSpec& w);
  bool empty() const { return next_ >= trace_.size() && heap_.empty() && !open_pending(); }
  // The next arrival's time (infinity when none is left).
  double next_time();
  Pending pop();
  // Called when a request finishes at `t`: a synthetic session's next turn, or a closed-loop
  // user's next session.
  void on_finish_turn(std::uint64_t session, std::uint64_t turn, std::uint64_t user, std::uint64_t prompt_tokens,
                      std::uint64_t output_tokens, double t);
  // Called for each popped arrival (how every engine's admission starts).
  void popped_open(const Pending& p);

 private:
  bool open_pending() const { return open_left_ && spec_ && created_ < spec_->requests; }
  void fill();
  void push_new_session(double t, std::uint64_t user);

  std::vector<SimRequest> trace_;
  std::size_t next_ = 0;
  const WorkloadSpec* spec_ = nullptr;
  SimRng rng_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> heap_;
  std::uint64_t created_ = 0, seq_ = 0, sessions_ = 0;
  double open_next_ = 0;
  bool open_left_ = false, open_queued_ = false;
};

}  // namespace kvplan::detail
