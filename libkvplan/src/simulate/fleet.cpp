// simulate_fleet (kvplan/simulate.h): replicas of one engine behind a router, each replica its own
// simulation, the router deciding while they run.
//
// A replica's run up to time t depends only on the requests that reached it by t: the scheduler
// admits an arrival at the first step that starts at or after it, and a step's first tokens and
// finishes happen at its end. So request i (arrival t_i) can be routed as soon as every replica
// has simulated up to t_i: each replica runs in its own thread, with a Source whose questions
// (source.h SourceFeed) wait for the router. A replica with work at clock c waits until every
// arrival at or before c is routed; an idle one waits for its next request (or for the trace to
// end). When no replica is running, the router routes, in arrival order, every request up to the
// earliest waiting clock, with the first tokens and finishes up to that request's arrival delivered
// first (in time order, then replica, then request: deterministic), and stops after one that goes to
// an idle replica (that replica's later events are not simulated yet). Replicas then run in
// parallel until they wait again; what each computes depends only on what it was routed, so the
// result does not depend on thread timing.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <queue>
#include <thread>
#include <tuple>
#include <vector>

#include "kvplan/error.h"
#include "kvplan/simulate.h"
#include "simulate/source.h"

namespace kvplan {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
// A fleet runs one thread per replica.
constexpr std::size_t kMaxFleetReplicas = 512;

// Unwinds a replica's simulation when another replica (or the router) failed.
struct FleetAborted {};

struct FleetEvent {
  double t = 0;
  std::size_t replica = 0, index = 0;
  bool finish = false;
  bool operator>(const FleetEvent& o) const {
    return std::tie(t, replica, index, finish) > std::tie(o.t, o.replica, o.index, o.finish);
  }
};

class Fleet;

class ReplicaFeed : public detail::SourceFeed {
 public:
  ReplicaFeed(Fleet& f, std::size_t r) : fleet_(f), r_(r) {}
  bool arrived_by(double clock) override;
  bool empty() override;
  double next_time() override;
  detail::Pending pop() override;
  void first_token(std::uint64_t user, double t) override;
  void finished(std::uint64_t user, double t) override;

  std::deque<std::size_t> queue;  // routed to this replica, not yet admitted (request indices)

 private:
  Fleet& fleet_;
  std::size_t r_;
};

class Fleet {
 public:
  enum class State { running, busy, idle, done };

  Fleet(const std::vector<SimRequest>& reqs, FleetRouter& router, std::size_t n)
      : reqs_(reqs), replica_of(reqs.size(), 0), router_(router), state_(n, State::running), clock_(n, 0), running_(n) {
    feeds.reserve(n);
    for (std::size_t r = 0; r < n; ++r) feeds.emplace_back(*this, r);
  }

  double next_unrouted() const { return next_ < reqs_.size() ? reqs_[next_].arrival_s : kNever; }
  bool all_routed() const { return next_ >= reqs_.size(); }

  // Replica r waits (state busy at `clock`, or idle) until the router releases it.
  void wait(std::unique_lock<std::mutex>& lk, std::size_t r, State s, double clock) {
    if (aborted_) throw FleetAborted{};
    state_[r] = s;
    clock_[r] = clock;
    --running_;
    if (running_ == 0) round();
    cv_.wait(lk, [&] { return aborted_ || state_[r] == State::running; });
    if (aborted_) throw FleetAborted{};
  }

  void replica_done(std::size_t r) {
    std::lock_guard<std::mutex> lk(mu_);
    state_[r] = State::done;
    --running_;
    if (running_ == 0 && !aborted_) round();
  }

  void fail(std::exception_ptr e, std::size_t r) {
    std::lock_guard<std::mutex> lk(mu_);
    if (!error_ || r < error_replica_) error_ = e, error_replica_ = r;
    aborted_ = true;
    cv_.notify_all();
  }
  void fail_locked(std::exception_ptr e) {
    if (!error_) error_ = e, error_replica_ = std::numeric_limits<std::size_t>::max();
    aborted_ = true;
    cv_.notify_all();
  }

  void event(std::size_t r, std::uint64_t user, double t, bool finish) {
    std::lock_guard<std::mutex> lk(mu_);
    events_.push({t, r, static_cast<std::size_t>(user - 1), finish});
  }

  std::exception_ptr error() const { return error_; }

  const std::vector<SimRequest>& reqs_;
  std::vector<std::size_t> replica_of;
  std::vector<ReplicaFeed> feeds;
  std::mutex mu_;

