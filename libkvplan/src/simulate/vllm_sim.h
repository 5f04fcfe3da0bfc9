#pragma once
// vLLM V1's block pool, KV cache managers and scheduler as the simulator runs them (see the
// comment at the top of simulate.cpp for what each piece mirrors). Private: the public API is
// kvplan/simulate.h; the tests drive these classes directly, the way vLLM's own tests drive
// BlockPool, KVCacheManager and Scheduler.
#include <algorithm>
#include <cstddef>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <queue>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/simulate.h"
#include "kvplan/units.h"
#include "simulate/sim_internal.h"

namespace kvplan::detail {

constexpr std::uint32_t kNull = 0;           // vLLM's null block is block 0
constexpr std::uint32_t kNone = UINT32_MAX;
constexpr std::uint64_t kRootHash = 0x6b7670'6c616e00ULL;  // the chain's parent for block 0
constexpr std::uint64_t kPrefixTag = 0x70726566ULL, kOwnTag = 0x6f776e00ULL;

enum class GroupKind { full, sliding, chunked, mamba };

struct Seg {
  std::uint64_t key = 0, len = 0;
};

struct Block {
  std::uint32_t ref = 0;
  std::uint32_t prev = kNone, next = kNone;  // free queue links
  std::uint32_t next_same = kNone;           // next block cached under the same key
  std::uint32_t group = 0;
  bool has_hash = false;
  std::uint64_t key = 0;
};

// The prefix-cache map (vLLM's cached_block_hash_to_block) as an open-addressing table: keys
// are already well-mixed 64-bit hashes, values the first block cached under the key; linear
// probing with backward-shift deletion. It never holds more entries than there are blocks.
class FlatMap {
 public:
  explicit FlatMap(std::size_t max_entries) {
    std::size_t cap = 16;
    while (cap < 2 * max_entries + 2) cap *= 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }
  std::uint32_t find(std::uint64_t key) const {
    for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].val == kNone) return kNone;
      if (slots_[i].key == key) return slots_[i].val;
    }
  }
  // The value for key, inserting `value` when absent; `inserted` says which.
  std::uint32_t& emplace(std::uint64_t key, std::uint32_t value, bool& inserted) {
    for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
      Slot& x = slots_[i];
      if (x.val == kNone) {
        x.key = key;
        x.val = value;
        inserted = true;
        return x.val;
      }
      if (x.key == key) {
        inserted = false;
        return x.val;
      }
    }
  }
  std::uint32_t* slot(std::uint64_t key) {
    for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].val == kNone) return nullptr;
      if (slots_[i].key == key) return &slots_[i].val;
    }
  }
  // Removes the entry holding *value (a pointer from slot()).
  void erase_at(std::uint32_t* value) {
    std::size_t i = static_cast<std::size_t>(reinterpret_cast<Slot*>(reinterpret_cast<char*>(value) - offsetof(Slot, val)) - slots_.data());
    for (std::size_t j = i;;) {
      j = (j + 1) & mask_;
      if (slots_[j].val == kNone) break;
      const std::size_t home = slots_[j].key & mask_;
      // Move j back to i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (!stays) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].val = kNone;
  }

  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t val = kNone;
  };
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

// block_pool.py BlockPool + kv_cache_utils.py FreeKVCacheBlockQueue.
class BlockPool {
 public:
  BlockPool(std::uint64_t n, std::size_t groups, bool caching)
      : blocks_(n + 1), group_used_(groups, 0), map_(caching ? n : 1), caching_(caching) {
    sentinel_ = static_cast<std::uint32_t>(n);
    blocks_[sentinel_].prev = blocks_[sentinel_].next = sentinel_;
    for (std::uint32_t i = 0; i < n; ++i) append(i);
    const std::uint32_t null = popleft();  // BlockPool.__init__: null_block = free_block_queue.popleft()
    (void)null;
    blocks_[kNull].ref = 1;
  }
  std::uint64_t num_free() const { return free_; }
  std::uint64_t used() const { return blocks_.size() - 2 - free_; }
  const std::vector<std::uint64_t>& group_used() const { return group_used_; }
  std::uint64_t cached_free() const { return cached_free_; }

