// vLLM V1's scheduler (vllm_scheduler.h).
//
// Scheduler.schedule (vllm/v1/core/sched/scheduler.py): running requests first, in order, with a
// token budget of max_num_batched_tokens; when allocate_slots fails the LAST running request is
// preempted (freed, num_computed_tokens = 0, put at the front of the waiting queue) until the
// current one fits or is itself preempted; waiting requests (FCFS) only when nothing was
// preempted this step, up to max_num_seqs running, with chunked prefill; a waiting request is
// admitted only when its whole sequence's blocks fit (scheduler_reserve_full_isl,
// allocate_slots(full_sequence_must_fit=True), sliding/chunked groups at their admission cap).
// update_from_output: a request whose computed tokens reach its length samples one token; it
// finishes (and frees its blocks) at max_tokens.
#include "simulate/vllm_scheduler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kvplan/error.h"
#include "kvplan/units.h"
#include "simulate/sim_run.h"

namespace kvplan::detail {

Scheduler::Scheduler(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o)
    : Scheduler(vllm_profile(m, o.engine), o, StepTimer(m, gpu, o.engine, o.step_time)) {}

Scheduler::Scheduler(VllmResult profile, const SimOptions& o, StepTimer timer)
    : o_(o), profile_(std::move(profile)), timer_(std::move(timer)),
      kv_cache_manager_(profile_, o.engine.enable_prefix_caching) {
  if (o.scheduler.max_num_seqs == 0) throw InputError::value("--max-num-seqs", "0", "a positive integer");
  if (o.engine.max_num_batched_tokens == 0) throw InputError::value("--max-num-batched-tokens", "0", "a positive integer");
  M_ = profile_.max_model_len;
  group_peak_.assign(kv_cache_manager_.coordinator().groups_.size(), 0);
}

SimResult Scheduler::run(Source& src) {
  SimResult r;
  fill_header(r);
  double clock = 0;
  bool started = false;
  double first_arrival = 0, last_finish = 0;
  double area_in_system = 0, area_running = 0, area_waiting = 0;
  std::uint64_t stride = 1;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> scheduled;
  SimStep st;  // reused: its group_blocks keeps its storage
  while (true) {
    // Arrivals up to now join the waiting queue in arrival order.
    while (src.arrived_by(clock)) admit(src, r, first_arrival, started);
    if (running_.empty() && waiting_.empty()) {
      if (src.empty()) break;
      clock = std::max(clock, src.next_time());
      continue;
    }
    if (r.steps >= o_.max_steps)
      throw InputError::value("simulation length", std::to_string(r.steps) + " steps", "a run that finishes within max_steps");
    std::uint64_t step_preempt = 0;
    schedule(scheduled, step_preempt);
    stamp_queue(clock);
    if (scheduled.empty()) {
      // A step that only preempted is retried at once (the freed blocks may admit a waiting
      // request); otherwise only a later arrival can change anything.
      if (step_preempt) continue;
      if (src.empty())
        throw InputError::value("workload", "a request that can never be scheduled",
                                "requests whose blocks fit in the engine's KV cache");
      clock = std::max(clock, src.next_time());
      continue;
    }
    // The step's batch and its time.
    StepBatch batch;
    for (const auto& [id, n] : scheduled) {
      const Req& q = reqs_[id];
      timer_.add(batch, q.computed, n);
      if (n == 1 && q.computed + 1 == q.num_tokens() && q.generated > 0) batch.decode_tokens += 1;
      else batch.prefill_tokens += n;
    }
    const double dt = timer_.seconds(batch);
    r.computed_prompt_tokens += batch.prefill_tokens;
    const std::uint64_t nrun = running_.size(), nwait = waiting_.size();
    r.peak_running = std::max<std::uint64_t>(r.peak_running, nrun);
    r.peak_waiting = std::max<std::uint64_t>(r.peak_waiting, nwait);
    r.peak_blocks = std::max(r.peak_blocks, kv_cache_manager_.block_pool().used());
    for (std::size_t g = 0; g < group_peak_.size(); ++g) group_peak_[g] = std::max(group_peak_[g], kv_cache_manager_.block_pool().group_used()[g]);
    area_in_system += static_cast<double>(nrun + nwait) * dt;
    area_running += static_cast<double>(nrun) * dt;
    area_waiting += static_cast<double>(nwait) * dt;
    const bool want_step = static_cast<bool>(o_.on_step);
    const bool want_point = r.steps % stride == 0;
    if (want_step || want_point) {
      st.index = r.steps;
      st.start_s = clock;
      st.duration_s = dt;
      st.running = nrun;
      st.waiting = nwait;
      st.scheduled_requests = scheduled.size();
      st.prefill_tokens = batch.prefill_tokens;
      st.decode_tokens = batch.decode_tokens;
      st.kv_tokens_read = batch.kv_tokens_read;
      st.work = batch.work;
      st.blocks_used = kv_cache_manager_.block_pool().used();
      st.cached_free_blocks = kv_cache_manager_.block_pool().cached_free();
      st.group_blocks.assign(kv_cache_manager_.block_pool().group_used().begin(), kv_cache_manager_.block_pool().group_used().end());
      st.preemptions = step_preempt;
    }
    if (want_point) {
      r.timeline.push_back({clock, nrun, nwait, st.blocks_used, st.group_blocks});
      if (r.timeline.size() >= 2 * std::max<std::uint64_t>(1, o_.timeline_points)) {
        std::vector<SimTimelinePoint> half;
        for (std::size_t i = 0; i < r.timeline.size(); i += 2) half.push_back(std::move(r.timeline[i]));
        r.timeline = std::move(half);
        stride *= 2;
      }
    }
    clock += dt;
    ++r.steps;
    // update_from_output.
    std::uint64_t finished = 0;
    for (const auto& [id, n] : scheduled) {
      Req& q = reqs_[id];
      q.computed += n;
      if (q.computed < q.num_tokens()) continue;  // a chunk of a longer prefill
      ++q.generated;
      if (q.first_token < 0) {
        q.first_token = clock;
        ttft_.add(clock - q.in.arrival_s);
        src.on_first_token(q.user, clock);
      }
      if (q.generated >= q.in.output_tokens) {
        finish(q, clock, r);
        ++finished;
        last_finish = clock;
        src.on_finish_turn(q.in.session, q.turn, q.user, q.in.prompt_tokens, q.in.output_tokens, clock);
      }
    }
    if (finished) {
      running_.erase(std::remove_if(running_.begin(), running_.end(),
                                    [&](std::uint32_t id) { return reqs_[id].state == State::done; }),
                     running_.end());
      for (const auto& [id, n] : scheduled)
        if (reqs_[id].state == State::done) release(id);
    }
    if (want_step) {
      st.finished = finished;
      o_.on_step(st);
    }
  }
  r.makespan_s = started ? last_finish - first_arrival : 0;
  // V1's Processor.process_inputs passes a request's priority through whatever the policy
  // (vllm/v1/engine/processor.py); the FCFS queue never reads it.
  if (unranked_priorities_)
    r.notes.push_back(format_count(unranked_priorities_) + " requests carry a priority, which FCFS ignores "
                      "(--scheduling-policy priority orders by it)");
  else if (o_.scheduler.policy == SimSchedulerOptions::Policy::priority)
    r.notes.push_back("--scheduling-policy priority: waiting requests by (priority, arrival); under block pressure the "
                      "running request with the largest (priority, arrival) is preempted");
  finish_stats(r, area_in_system, area_running, area_waiting);
  return r;
}

void Scheduler::fill_header(SimResult& r) {
  r.num_blocks = profile_.num_blocks;
  r.block_size = profile_.block_size;
  r.max_model_len = M_;
  r.engine_max_concurrency = profile_.max_concurrency;
  r.max_num_seqs = o_.scheduler.max_num_seqs;
  r.max_num_batched_tokens = o_.engine.max_num_batched_tokens;
  r.prefix_caching = kv_cache_manager_.enable_caching();
  for (const auto& g : profile_.groups) r.groups.push_back({std::string(vllm_group_kind_name(g.kind)), g.block_size, g.window, g.layers.size(), 0});
  r.step_time_model = timer_.describe();
  r.slo = o_.slo;
  r.notes.push_back("vLLM V1 scheduler and KV cache manager mirrored step by step; the block count is kvplan's vLLM "
                    "profile (block 0 is vLLM's null block, so " + format_count(profile_.num_blocks - 1) +
                    " blocks are usable)");
  if (!o_.scheduler.reserve_full_isl)
    r.notes.push_back("waiting requests are admitted when their first chunk fits (--no-scheduler-reserve-full-isl), "
                      "not only when their whole sequence does");
  if (kv_cache_manager_.enable_caching() && kv_cache_manager_.coordinator().has_mamba_)
    r.notes.push_back("prefix-cache hits are not simulated for models with Mamba groups (counted as misses: a "
                      "conservative simplification)");
  if (kv_cache_manager_.coordinator().has_mamba_)
    r.notes.push_back("Mamba state: " + std::string(profile_.mamba_cache_mode) +
                      " mode, modelled as " + (profile_.mamba_cache_mode == "all" ? "one block per block_size tokens" :
                      profile_.mamba_cache_mode == "align" ? "2 blocks" : "1 block") + " per running request");
  r.notes.push_back(step_time_note(o_.step_time));
}

void Scheduler::admit(Source& src, SimResult& r, double& first_arrival, bool& started) {
  Pending p = src.pop();
  src.popped_open(p);
  ++r.requests;
  if (!started) {
    first_arrival = p.t;
    started = true;
  }
  const SimRequest& in = p.r;
  if (in.priority != 0 && o_.scheduler.policy == SimSchedulerOptions::Policy::fcfs) ++unranked_priorities_;
  // vLLM's OpenAI server refuses prompt + max_tokens beyond max_model_len (serving_engine.py
  // _validate_input); an empty prompt or no output is no request.
  if (in.prompt_tokens == 0 || in.output_tokens == 0 || in.prompt_tokens + in.output_tokens > M_) {
    ++r.rejected;
    return;
  }
  const std::uint32_t id = take_slot(reqs_, free_ids_);
  reqs_[id].reset();
  Req& q = reqs_[id];
  q.in = in;
  q.in.arrival_s = p.t;
  q.uid = ++uid_;
  q.user = p.user;
  q.turn = p.turn;
  q.tables.resize(kv_cache_manager_.coordinator().groups_.size());
  q.cached.assign(kv_cache_manager_.coordinator().groups_.size(), 0);
  q.hashes.resize(kv_cache_manager_.coordinator().slot_sizes_.size());
  request_segments(sessions_, in, q.uid, q.segs);
  r.prompt_tokens += in.prompt_tokens;
  waiting_.push_back(id);
}

void Scheduler::schedule(std::vector<std::pair<std::uint32_t, std::uint64_t>>& out, std::uint64_t& preempted) {
  out.clear();
  const bool priority = o_.scheduler.policy == SimSchedulerOptions::Policy::priority;
  std::uint64_t budget = o_.engine.max_num_batched_tokens;
  const std::uint64_t thr = o_.scheduler.long_prefill_token_threshold;
  std::size_t i = 0;
  while (i < running_.size() && budget > 0) {
    const std::uint32_t id = running_[i];
    Req& q = reqs_[id];
    std::uint64_t n = q.num_tokens() - q.computed;
    if (thr > 0) n = std::min(n, thr);
    n = std::min(n, budget);
    n = std::min(n, M_ > q.computed + 1 ? M_ - 1 - q.computed : 0);
    if (n == 0) {
      ++i;
      continue;
    }
    bool ok = true;
    while (!kv_cache_manager_.allocate_slots(q, n, nullptr, 0)) {
      std::uint32_t victim = running_.back();
      if (priority) {
        // max(self.running, key=(priority, arrival_time)); one already scheduled this step gives
        // its tokens back (token_budget += num_scheduled_tokens.pop(...), req_index -= 1).
        auto it = std::max_element(running_.begin(), running_.end(), [&](std::uint32_t a, std::uint32_t b) { return later(b, a); });
        victim = *it;
        const auto k = static_cast<std::size_t>(it - running_.begin());
        running_.erase(it);
        if (k < i) {
          auto o = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == victim; });
          budget += o->second;
          out.erase(o);
          --i;
        }
      } else {
        running_.pop_back();
      }
      preempt_request(victim);
      ++preempted;
      if (victim == id) {
        ok = false;
        break;
      }
    }
    if (!ok) break;
    out.emplace_back(id, n);
    budget -= n;
    ++i;
  }
  if (preempted) return;
  GroupBlocks& hits = hits_;
  while (!waiting_.empty() && budget > 0) {
    if (running_.size() >= o_.scheduler.max_num_seqs) break;
    // PriorityRequestQueue.peek_request: the smallest (priority, arrival time); FCFS: the front.
    auto head = priority ? std::min_element(waiting_.begin(), waiting_.end(),
                                            [&](std::uint32_t a, std::uint32_t b) { return later(b, a); })
                         : waiting_.begin();
    const std::uint32_t id = *head;
    Req& q = reqs_[id];
    const std::uint64_t hit = kv_cache_manager_.get_computed_blocks(q, hits);
    std::uint64_t n = q.num_tokens() - hit;
    if (thr > 0) n = std::min(n, thr);
    if (!o_.scheduler.chunked_prefill && n > budget) break;
    n = std::min(n, budget);
    if (!kv_cache_manager_.allocate_slots(q, n, &hits, hit, o_.scheduler.reserve_full_isl)) break;
    waiting_.erase(head);
    q.computed = hit;
    q.state = State::running;
    running_.push_back(id);
    if (q.first_scheduled < 0) {
      q.first_scheduled = 0;  // stamped with the step's start by stamp_queue
      queue_pending_.push_back(id);
    }
    record_prefix_cache_stats(q, hit);
    out.emplace_back(id, n);
    budget -= n;
  }
}

