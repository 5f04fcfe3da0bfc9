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

// A router's queue for one replica of a fleet (simulate_fleet, fleet.cpp): the arrivals are not
// known in advance but decided while the replicas run, so the engine's questions block until the
// router has decided them. `user` is the request's index in the fleet's trace, plus one.
class SourceFeed {
 public:
  virtual ~SourceFeed() = default;
  // The engine is at `clock` with work to do: is an arrival at or before it queued for me?
  virtual bool arrived_by(double clock) = 0;
  // The engine is idle (or stuck until its next arrival): none will ever come / the next one's time.
  virtual bool empty() = 0;
  virtual double next_time() = 0;
  virtual Pending pop() = 0;
  virtual void first_token(std::uint64_t user, double t) = 0;
  virtual void finished(std::uint64_t user, double t) = 0;
};

class Source {
 public:
  explicit Source(std::vector<SimRequest> trace);
  explicit Source(const WorkloadSpec& w);
  explicit Source(SourceFeed& feed) : rng_(0), feed_(&feed) {}
  bool empty() const { return feed_ ? feed_->empty() : next_ >= trace_.size() && heap_.empty() && !open_pending(); }
  // The next arrival's time (infinity when none is left).
  double next_time();
  // An arrival at or before `clock` is waiting (the admission loop's test).
  bool arrived_by(double clock) { return feed_ ? feed_->arrived_by(clock) : !empty() && next_time() <= clock; }
  Pending pop();
  // Called when a request finishes at `t`: a synthetic session's next turn, or a closed-loop
  // user's next session.
  void on_finish_turn(std::uint64_t session, std::uint64_t turn, std::uint64_t user, std::uint64_t prompt_tokens,
                      std::uint64_t output_tokens, double t);
  // Called when a request's first token is sampled at `t` (a fleet's router counts its prefill done).
  void on_first_token(std::uint64_t user, double t) {
    if (feed_) feed_->first_token(user, t);
  }
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
  SourceFeed* feed_ = nullptr;
};

// Runs o.engine_kind's simulator on `src` (simulate.cpp; simulate_fleet runs one per replica).
SimResult run_engine(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, Source& src, std::uint64_t last_turn);

}  // namespace kvplan::detail