  void get_new_blocks(std::uint64_t k, std::uint32_t group, std::vector<std::uint32_t>& out) {
    for (std::uint64_t i = 0; i < k; ++i) {
      const std::uint32_t b = popleft();
      if (blocks_[b].has_hash) evict(b);
      blocks_[b].ref = 1;
      blocks_[b].group = group;
      ++group_used_[group];
      out.push_back(b);
    }
  }
  void touch(std::uint32_t b) {
    if (b == kNull) return;
    if (blocks_[b].ref == 0) {
      unlink(b);
      ++group_used_[blocks_[b].group];
      if (blocks_[b].has_hash) --cached_free_;
    }
    ++blocks_[b].ref;
  }
  // free_blocks: every block's ref count drops; those reaching 0 go back to the free queue,
  // blocks without a hash to the FRONT (prepend_n: they can never be a cache hit, so they are
  // reused first) and hashed blocks to the back (append_n: evicted last), as in vLLM main's
  // BlockPool.free_blocks (the order tests/v1/core/test_prefix_caching.py::test_prefill asserts).
  void free_blocks(const std::vector<std::uint32_t>& ordered) {
    std::vector<std::uint32_t>& front = scratch_front_;
    front.clear();
    for (std::uint32_t b : ordered) {
      if (b == kNull) continue;
      if (--blocks_[b].ref != 0) continue;
      --group_used_[blocks_[b].group];
      if (blocks_[b].has_hash) {
        append(b);
        ++cached_free_;
      } else {
        front.push_back(b);
      }
    }
    for (auto it = front.rbegin(); it != front.rend(); ++it) prepend(*it);
  }
  // The free queue, head (next to be reused) first.
  std::vector<std::uint32_t> free_queue() const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t b = blocks_[sentinel_].next; b != sentinel_; b = blocks_[b].next) out.push_back(b);
    return out;
  }
  bool has_hash(std::uint32_t b) const { return blocks_[b].has_hash; }
  std::uint32_t ref(std::uint32_t b) const { return blocks_[b].ref; }
  // cached_block_hash_to_block[key]: the earliest block still cached under it.
  std::uint32_t get_cached(std::uint64_t key) const {
    return map_.find(key);
  }
  void cache(std::uint32_t b, std::uint64_t key) {
    if (b == kNull || blocks_[b].has_hash) return;
    blocks_[b].has_hash = true;
    blocks_[b].key = key;
    blocks_[b].next_same = kNone;
    bool inserted = false;
    const std::uint32_t head = map_.emplace(key, b, inserted);
    if (!inserted) {
      std::uint32_t t = head;
      while (blocks_[t].next_same != kNone) t = blocks_[t].next_same;
      blocks_[t].next_same = b;
    }
  }

  void evict(std::uint32_t b) {
    if (std::uint32_t* head = map_.slot(blocks_[b].key)) {
      if (*head == b) {
        if (blocks_[b].next_same == kNone) map_.erase_at(head);
        else *head = blocks_[b].next_same;
      } else {
        std::uint32_t t = *head;
        while (blocks_[t].next_same != kNone && blocks_[t].next_same != b) t = blocks_[t].next_same;
        if (blocks_[t].next_same == b) blocks_[t].next_same = blocks_[b].next_same;
      }
    }
    blocks_[b].has_hash = false;
    blocks_[b].next_same = kNone;
    --cached_free_;
  }
  void prepend(std::uint32_t b) {
    const std::uint32_t first = blocks_[sentinel_].next;
    blocks_[b].prev = sentinel_;
    blocks_[b].next = first;
    blocks_[first].prev = b;
    blocks_[sentinel_].next = b;
    ++free_;
  }
  void append(std::uint32_t b) {
    const std::uint32_t last = blocks_[sentinel_].prev;
    blocks_[b].prev = last;
    blocks_[b].next = sentinel_;
    blocks_[last].next = b;
    blocks_[sentinel_].prev = b;
    ++free_;
  }
  void unlink(std::uint32_t b) {
    blocks_[blocks_[b].prev].next = blocks_[b].next;
    blocks_[blocks_[b].next].prev = blocks_[b].prev;
    blocks_[b].prev = blocks_[b].next = kNone;
    --free_;
  }
  std::uint32_t popleft() {
    const std::uint32_t b = blocks_[sentinel_].next;
    if (b == sentinel_) throw Error("kvplan simulate: internal error: the free block queue is empty");
    unlink(b);
    return b;
  }
  std::vector<Block> blocks_;
  std::uint32_t sentinel_ = 0;
  std::uint64_t free_ = 0, cached_free_ = 0;
  std::vector<std::uint64_t> group_used_;
  FlatMap map_;
  std::vector<std::uint32_t> scratch_front_;
  bool caching_;
};