void Scheduler::finish(Req& q, double clock, SimResult& r) {
  q.state = State::done;
  kv_cache_manager_.free(q);
  const double e2e = clock - q.in.arrival_s;
  e2e_.add(e2e);
  double tpot = 0;
  if (q.in.output_tokens > 1) {
    tpot = (clock - q.first_token) / static_cast<double>(q.in.output_tokens - 1);
    tpot_.add(tpot);
  }
  const double ttft = q.first_token - q.in.arrival_s;
  const bool met = (o_.slo.ttft_s <= 0 || ttft <= o_.slo.ttft_s) &&
                   (o_.slo.tpot_s <= 0 || q.in.output_tokens <= 1 || tpot <= o_.slo.tpot_s) &&
                   (o_.slo.e2e_s <= 0 || e2e <= o_.slo.e2e_s);
  if (met) ++r.slo_met;
  ++r.finished;
  r.output_tokens += q.in.output_tokens;
}

void Scheduler::release(std::uint32_t id) {
  Req& q = reqs_[id];
  // A synthetic session's history is dropped after its last turn (a trace's is kept: its
  // sessions have no declared end).
  if (q.in.session && last_turn_ && q.turn >= last_turn_) sessions_.erase(q.in.session);
  q.reset();
  free_ids_.push_back(id);
}