 private:
  // No replica is running: route what can be routed, then release the replicas that can go on.
  void round() {
    try {
      double horizon = kNever;
      for (std::size_t r = 0; r < state_.size(); ++r)
        if (state_[r] == State::busy) horizon = std::min(horizon, clock_[r]);
      while (!all_routed() && reqs_[next_].arrival_s <= horizon) {
        const double t = reqs_[next_].arrival_s;
        while (!events_.empty() && events_.top().t <= t) {
          const FleetEvent e = events_.top();
          events_.pop();
          if (e.finish) router_.finished(e.replica, e.index, e.t);
          else router_.first_token(e.replica, e.index, e.t);
        }
        const std::size_t r = router_.route(next_, reqs_[next_]);
        if (r >= state_.size())
          throw Error("kvplan simulate: internal error: the router chose replica " + std::to_string(r) + " of " +
                              std::to_string(state_.size()));
        replica_of[next_] = r;
        feeds[r].queue.push_back(next_);
        ++next_;
        if (state_[r] == State::idle) break;
      }
      for (std::size_t r = 0; r < state_.size(); ++r) {
        const bool go = (state_[r] == State::busy && next_unrouted() > clock_[r]) ||
                        (state_[r] == State::idle && (!feeds[r].queue.empty() || all_routed()));
        if (go) state_[r] = State::running, ++running_;
      }
      if (running_ == 0 && std::any_of(state_.begin(), state_.end(), [](State s) { return s != State::done; }))
        throw Error("kvplan simulate: internal error: no replica of the fleet can go on");
      cv_.notify_all();
    } catch (...) {
      fail_locked(std::current_exception());
    }
  }

  FleetRouter& router_;
  std::vector<State> state_;
  std::vector<double> clock_;
  std::size_t running_ = 0;
  std::size_t next_ = 0;
  std::priority_queue<FleetEvent, std::vector<FleetEvent>, std::greater<FleetEvent>> events_;
  std::condition_variable cv_;
  bool aborted_ = false;
  std::exception_ptr error_;
  std::size_t error_replica_ = 0;
};

bool ReplicaFeed::arrived_by(double clock) {
  std::unique_lock<std::mutex> lk(fleet_.mu_);
  if (!(fleet_.next_unrouted() > clock)) fleet_.wait(lk, r_, Fleet::State::busy, clock);
  return !queue.empty() && fleet_.reqs_[queue.front()].arrival_s <= clock;
}

bool ReplicaFeed::empty() {
  std::unique_lock<std::mutex> lk(fleet_.mu_);
  if (queue.empty() && !fleet_.all_routed()) fleet_.wait(lk, r_, Fleet::State::idle, 0);
  return queue.empty() && fleet_.all_routed();
}

double ReplicaFeed::next_time() {
  std::unique_lock<std::mutex> lk(fleet_.mu_);
  if (queue.empty() && !fleet_.all_routed()) fleet_.wait(lk, r_, Fleet::State::idle, 0);
  return queue.empty() ? kNever : fleet_.reqs_[queue.front()].arrival_s;
}

detail::Pending ReplicaFeed::pop() {
  std::lock_guard<std::mutex> lk(fleet_.mu_);
  detail::Pending p;
  const std::size_t i = queue.front();
  queue.pop_front();
  p.r = fleet_.reqs_[i];
  p.t = p.r.arrival_s;
  p.seq = i;
  p.user = i + 1;  // comes back with the request's first token and finish
  return p;
}

void ReplicaFeed::first_token(std::uint64_t user, double t) { fleet_.event(r_, user, t, false); }
void ReplicaFeed::finished(std::uint64_t user, double t) { fleet_.event(r_, user, t, true); }

}  // namespace

FleetResult simulate_fleet(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, std::size_t replicas,
                           const std::vector<SimRequest>& requests, FleetRouter& router) {
  if (replicas == 0 || replicas > kMaxFleetReplicas)
    throw InputError::value("replicas behind a router", std::to_string(replicas),
                            "1 to " + std::to_string(kMaxFleetReplicas) + " (one thread each)");
  if (o.engine_kind != EngineKind::vllm)
    throw InputError::value("engine behind a router", engine_name(o.engine_kind), "vllm (the scheduler a fleet is simulated with)");
  if (o.on_step) throw Error("kvplan simulate: internal error: a fleet takes no per-step sink (its replicas run in threads)");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!(requests[i].arrival_s >= 0) || !std::isfinite(requests[i].arrival_s))
      throw InputError::value("request arrival_s", std::to_string(requests[i].arrival_s), "a non-negative number of seconds");
    if (i > 0 && requests[i].arrival_s < requests[i - 1].arrival_s)
      throw Error("kvplan simulate: internal error: a fleet's requests must be sorted by arrival");
  }
  Fleet fleet(requests, router, replicas);
  FleetResult out;
  out.replicas.resize(replicas);
  std::vector<std::thread> threads;
  threads.reserve(replicas);
  for (std::size_t r = 0; r < replicas; ++r) {
    threads.emplace_back([&, r] {
      try {
        detail::Source src(fleet.feeds[r]);
        out.replicas[r] = detail::run_engine(m, gpu, o, src, 0);
        fleet.replica_done(r);
      } catch (const FleetAborted&) {
      } catch (...) {
        fleet.fail(std::current_exception(), r);
      }
    });
  }
  for (auto& t : threads) t.join();
  if (fleet.error()) std::rethrow_exception(fleet.error());
  out.replica_of = fleet.replica_of;
  return out;
}

}  // namespace kvplan