struct Group {
  GroupKind kind = GroupKind::full;
  std::uint64_t block = 16, window = 0;
  std::size_t slot = 0;                // which block-size hash list it uses
  std::uint64_t mamba_blocks = 1;      // blocks a running request holds (Mamba)
  std::uint64_t contiguous = 1;        // sliding window: blocks a hit needs
  std::uint64_t admission_cap = 0;     // sliding window, chunked local: blocks one request holds at most (0: none)
};

enum class State { waiting, running, done };

struct Req {
  SimRequest in;
  std::uint64_t uid = 0, user = 0, turn = 0;
  std::vector<Seg> segs;
  std::uint64_t computed = 0, generated = 0;
  double first_scheduled = -1, first_token = -1;
  State state = State::waiting;
  std::vector<std::vector<std::uint32_t>> tables;
  std::vector<std::uint64_t> cached;
  std::vector<std::vector<std::uint64_t>> hashes;
  std::uint64_t num_tokens() const { return in.prompt_tokens + generated; }
  // Back to a fresh request, keeping the vectors' storage (slots are reused: no allocation per
  // request once the pool of slots has grown).
  void reset() {
    in = SimRequest{};
    uid = user = turn = 0;
    segs.clear();
    computed = generated = 0;
    first_scheduled = first_token = -1;
    state = State::waiting;
    for (auto& t : tables) t.clear();
    cached.clear();
    for (auto& h : hashes) h.clear();
  }
};

inline std::uint64_t block_hash(const std::vector<Seg>& segs, std::uint64_t parent, std::uint64_t start, std::uint64_t len) {
  std::uint64_t h = parent, pos = 0;
  const std::uint64_t end = start + len;
  for (const auto& s : segs) {
    const std::uint64_t a = std::max(pos, start), b = std::min(pos + s.len, end);
    if (a < b) h = hash_mix(hash_mix(hash_mix(h, s.key), a - pos), b - a);
    pos += s.len;
    if (pos >= end) break;
  }
  return h;
}

// A request's token content (what prefix caching can match), see SimRequest: a later turn of a
// session starts with the session's previous prompt and output, a prefix_id with its shared
// stream, the rest is the request's own stream. Records the session's content for its next turn.
// Token i of a segment is token i of the stream named by its key (every engine's simulator reads
// the content this way).
inline void request_segments(std::unordered_map<std::uint64_t, std::vector<Seg>>& sessions, const SimRequest& in,
                             std::uint64_t uid, std::vector<Seg>& segs) {
  std::uint64_t covered = 0;
  auto hist = in.session ? sessions.find(in.session) : sessions.end();
  if (hist != sessions.end()) {
    for (const auto& s : hist->second) {
      if (covered >= in.prompt_tokens) break;
      const std::uint64_t take = std::min(s.len, in.prompt_tokens - covered);
      segs.push_back({s.key, take});
      covered += take;
    }
  } else if (in.prefix_id) {
    const std::uint64_t shared = in.prefix_tokens ? std::min(in.prefix_tokens, in.prompt_tokens) : in.prompt_tokens;
    segs.push_back({hash_mix(kPrefixTag, in.prefix_id), shared});
    covered = shared;
  }
  const std::uint64_t total = in.prompt_tokens + in.output_tokens;
  if (total > covered) segs.push_back({hash_mix(kOwnTag, uid), total - covered});
  if (in.session) sessions[in.session] = segs;
}

// The same content as token ids (token i of a segment is hash_mix(key, i)), for the engines that
// match prefixes token by token (SGLang's radix tree, llama-server's slots).
inline void request_tokens(std::unordered_map<std::uint64_t, std::vector<Seg>>& sessions, const SimRequest& in,
                           std::uint64_t uid, std::vector<Seg>& segs, std::vector<std::uint64_t>& tokens) {
  segs.clear();
  request_segments(sessions, in, uid, segs);
  tokens.clear();
  tokens.reserve(in.prompt_tokens + in.output_tokens);
  for (const Seg& s : segs)
    for (std::uint64_t i = 0; i < s.len; ++i) tokens.push_back(hash_mix(s.key, i));
}