void Scheduler::finish_stats(SimResult& r, double area, double area_run, double area_wait) {
  finish_result(r, {ttft_, tpot_, e2e_, queue_, preemptions_, prefix_query_, prefix_hit_, area, area_run, area_wait,
                    preempted_query_, preempted_hit_});
  for (std::size_t g = 0; g < r.groups.size(); ++g) r.groups[g].peak_blocks = group_peak_[g];
  if (r.rejected)
    r.notes.push_back(format_count(r.rejected) + " requests rejected: empty, or prompt + output tokens above max_model_len " +
                      format_count(M_) + " (vLLM's server refuses them)");
}

// Request.__lt__ under the priority policy: (priority, arrival_time, request id); true when a
// comes after b.
bool Scheduler::later(std::uint32_t a, std::uint32_t b) const {
  const Req &x = reqs_[a], &y = reqs_[b];
  if (x.in.priority != y.in.priority) return x.in.priority > y.in.priority;
  if (x.in.arrival_s != y.in.arrival_s) return x.in.arrival_s > y.in.arrival_s;
  return x.uid > y.uid;
}

// _preempt_request: the blocks freed, num_computed_tokens 0, num_preemptions + 1, the front of
// the waiting queue (the caller has taken it out of the running list).
void Scheduler::preempt_request(std::uint32_t id) {
  Req& v = reqs_[id];
  kv_cache_manager_.free(v);
  v.computed = 0;
  v.state = State::waiting;
  ++v.num_preemptions;
  waiting_.push_front(id);
  ++preemptions_;
}

// KVCacheManager.record_prefix_cache_stats with PrefixCacheStats.record (vllm/v1/core/kv_cache_manager.py,
// vllm/v1/metrics/stats.py @ 003df2961dd8830c317a61f9745ccd557da9fa06): nothing when the lookup is
// off (prefix caching disabled); a request preempted before is counted in the preempted counters.
void Scheduler::record_prefix_cache_stats(const Req& q, std::uint64_t hit) {
  if (!kv_cache_manager_.enable_caching()) return;
  if (q.num_preemptions > 0) {
    preempted_query_ += q.num_tokens();
    preempted_hit_ += hit;
  } else {
    prefix_query_ += q.num_tokens();
    prefix_hit_ += hit;
  }
}

void Scheduler::stamp_queue(double clock) {
  for (std::uint32_t id : queue_pending_) {
    reqs_[id].first_scheduled = clock;
    queue_.add(clock - reqs_[id].in.arrival_s);
  }
  queue_pending_.clear();
}

}  // namespace kvplan::detail