// The run's note on where step times come from.
inline std::string step_time_note(const StepTimeModel& t) {
  return std::string("step times are ") +
         (t.kind == StepTimeModel::Kind::roofline ? "roofline estimates, not measurements" : "from the calibration fit");
}

struct Pending {
  double t = 0;
  std::uint64_t seq = 0;
  SimRequest r;
  std::uint64_t user = 0, turn = 1;
  bool operator>(const Pending& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

// Where requests come from: a trace, or a synthetic spec whose later turns and closed-loop
// requests depend on when earlier ones finish.
class Source {
 public:
  explicit Source(std::vector<SimRequest> trace) : trace_(std::move(trace)), rng_(0) {}
  explicit Source(const WorkloadSpec& w) : spec_(&w), rng_(w.seed) {
    if (w.arrivals == WorkloadSpec::Arrivals::closed) {
      for (std::uint64_t u = 0; u < w.users && created_ < w.requests; ++u) push_new_session(0.0, u + 1);
    } else {
      open_next_ = 0;
      open_left_ = true;
    }
  }
  bool empty() const { return next_ >= trace_.size() && heap_.empty() && !open_pending(); }
  double next_time() {
    fill();
    double t = std::numeric_limits<double>::infinity();
    if (next_ < trace_.size()) t = trace_[next_].arrival_s;
    if (!heap_.empty()) t = std::min(t, heap_.top().t);
    return t;
  }
  Pending pop() {
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
  // A synthetic session's next turn, or a closed-loop user's next session.
  void on_finish(const Req& q, double t) {
    on_finish_turn(q.in.session, q.turn, q.user, q.in.prompt_tokens, q.in.output_tokens, t);
  }
  void on_finish_turn(std::uint64_t session, std::uint64_t turn, std::uint64_t user, std::uint64_t prompt_tokens,
                      std::uint64_t output_tokens, double t) {
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

  bool open_pending() const { return open_left_ && spec_ && created_ < spec_->requests; }
  void fill() {
    // Open-loop arrivals are generated one ahead, so memory does not grow with the run.
    if (!open_pending() || open_queued_) return;
    if (created_ > 0) open_next_ += sample_gap(*spec_, rng_);
    push_new_session(open_next_, 0);
    open_queued_ = true;
  }
  void push_new_session(double t, std::uint64_t user) {
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

  void popped_open(const Pending& p) {
    if (p.user == 0 && p.turn == 1 && spec_ && spec_->arrivals != WorkloadSpec::Arrivals::closed) open_queued_ = false;
  }

  std::vector<SimRequest> trace_;
  std::size_t next_ = 0;
  const WorkloadSpec* spec_ = nullptr;
  SimRng rng_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> heap_;
  std::uint64_t created_ = 0, seq_ = 0, sessions_ = 0;
  double open_next_ = 0;
  bool open_left_ = false, open_queued_ = false;
};

// All members are reachable: the tests step it and inspect its block tables.
class Simulator {
 public:
  Simulator(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o)
      : Simulator(vllm_profile(m, o.engine), o, StepTimer(m, gpu, o.engine, o.step_time)) {}
  // From an engine profile (the tests build one the way vLLM's tests build a KVCacheConfig).
  Simulator(VllmResult profile, const SimOptions& o, StepTimer timer)
      : o_(o), profile_(std::move(profile)), timer_(std::move(timer)) {
    if (!profile_.starts) throw InputError::value("vLLM settings", profile_.error, "settings with which vLLM starts");
    if (profile_.num_blocks < 2)
      throw InputError::value("vLLM KV cache blocks", std::to_string(profile_.num_blocks), "at least 2 (block 0 is the null block)");
    if (o.scheduler.max_num_seqs == 0) throw InputError::value("--max-num-seqs", "0", "a positive integer");
    if (o.engine.max_num_batched_tokens == 0) throw InputError::value("--max-num-batched-tokens", "0", "a positive integer");
    caching_ = o.engine.enable_prefix_caching;
    M_ = profile_.max_model_len;
    std::vector<std::uint64_t> sizes;
    for (const auto& g : profile_.groups) {
      Group x;
      x.block = g.block_size;
      x.window = g.window;
      if (g.kind == "sliding_window") x.kind = GroupKind::sliding;
      else if (g.kind == "chunked_local") x.kind = GroupKind::chunked;
      else if (g.kind == "mamba") x.kind = GroupKind::mamba;
      else x.kind = GroupKind::full;  // full_attention, mla
      if (x.block == 0) throw Error("kvplan simulate: internal error: a KV cache group with block size 0");
      if (x.kind == GroupKind::sliding) x.contiguous = std::max<std::uint64_t>(1, ceil_div(x.window - 1, x.block));
      // The recycling-aware admission cap (SlidingWindowSpec.max_admission_blocks_per_request and
      // its chunked-local counterpart) is the per-request bound the profile sizes the pool with.
      if (x.kind == GroupKind::sliding || x.kind == GroupKind::chunked) x.admission_cap = g.blocks_per_request;
      if (x.kind == GroupKind::mamba) {
        const std::string& mode = profile_.mamba_cache_mode;
        x.mamba_blocks = mode == "align" ? 2 : 1;
        mamba_all_ = mode == "all";
      }
      auto it = std::find(sizes.begin(), sizes.end(), x.block);
      x.slot = static_cast<std::size_t>(it - sizes.begin());
      if (it == sizes.end()) sizes.push_back(x.block);
      groups_.push_back(x);
      has_mamba_ = has_mamba_ || x.kind == GroupKind::mamba;
    }
    slot_sizes_ = sizes;
    simple_ = sizes.size() == 1 && (sizes[0] & (sizes[0] - 1)) == 0;
    for (const auto& g : groups_) simple_ = simple_ && g.kind == GroupKind::full;
    if (simple_) {
      simple_block_ = sizes[0];
      while ((std::uint64_t{1} << simple_shift_) < simple_block_) ++simple_shift_;
    }
    pool_ = std::make_unique<BlockPool>(profile_.num_blocks, groups_.size(), caching_);
    group_peak_.assign(groups_.size(), 0);
  }

  SimResult run(Source& src) {
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
      while (!src.empty() && src.next_time() <= clock) admit(src, r, first_arrival, started);
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
      r.peak_blocks = std::max(r.peak_blocks, pool_->used());
      for (std::size_t g = 0; g < groups_.size(); ++g) group_peak_[g] = std::max(group_peak_[g], pool_->group_used()[g]);
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
        st.blocks_used = pool_->used();
        st.cached_free_blocks = pool_->cached_free();
        st.group_blocks.assign(pool_->group_used().begin(), pool_->group_used().end());
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
        }
        if (q.generated >= q.in.output_tokens) {
          finish(q, clock, r);
          ++finished;
          last_finish = clock;
          src.on_finish(q, clock);
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
    finish_stats(r, area_in_system, area_running, area_waiting);
    return r;
  }

  void fill_header(SimResult& r) {
    r.num_blocks = profile_.num_blocks;
    r.block_size = profile_.block_size;
    r.max_model_len = M_;
    r.engine_max_concurrency = profile_.max_concurrency;
    r.max_num_seqs = o_.scheduler.max_num_seqs;
    r.max_num_batched_tokens = o_.engine.max_num_batched_tokens;
    r.prefix_caching = caching_;
    for (const auto& g : profile_.groups) r.groups.push_back({g.kind, g.block_size, g.window, g.layers.size(), 0});
    r.step_time_model = timer_.describe();
    r.slo = o_.slo;
    r.notes.push_back("vLLM V1 scheduler and KV cache manager mirrored step by step; the block count is kvplan's vLLM "
                      "profile (block 0 is vLLM's null block, so " + format_count(profile_.num_blocks - 1) +
                      " blocks are usable)");
    if (!o_.scheduler.reserve_full_isl)
      r.notes.push_back("waiting requests are admitted when their first chunk fits (--no-scheduler-reserve-full-isl), "
                        "not only when their whole sequence does");
    if (caching_ && has_mamba_)
      r.notes.push_back("prefix-cache hits are not simulated for models with Mamba groups (counted as misses: a "
                        "conservative simplification)");
    if (has_mamba_)
      r.notes.push_back("Mamba state: " + std::string(profile_.mamba_cache_mode) +
                        " mode, modelled as " + (mamba_all_ ? "one block per block_size tokens" :
                        profile_.mamba_cache_mode == "align" ? "2 blocks" : "1 block") + " per running request");
    r.notes.push_back(step_time_note(o_.step_time));
  }

  void admit(Source& src, SimResult& r, double& first_arrival, bool& started) {
    Pending p = src.pop();
    src.popped_open(p);
    ++r.requests;
    if (!started) {
      first_arrival = p.t;
      started = true;
    }
    const SimRequest& in = p.r;
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
    q.tables.resize(groups_.size());
    q.cached.assign(groups_.size(), 0);
    q.hashes.resize(slot_sizes_.size());
    request_segments(sessions_, in, q.uid, q.segs);
    r.prompt_tokens += in.prompt_tokens;
    waiting_.push_back(id);
  }

  // ---- KV cache manager ----
  void ensure_hashes(Req& q, std::size_t slot, std::uint64_t nblocks) {
    auto& h = q.hashes[slot];
    const std::uint64_t B = slot_sizes_[slot];
    while (h.size() < nblocks) {
      const std::uint64_t parent = h.empty() ? kRootHash : h.back();
      h.push_back(block_hash(q.segs, parent, h.size() * B, B));
    }
  }

  void find_hit(std::size_t gi, Req& q, std::uint64_t max_len, std::vector<std::uint32_t>& out) {
    const Group& g = groups_[gi];
    out.clear();
    if (g.kind == GroupKind::mamba) return;
    const std::uint64_t n = max_len / g.block;
    ensure_hashes(q, g.slot, n);
    const auto& h = q.hashes[g.slot];
    if (g.kind == GroupKind::chunked) {
      // ChunkedLocalAttentionManager.find_longest_cache_hit: the blocks before the chunk that
      // holds max_len are out of every later token's window, so they count as computed (null);
      // from the chunk's first block on, the cached blocks left to right until the first miss.
      const std::uint64_t start = g.window ? max_len / g.window * g.window / g.block : 0;
      out.assign(std::min(start, n), kNull);
      for (std::uint64_t i = out.size(); i < n; ++i) {
        const std::uint32_t b = pool_->get_cached(hash_mix(h[i], gi));
        if (b == kNone) break;
        out.push_back(b);
      }
      return;
    }
    if (g.kind == GroupKind::full) {
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint32_t b = pool_->get_cached(hash_mix(h[i], gi));
        if (b == kNone) break;
        out.push_back(b);
      }
      return;
    }
    // SlidingWindowManager.find_longest_cache_hit: right to left, stop at the first run of
    // `contiguous` cached blocks; the blocks before it are null.
    out.assign(n, kNull);
    std::uint64_t run = 0;
    bool found = false;
    for (std::uint64_t k = n; k-- > 0;) {
      const std::uint32_t b = pool_->get_cached(hash_mix(h[k], gi));
      if (b != kNone) {
        out[k] = b;
        if (++run >= g.contiguous) {
          out.resize(k + run);
          found = true;
          break;
        }
      } else {
        run = 0;
      }
    }
    if (!found) out.resize(run);
  }

  // KVCacheManager.get_computed_blocks with the hybrid coordinator's fixed point.
  std::uint64_t get_computed_blocks(Req& q, std::vector<std::vector<std::uint32_t>>& hits) {
    hits.resize(groups_.size());
    for (auto& h : hits) h.clear();
    if (!caching_) return 0;
    std::uint64_t len = q.num_tokens() - 1;  // the last token is always recomputed
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        find_hit(g, q, len, hits[g]);
        const std::uint64_t l = hits[g].size() * groups_[g].block;
        if (l < len) {
          len = l;
          changed = groups_.size() > 1;
        }
      }
    }
    for (std::size_t g = 0; g < groups_.size(); ++g) hits[g].resize(len / groups_[g].block);
    return len;
  }

  std::uint64_t required_blocks(const Group& g, std::uint64_t tokens) const {
    if (g.kind == GroupKind::mamba) return mamba_all_ ? ceil_div(tokens, g.block) : g.mamba_blocks;
    return ceil_div(tokens, g.block);
  }

  void remove_skipped(std::size_t gi, Req& q, std::uint64_t computed) {
    const Group& g = groups_[gi];
    std::uint64_t skipped = 0;
    if (g.kind == GroupKind::sliding) skipped = computed + 1 > g.window ? computed + 1 - g.window : 0;
    else if (g.kind == GroupKind::chunked && g.window) skipped = computed / g.window * g.window;
    else return;
    auto& t = q.tables[gi];
    const std::uint64_t nb = std::min<std::uint64_t>(skipped / g.block, t.size());
    removed_.clear();
    for (std::uint64_t i = nb; i-- > 0;) {
      if (t[i] == kNull) break;
      removed_.push_back(t[i]);
      t[i] = kNull;
    }
    if (!removed_.empty()) pool_->free_blocks(removed_);
  }

  // SingleTypeKVCacheManager.get_num_blocks_to_allocate summed over the groups: the blocks the
  // request still lacks for `need` tokens (beyond those it holds and its hits), plus every hit
  // block that sits in the free queue (ref count 0), since taking it removes it from there.
  // `admission_cap`: sliding-window and chunked-local groups need at most their per-request cap
  // (apply_admission_cap, used only by the full-sequence admission check).
  std::uint64_t num_blocks_to_allocate(const Req& q, std::uint64_t need,
                                       const std::vector<std::vector<std::uint32_t>>* hits,
                                       bool admission_cap = false) const {
    std::uint64_t want = 0;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const std::uint64_t held = q.tables[g].size() + (hits ? (*hits)[g].size() : 0);
      std::uint64_t req = required_blocks(groups_[g], need);
      if (admission_cap && groups_[g].admission_cap) req = std::min(req, groups_[g].admission_cap);
      if (req > held) want += req - held;
      if (hits)
        for (std::uint32_t b : (*hits)[g])
          if (b != kNull && pool_->ref(b) == 0) ++want;
    }
    return want;
  }

  // KVCacheManager.allocate_slots. `full_sequence_must_fit` (the scheduler passes
  // scheduler_reserve_full_isl for waiting requests): refuse unless the blocks of the whole
  // sequence, min(num_tokens, max_model_len), are free now, with the admission cap.
  bool allocate_slots(Req& q, std::uint64_t n_new, std::vector<std::vector<std::uint32_t>>* hits, std::uint64_t n_hit,
                      bool full_sequence_must_fit = false) {
    if (!hits && simple_) {
      // Fast path (same outcome as below): full-attention groups of one block size, a running
      // request whose blocks already cover the new tokens and that fills no new block.
      const std::uint64_t upto = q.computed + n_new;
      const std::uint64_t need = std::min(upto, M_);
      const std::uint64_t held = q.tables[0].size();
      if (((need + simple_block_ - 1) >> simple_shift_) <= held &&
          (!caching_ || std::min<std::uint64_t>(std::min(upto, q.num_tokens()) >> simple_shift_, held) <= q.cached[0]))
        return true;
    }
    const std::uint64_t computed = q.computed + n_hit;
    const std::uint64_t need = std::min(computed + n_new, M_);
    if (full_sequence_must_fit &&
        num_blocks_to_allocate(q, std::min(q.num_tokens(), M_), hits, true) > pool_->num_free())
      return false;
    for (std::size_t g = 0; g < groups_.size(); ++g) remove_skipped(g, q, q.computed);
    if (num_blocks_to_allocate(q, need, hits) > pool_->num_free()) return false;
    if (hits) {
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        for (std::uint32_t b : (*hits)[g]) pool_->touch(b);
        q.tables[g] = (*hits)[g];
        q.cached[g] = (*hits)[g].size();
      }
    }
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const std::uint64_t req = required_blocks(groups_[g], need);
      if (req > q.tables[g].size()) pool_->get_new_blocks(req - q.tables[g].size(), static_cast<std::uint32_t>(g), q.tables[g]);
    }
    if (caching_) {
      const std::uint64_t to_cache = std::min(computed + n_new, q.num_tokens());
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        const Group& G = groups_[g];
        if (G.kind == GroupKind::mamba) continue;
        const std::uint64_t full = std::min<std::uint64_t>(to_cache / G.block, q.tables[g].size());
        if (full <= q.cached[g]) continue;
        ensure_hashes(q, G.slot, full);
        for (std::uint64_t i = q.cached[g]; i < full; ++i) pool_->cache(q.tables[g][i], hash_mix(q.hashes[G.slot][i], g));
        q.cached[g] = full;
      }
    }
    return true;
  }

  void free_request(Req& q) {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      auto& t = q.tables[g];
      std::reverse(t.begin(), t.end());  // free in reverse order: tail blocks are evicted first
      pool_->free_blocks(t);
      t.clear();
      q.cached[g] = 0;
    }
  }

  // ---- Scheduler.schedule ----
  void schedule(std::vector<std::pair<std::uint32_t, std::uint64_t>>& out, std::uint64_t& preempted) {
    out.clear();
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
      while (!allocate_slots(q, n, nullptr, 0)) {
        const std::uint32_t victim = running_.back();
        running_.pop_back();
        Req& v = reqs_[victim];
        free_request(v);
        v.computed = 0;
        v.state = State::waiting;
        waiting_.push_front(victim);
        ++preempted;
        ++preemptions_;
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
    std::vector<std::vector<std::uint32_t>>& hits = hits_;
    while (!waiting_.empty() && budget > 0) {
      if (running_.size() >= o_.scheduler.max_num_seqs) break;
      const std::uint32_t id = waiting_.front();
      Req& q = reqs_[id];
      const std::uint64_t hit = get_computed_blocks(q, hits);
      std::uint64_t n = q.num_tokens() - hit;
      if (thr > 0) n = std::min(n, thr);
      if (!o_.scheduler.chunked_prefill && n > budget) break;
      n = std::min(n, budget);
      if (!allocate_slots(q, n, &hits, hit, o_.scheduler.reserve_full_isl)) break;
      waiting_.pop_front();
      q.computed = hit;
      q.state = State::running;
      running_.push_back(id);
      if (q.first_scheduled < 0) {
        q.first_scheduled = 0;  // stamped with the step's start by stamp_queue
        queue_pending_.push_back(id);
      }
      prefix_query_ += q.num_tokens();
      prefix_hit_ += hit;
      out.emplace_back(id, n);
      budget -= n;
    }
  }

  void finish(Req& q, double clock, SimResult& r) {
    q.state = State::done;
    free_request(q);
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

  void release(std::uint32_t id) {
    Req& q = reqs_[id];
    // A synthetic session's history is dropped after its last turn (a trace's is kept: its
    // sessions have no declared end).
    if (q.in.session && last_turn_ && q.turn >= last_turn_) sessions_.erase(q.in.session);
    q.reset();
    free_ids_.push_back(id);
  }

  void finish_stats(SimResult& r, double area, double area_run, double area_wait) {
    finish_result(r, {ttft_, tpot_, e2e_, queue_, preemptions_, prefix_query_, prefix_hit_, area, area_run, area_wait});
    for (std::size_t g = 0; g < r.groups.size(); ++g) r.groups[g].peak_blocks = group_peak_[g];
    if (r.rejected)
      r.notes.push_back(format_count(r.rejected) + " requests rejected: empty, or prompt + output tokens above max_model_len " +
                        format_count(M_) + " (vLLM's server refuses them)");
  }

  std::uint64_t last_turn_ = 0;  // synthetic sessions: the last turn's number

  // Queue time (arrival to first scheduled) is stamped with the step's start.
  void stamp_queue(double clock) {
    for (std::uint32_t id : queue_pending_) {
      reqs_[id].first_scheduled = clock;
      queue_.add(clock - reqs_[id].in.arrival_s);
    }
    queue_pending_.clear();
  }

  SimOptions o_;
  VllmResult profile_;
  StepTimer timer_;
  bool caching_ = true, has_mamba_ = false, mamba_all_ = false;
  std::uint64_t M_ = 0;
  std::vector<Group> groups_;
  std::vector<std::uint64_t> slot_sizes_;
  std::unique_ptr<BlockPool> pool_;
  std::vector<Req> reqs_;
  std::vector<std::uint32_t> free_ids_;
  std::vector<std::uint32_t> running_;
  std::deque<std::uint32_t> waiting_;
  std::vector<std::uint32_t> queue_pending_;
  std::unordered_map<std::uint64_t, std::vector<Seg>> sessions_;
  std::vector<std::uint64_t> group_peak_;
  std::vector<std::uint32_t> removed_;
  std::vector<std::vector<std::uint32_t>> hits_;  // scratch for schedule()
  bool simple_ = false;  // every group full attention with one power-of-two block size
  std::uint64_t simple_block_ = 1, simple_shift_ = 0;
  std::uint64_t uid_ = 0, preemptions_ = 0, prefix_query_ = 0, prefix_hit_ = 0;
  LogHistogram ttft_, tpot_, e2e_, queue_;
};


}  // namespace kvplan::detail
