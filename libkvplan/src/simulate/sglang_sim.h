#pragma once
// SGLang's radix cache, token pool and scheduler as the simulator runs them. Private: the public
// API is kvplan/simulate.h; the tests drive RadixCache directly, as SGLang's unit tests do.
//
// What is mirrored, and where it lives in SGLang (sgl-project/sglang, python/sglang/srt/):
//  - RadixCache (mem_cache/radix_cache.py, read at 0db5a8be): a tree of token-id keys; children
//    keyed by the first token (the first page when page_size > 1); match_prefix truncates the
//    query to whole pages and splits the node where the match ends; insert returns the length
//    already present; _key_match_paged compares page slices; evict pops the least recently used
//    leaf (last_access_time) with lock_ref 0, frees its tokens and pushes the parent when it
//    becomes a leaf, and stops at the root; inc/dec_lock_ref move node sizes between evictable
//    and protected along the path to the root. Access times are a logical clock (one tick per
//    node touched), SGLang's time.monotonic() in the same order.
//  - The token pool: max_total_num_tokens tokens (sglang_profile) in pages of page_size; tokens
//    are allocated per page; an allocation that finds too few free evicts from the tree first
//    (alloc_token_slots / alloc_paged_token_slots_extend evict the whole request).
//  - Req.init_next_round_input: the prefix is matched on fill_ids[:-1] (one token is always
//    computed); cache_unfinished_req after each prefill (the prompt enters the tree, locked),
//    cache_finished_req at the end ((input + output)[:-1], page-aligned; duplicates and the
//    unaligned tail are freed); --disable-radix-cache is ChunkCache (no tree, frees everything).
//  - PrefillAdder (managers/schedule_policy.py; the v0.4.9 arithmetic): rem_total_tokens =
//    available + evictable - offset, the offset starting at the running requests'
//    min(max_new_tokens - output, CLIP_MAX_NEW_TOKENS=4096) x new_token_ratio and growing by each
//    admitted request's page-rounded extend plus min(max_new_tokens, 4096) (0 while chunked); a
//    request is refused (NO_TOKEN) when extend + min(max_new, 4096) >= rem_total_tokens (checked
//    again with its prefix locked); rem_input_tokens (--max-prefill-tokens) and rem_chunk_tokens
//    (--chunked-prefill-size, the chunked request's piece) bound a batch; one chunked request at a
//    time, continued first in the next round.
//  - Scheduler (managers/scheduler.py): a prefill batch whenever one can be formed (FCFS over the
//    waiting queue, at most max_running_requests running), else one decode step of the running
//    batch; new_token_ratio starts at min(0.7 x --schedule-conservativeness, 1), decays by
//    (init - 0.14 x init) / 600 per decode step to 0.14 x init, resets to init when idle
//    (global_config.py); batch_is_full (set on NO_TOKEN or a full batch) holds new prefills back
//    until the running batch shrinks.
//  - ScheduleBatch.check_decode_mem / retract_decode (managers/schedule_batch.py): a decode step
//    needs one token per request (a page for a request whose length is a page multiple); short,
//    the tree is evicted; still short, requests are retracted, fewest output tokens first (then
//    longest input), until retract_decode_steps (20) tokens per remaining request are free; a
//    retracted request keeps its output, frees its own tokens, unlocks its prefix and goes back
//    to the waiting queue; the ratio becomes min(1, (decoded + 20 x requests) / max_new_tokens).
//  - Request validation (managers/tokenizer_manager.py _validate_one_request): a prompt of
//    context_length tokens or more, or prompt + max_new_tokens >= context_length, is refused; a
//    request longer than the whole pool is refused too (SGLang clips its max_new_tokens instead:
//    a simplification, stated in the notes).
#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>
#include <vector>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/simulate.h"
#include "kvplan/units.h"
#include "simulate/sim_run.h"
#include "simulate/request_content.h"
#include "simulate/source.h"

namespace kvplan::detail {

constexpr std::uint32_t kNoNode = UINT32_MAX;

class RadixCache {
 public:
  struct Node {
    std::uint32_t parent = kNoNode;
    std::unordered_map<std::uint64_t, std::uint32_t> children;
    std::vector<std::uint64_t> key;  // token ids
    std::uint64_t value = 0;         // pool tokens the node holds (len(value) in SGLang)
    std::uint32_t lock_ref = 0;
    std::uint64_t last_access = 0;
    bool alive = false;
  };
  struct Match {
    std::uint64_t length = 0;  // len(device_indices)
    std::uint32_t node = 0;    // last_device_node
  };

  // `on_free(tokens)`: the allocator's free() for evicted tokens.
  RadixCache(std::uint64_t page_size, bool disable, std::function<void(std::uint64_t)> on_free = {})
      : page_(page_size), disable_(disable), on_free_(std::move(on_free)) {
    reset();
  }
  void reset() {
    nodes_.clear();
    free_nodes_.clear();
    root_ = new_node();
    nodes_[root_].lock_ref = 1;
    evictable_ = protected_ = 0;
  }
  std::uint32_t root() const { return root_; }
  std::uint64_t evictable_size() const { return evictable_; }
  std::uint64_t protected_size() const { return protected_; }
  std::uint64_t total_size() const { return evictable_ + protected_; }
  bool disabled() const { return disable_; }
  const Node& node(std::uint32_t id) const { return nodes_[id]; }

  Match match_prefix(const std::uint64_t* t, std::uint64_t n) {
    if (disable_ || n == 0) return {0, root_};
    if (page_ != 1) n = n / page_ * page_;
    std::uint32_t node = root_;
    touch(node);
    std::uint64_t value = 0, pos = 0;
    while (pos < n) {
      auto it = nodes_[node].children.find(child_key(t + pos, n - pos));
      if (it == nodes_[node].children.end()) break;
      const std::uint32_t child = it->second;
      touch(child);
      const std::uint64_t pl = key_match(nodes_[child].key, t + pos, n - pos);
      if (pl < nodes_[child].key.size()) {
        node = split(child, pl);
        value += nodes_[node].value;
        break;
      }
      value += nodes_[child].value;
      node = child;
      pos = std::min(n, pos + pl);
    }
    return {value, node};
  }

  // Returns the length of the key already in the tree (total_prefix_length).
  std::uint64_t insert(const std::uint64_t* t, std::uint64_t n) {
    if (disable_) return 0;
    std::uint32_t node = root_;
    touch(node);
    if (n == 0) return 0;
    std::uint64_t pos = 0, total = 0;
    std::uint64_t ck = child_key(t, n);
    while (pos < n) {
      auto it = nodes_[node].children.find(ck);
      if (it == nodes_[node].children.end()) break;
      node = it->second;
      touch(node);
      const std::uint64_t pl = key_match(nodes_[node].key, t + pos, n - pos);
      total += pl;
      pos = std::min(n, pos + pl);
      if (pl < nodes_[node].key.size()) node = split(node, pl);
      if (pos < n) ck = child_key(t + pos, n - pos);
    }
    if (pos < n) {
      const std::uint32_t leaf = new_node();
      Node& x = nodes_[leaf];
      x.parent = node;
      x.key.assign(t + pos, t + n);
      x.value = n - pos;
      nodes_[node].children[ck] = leaf;
      evictable_ += x.value;
    }
    return total;
  }

  // Evicts least recently used unlocked leaves until `tokens` are freed (or none is left).
  std::uint64_t evict(std::uint64_t tokens) {
    if (disable_) return 0;
    using Item = std::pair<std::uint64_t, std::uint32_t>;  // (last_access, node)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].alive && nodes_[i].children.empty()) heap.push({nodes_[i].last_access, i});
    std::uint64_t evicted = 0;
    while (evicted < tokens && !heap.empty()) {
      const std::uint32_t x = heap.top().second;
      heap.pop();
      if (x == root_) break;
      if (nodes_[x].lock_ref > 0) continue;
      const std::uint64_t v = nodes_[x].value;
      if (on_free_) on_free_(v);
      evicted += v;
      const std::uint32_t parent = nodes_[x].parent;
      delete_leaf(x);
      if (nodes_[parent].children.empty()) heap.push({nodes_[parent].last_access, parent});
    }
    return evicted;
  }

  void inc_lock_ref(std::uint32_t node) {
    if (disable_) return;
    for (; node != root_; node = nodes_[node].parent) {
      if (nodes_[node].lock_ref == 0) {
        evictable_ -= nodes_[node].value;
        protected_ += nodes_[node].value;
      }
      ++nodes_[node].lock_ref;
    }
  }
  void dec_lock_ref(std::uint32_t node) {
    if (disable_) return;
    for (; node != root_; node = nodes_[node].parent) {
      if (nodes_[node].lock_ref == 1) {
        evictable_ += nodes_[node].value;
        protected_ -= nodes_[node].value;
      }
      --nodes_[node].lock_ref;
    }
  }

 private:
  std::uint32_t new_node() {
    const std::uint32_t id = take_slot(nodes_, free_nodes_);
    nodes_[id] = Node{};
    nodes_[id].alive = true;
    nodes_[id].last_access = ++clock_;  // TreeNode.__init__ stamps time.monotonic()
    return id;
  }
  void touch(std::uint32_t id) { nodes_[id].last_access = ++clock_; }
  // get_child_key: the first token, or the first page of tokens.
  std::uint64_t child_key(const std::uint64_t* t, std::uint64_t n) const {
    if (page_ == 1) return t[0];
    std::uint64_t h = 0x70616765ULL;
    for (std::uint64_t i = 0; i < std::min(page_, n); ++i) h = hash_mix(h, t[i]);
    return h;
  }
  // _key_match_page_size1 / _key_match_paged (page slices compared whole, clipped at each end).
  std::uint64_t key_match(const std::vector<std::uint64_t>& k0, const std::uint64_t* k1, std::uint64_t n1) const {
    const std::uint64_t n0 = k0.size(), m = std::min(n0, n1);
    std::uint64_t i = 0;
    if (page_ == 1) {
      while (i < m && k0[i] == k1[i]) ++i;
      return i;
    }
    while (i < m) {
      const std::uint64_t e0 = std::min(n0, i + page_), e1 = std::min(n1, i + page_);
      if (e0 - i != e1 - i || !std::equal(k0.begin() + static_cast<std::ptrdiff_t>(i), k0.begin() + static_cast<std::ptrdiff_t>(e0), k1 + i))
        break;
      i += page_;
    }
    return i;
  }
  // _split_node: a new node holding the first `len` tokens of `child`, above it.
  std::uint32_t split(std::uint32_t child, std::uint64_t len) {
    const std::uint32_t nn = new_node();
    Node& c = nodes_[child];
    Node& x = nodes_[nn];
    x.parent = c.parent;
    x.lock_ref = c.lock_ref;
    x.key.assign(c.key.begin(), c.key.begin() + static_cast<std::ptrdiff_t>(len));
    x.value = len;
    const std::uint64_t parent_key = child_key(c.key.data(), c.key.size());
    c.key.erase(c.key.begin(), c.key.begin() + static_cast<std::ptrdiff_t>(len));
    c.value -= len;
    c.parent = nn;
    x.children[child_key(c.key.data(), c.key.size())] = child;
    nodes_[x.parent].children[parent_key] = nn;
    return nn;
  }
  void delete_leaf(std::uint32_t x) {
    Node& n = nodes_[x];
    auto& siblings = nodes_[n.parent].children;
    for (auto it = siblings.begin(); it != siblings.end(); ++it)
      if (it->second == x) {
        siblings.erase(it);
        break;
      }
    evictable_ -= n.key.size();
    n = Node{};
    free_nodes_.push_back(x);
  }

  std::uint64_t page_ = 1;
  bool disable_ = false;
  std::function<void(std::uint64_t)> on_free_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> free_nodes_;
  std::uint32_t root_ = 0;
  std::uint64_t evictable_ = 0, protected_ = 0, clock_ = 0;
};

struct SglReq {
  SimRequest in;
  std::uint64_t uid = 0, user = 0, turn = 0;
  std::vector<std::uint64_t> tokens;   // prompt then output token ids
  std::uint64_t max_new = 0;           // sampling_params.max_new_tokens
  std::uint64_t generated = 0;         // len(output_ids)
  std::uint64_t prefix_len = 0;        // tokens held by the tree for it (locked through last_node)
  std::uint32_t last_node = 0;
  std::uint64_t kv_len = 0;            // tokens whose KV is in the pool
  std::uint64_t extend = 0;            // this round's extend_input_len
  bool chunk_final = true;             // this round completes the prefill
  double first_token = -1;
  bool queued = false;
  std::uint64_t fill_len() const { return in.prompt_tokens + generated; }
};

class SglangSimulator {
 public:
  SglangSimulator(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o)
      : SglangSimulator(sglang_profile(m, o.sglang), o, timer_for(m, gpu, o)) {
    layers_ = m.num_layers();
  }
  SglangSimulator(SglangResult profile, const SimOptions& o, StepTimer timer)
      : o_(o), prof_(std::move(profile)), timer_(std::move(timer)),
        tree_(prof_.page_size, o.sglang.disable_radix_cache, [this](std::uint64_t t) { free_pages_ += t / page_; }) {
    if (!prof_.starts) throw InputError::value("SGLang settings", prof_.error, "settings with which SGLang starts");
    page_ = prof_.page_size;
    if (page_ == 0 || prof_.max_total_num_tokens < page_)
      throw InputError::value("SGLang token pool", std::to_string(prof_.max_total_num_tokens), "at least one page");
    total_pages_ = prof_.max_total_num_tokens / page_;
    free_pages_ = total_pages_;
    const double c = o.sglang_scheduler.schedule_conservativeness;
    if (!(c >= 0) || !std::isfinite(c))
      throw InputError::value("--schedule-conservativeness", std::to_string(c), "a non-negative number");
    init_ratio_ = std::min(0.7 * c, 1.0);
    min_ratio_ = std::min(init_ratio_ * 0.14, 1.0);
    decay_ = (init_ratio_ - min_ratio_) / 600.0;
    ratio_ = init_ratio_;
    if (o.sglang_scheduler.max_prefill_tokens == 0) throw InputError::value("--max-prefill-tokens", "0", "a positive integer");
    if (prof_.max_running_requests == 0) throw InputError::value("--max-running-requests", "0", "a positive integer");
    chunk_ = o.sglang_scheduler.chunked_prefill ? prof_.chunked_prefill_size : 0;
    // SchedulePolicy.calc_priority (managers/schedule_policy.py): lpm sorts the waiting queue by
    // longest prefix match (FCFS above 128 waiting), dfs-weight walks the radix tree, lof and random
    // reorder too; none of them is simulated, so they are refused rather than run as FCFS.
    if (o.sglang_scheduler.schedule_policy != "fcfs")
      throw InputError::value("--schedule-policy", o.sglang_scheduler.schedule_policy,
                              "fcfs (the policy kvplan simulates; lpm, dfs-weight, lof and random reorder the waiting "
                              "queue in ways it does not model)");
  }

  static StepTimer timer_for(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o) {
    if (o.step_time.kind == StepTimeModel::Kind::linear) return StepTimer(o.step_time);
    const SglangResult p = sglang_profile(m, o.sglang);
    // One token's K and V rows on one rank (cell_size), read once per token of context; a
    // Mamba hybrid's per-request state once per request.
    return StepTimer(m, gpu, o.sglang.tp_size, {{static_cast<double>(p.cell_size), UINT64_MAX}},
                     static_cast<double>(p.mamba_cache_per_req), o.step_time);
  }

  std::uint64_t available() const { return free_pages_ * page_; }
  std::uint64_t pages(std::uint64_t tokens) const { return ceil_div(tokens, page_); }

  // ---- token pool ----
  // Pages for a request growing from `from` to `to` tokens, evicting `evict_tokens` from the tree
  // first when the pool is short (the allocator's alloc with evict_from_tree_cache).
  void grow(SglReq& q, std::uint64_t to) {
    const std::uint64_t need = pages(to) - pages(q.kv_len);
    if (need > free_pages_)
      throw Error("kvplan simulate: internal error: SGLang's token pool ran out during an allocation its scheduler admitted");
    free_pages_ -= need;
    q.kv_len = to;
  }
  void reserve_pool(std::uint64_t tokens, std::uint64_t evict_amount) {
    if (available() < tokens) tree_.evict(evict_amount);
  }
  // The pages a request holds outside the tree.
  std::uint64_t own_pages(const SglReq& q) const { return pages(q.kv_len) - q.prefix_len / page_; }

  // ---- radix cache glue (cache_unfinished_req / cache_finished_req / release) ----
  void cache_unfinished(SglReq& q) {
    if (tree_.disabled()) return;
    const std::uint64_t aligned = q.kv_len / page_ * page_;
    const std::uint64_t present = tree_.insert(q.tokens.data(), aligned);
    if (present > q.prefix_len) free_pages_ += (present - q.prefix_len) / page_;  // duplicates of the tree's
    const RadixCache::Match m = tree_.match_prefix(q.tokens.data(), aligned);
    tree_.dec_lock_ref(q.last_node);
    tree_.inc_lock_ref(m.node);
    q.last_node = m.node;
    q.prefix_len = m.length;
  }
  void cache_finished(SglReq& q) {
    if (tree_.disabled()) {
      free_pages_ += own_pages(q);
      q.kv_len = q.prefix_len = 0;
      return;
    }
    const std::uint64_t aligned = q.kv_len / page_ * page_;
    const std::uint64_t own = own_pages(q);
    const std::uint64_t present = std::max(tree_.insert(q.tokens.data(), aligned), q.prefix_len);
    const std::uint64_t taken = aligned > present ? (aligned - present) / page_ : 0;
    free_pages_ += own - taken;
    tree_.dec_lock_ref(q.last_node);
    q.last_node = tree_.root();
    q.kv_len = q.prefix_len = 0;
  }
  void release_for_retract(SglReq& q) {
    free_pages_ += own_pages(q);
    tree_.dec_lock_ref(q.last_node);
    q.last_node = tree_.root();
    q.kv_len = q.prefix_len = 0;
  }

  // ---- PrefillAdder ----
  static constexpr std::uint64_t kClip = 4096;  // CLIP_MAX_NEW_TOKENS (SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION)
  struct Adder {
    double total_offset = 0, cur_offset = 0;
    std::uint64_t rem_input = 0, rem_chunk = 0;  // rem_chunk: 0 with chunked prefill off (None)
    bool chunked = false;
    std::vector<std::uint32_t> can_run;
    std::uint32_t new_chunked = kNoNode;
  };
  double rem_total(const Adder& a) const {
    return static_cast<double>(available() + tree_.evictable_size()) - a.total_offset;
  }
  double cur_rem(const Adder& a) const { return static_cast<double>(available() + tree_.evictable_size()) - a.cur_offset; }
  void update_budget(Adder& a, std::uint64_t extend, std::uint64_t max_new) {
    const std::uint64_t e = pages(extend) * page_;
    a.total_offset += static_cast<double>(e + max_new);
    a.cur_offset += static_cast<double>(e);
    a.rem_input = a.rem_input > e ? a.rem_input - e : 0;
    if (a.chunked) a.rem_chunk = a.rem_chunk > e ? a.rem_chunk - e : 0;
  }
  enum class Add { cont, no_token, other };
  Add budget_state(const Adder& a) const {
    if (rem_total(a) <= 0 || cur_rem(a) <= 0) return Add::no_token;
    if (a.rem_input == 0 || (a.chunked && a.rem_chunk == 0)) return Add::other;
    return Add::cont;
  }
  // add_chunked_req: the chunked request's next piece.
  void add_chunked(Adder& a, std::uint32_t id) {
    SglReq& q = reqs_[id];
    const std::uint64_t left = q.fill_len() - q.kv_len;
    const bool truncated = a.chunked && left > a.rem_chunk;
    q.extend = a.chunked ? std::min(left, a.rem_chunk) : left;
    q.chunk_final = !truncated;
    a.can_run.push_back(id);
    update_budget(a, q.extend, truncated ? 0 : std::min(q.max_new, kClip));
    if (truncated) a.new_chunked = id;
  }
  Add add_one(Adder& a, std::uint32_t id) {
    SglReq& q = reqs_[id];
    const std::uint64_t total = q.extend + std::min(q.max_new, kClip);
    const std::uint64_t input = pages(q.extend) * page_;
    if (static_cast<double>(total) >= rem_total(a)) return Add::no_token;
    if (input >= a.rem_input && !a.can_run.empty()) return Add::other;
    tree_.inc_lock_ref(q.last_node);  // _lock_node
    Add res = Add::cont;
    if (static_cast<double>(total) >= rem_total(a)) {
      res = Add::no_token;
    } else if (!a.chunked || input <= a.rem_chunk) {
      a.can_run.push_back(id);
      tree_.inc_lock_ref(q.last_node);
      q.chunk_final = true;
      update_budget(a, q.extend, std::min(q.max_new, kClip));
    } else {
      const std::uint64_t trunc = a.rem_chunk / page_ * page_;
      if (trunc == 0) {
        res = Add::other;
      } else {
        q.extend = trunc;
        q.chunk_final = false;
        a.can_run.push_back(id);
        a.new_chunked = id;
        tree_.inc_lock_ref(q.last_node);
        update_budget(a, trunc, 0);
      }
    }
    tree_.dec_lock_ref(q.last_node);
    return res == Add::cont ? budget_state(a) : res;
  }

  // Scheduler.get_new_batch_prefill: the requests of the next prefill batch (empty: none).
  void new_prefill_batch(std::vector<std::uint32_t>& out) {
    out.clear();
    if ((batch_is_full_ || waiting_.empty()) && chunked_req_ == kNoNode) return;
    const std::uint64_t mrr = prof_.max_running_requests;
    if (running_.size() >= mrr && chunked_req_ == kNoNode) {
      batch_is_full_ = true;
      return;
    }
    Adder a;
    a.rem_input = o_.sglang_scheduler.max_prefill_tokens;
    a.chunked = chunk_ > 0;
    a.rem_chunk = chunk_;
    for (std::uint32_t id : running_) {
      const SglReq& q = reqs_[id];
      a.total_offset += static_cast<double>(std::min(q.max_new - std::min(q.max_new, q.generated), kClip)) * ratio_;
    }
    const bool had_chunked = chunked_req_ != kNoNode;
    if (had_chunked) add_chunked(a, chunked_req_);
    std::size_t taken = 0;
    for (std::uint32_t id : waiting_) {
      if (running_.size() + a.can_run.size() >= mrr) {
        batch_is_full_ = true;
        break;
      }
      SglReq& q = reqs_[id];
      // init_next_round_input: the prefix of fill_ids[:-1] held by the tree.
      const RadixCache::Match m = tree_.match_prefix(q.tokens.data(), q.fill_len() - 1);
      q.prefix_len = m.length;
      q.last_node = m.node;
      q.extend = q.fill_len() - q.prefix_len;
      const Add res = add_one(a, id);
      const bool admitted = !a.can_run.empty() && a.can_run.back() == id;
      if (admitted) {
        ++taken;
        prefix_query_ += q.fill_len();
        prefix_hit_ += q.prefix_len;
        q.kv_len = q.prefix_len;
      } else {
        q.prefix_len = 0;
        q.last_node = tree_.root();
      }
      if (res != Add::cont) {
        if (res == Add::no_token) batch_is_full_ = true;
        break;
      }
    }
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(taken));
    chunked_req_ = a.new_chunked;
    out = a.can_run;
  }

  SimResult run(Source& src) {
    SimResult r;
    fill_header(r);
    RunRecorder rec(r, o_);
    double clock = 0;
    std::vector<std::uint32_t> batch;
    while (true) {
      while (!src.empty() && src.next_time() <= clock) admit(src, r, rec);
      if (running_.empty() && waiting_.empty() && chunked_req_ == kNoNode) {
        ratio_ = init_ratio_;  // self_check_during_idle
        if (src.empty()) break;
        clock = std::max(clock, src.next_time());
        continue;
      }
      if (r.steps >= o_.max_steps)
        throw InputError::value("simulation length", std::to_string(r.steps) + " steps", "a run that finishes within max_steps");
      if (running_.empty()) batch_is_full_ = false;
      new_prefill_batch(batch);
      std::uint64_t finished = 0, retracted = 0;
      StepBatch sb;
      if (!batch.empty()) {
        // prepare_for_extend: allocate every request's extend (evicting the tree when short).
        std::uint64_t extend_tokens = 0;
        for (std::uint32_t id : batch) extend_tokens += reqs_[id].extend;
        reserve_pool(extend_tokens + (page_ > 1 ? batch.size() * page_ : 0), extend_tokens + (page_ > 1 ? batch.size() * page_ : 0));
        for (std::uint32_t id : batch) {
          SglReq& q = reqs_[id];
          if (!q.queued) {
            q.queued = true;
            rec.queued(clock, q.in.arrival_s);
          }
          timer_.add(sb, q.kv_len, q.extend);
          sb.prefill_tokens += q.extend;
          grow(q, q.kv_len + q.extend);
        }
        const double dt = timer_.seconds(sb);
        rec.step(clock, dt, running_.size() + batch.size(), waiting_.size(), sb, blocks_used(), tree_.evictable_size() / page_, 0);
        clock += dt;
        // process_batch_result_prefill.
        for (std::uint32_t id : batch) {
          SglReq& q = reqs_[id];
          if (!q.chunk_final) {
            cache_unfinished(q);
            continue;
          }
          ++q.generated;
          if (q.first_token < 0) {
            q.first_token = clock;
            rec.first_token(clock, q.in.arrival_s);
          }
          if (q.generated >= q.max_new) {
            finish(id, clock, rec, src);
            ++finished;
          } else {
            cache_unfinished(q);
            running_.push_back(id);
          }
        }
      } else if (!running_.empty()) {
        // update_running_batch: check_decode_mem, retract_decode, the ratio's decay.
        const std::size_t initial = running_.size();
        if (!check_decode_mem()) {
          retracted = retract_decode();
          preemptions_ += retracted;
        } else {
          ratio_ = std::max(ratio_ - decay_, min_ratio_);
        }
        if (running_.size() < initial) batch_is_full_ = false;
        std::uint64_t need = 0;
        for (std::uint32_t id : running_) need += reqs_[id].kv_len % page_ == 0 ? page_ : 0;
        reserve_pool(need, need);
        for (std::uint32_t id : running_) {
          SglReq& q = reqs_[id];
          timer_.add(sb, q.kv_len, 1);
          sb.decode_tokens += 1;
          grow(q, q.kv_len + 1);
        }
        const double dt = timer_.seconds(sb);
        rec.step(clock, dt, running_.size(), waiting_.size(), sb, blocks_used(), tree_.evictable_size() / page_, retracted);
        clock += dt;
        std::vector<std::uint32_t> keep;
        keep.reserve(running_.size());
        for (std::uint32_t id : running_) {
          SglReq& q = reqs_[id];
          ++q.generated;
          if (q.generated >= q.max_new) {
            finish(id, clock, rec, src);
            ++finished;
          } else {
            keep.push_back(id);
          }
        }
        if (keep.size() < running_.size()) batch_is_full_ = false;
        running_.swap(keep);
      } else {
        // Nothing runs and nothing can be admitted: only an arrival can change that.
        if (src.empty())
          throw InputError::value("workload", "a request that can never be scheduled",
                                  "requests whose tokens fit in SGLang's token pool");
        batch_is_full_ = false;
        clock = std::max(clock, src.next_time());
        continue;
      }
      rec.step_finished(finished);
    }
    rec.finalize(preemptions_, prefix_query_, prefix_hit_);
    if (r.rejected)
      r.notes.push_back(format_count(r.rejected) + " requests rejected: empty, prompt + max_new_tokens of context_length " +
                        format_count(prof_.context_length) + " tokens or more (SGLang's tokenizer manager refuses them), or "
                        "more tokens than the pool holds");
    return r;
  }

  // Pages referenced by requests (locked tree nodes and their own), the unlocked tree excluded.
  std::uint64_t blocks_used() const { return total_pages_ - free_pages_ - tree_.evictable_size() / page_; }

  bool check_decode_mem() {
    std::uint64_t need = 0;
    for (std::uint32_t id : running_) need += reqs_[id].kv_len % page_ == 0 ? page_ : 0;
    if (available() >= need) return true;
    tree_.evict(need);
    return available() >= need;
  }
  std::uint64_t retract_decode() {
    std::vector<std::uint32_t> order = running_;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const SglReq &x = reqs_[a], &y = reqs_[b];
      if (x.generated != y.generated) return x.generated > y.generated;
      return x.in.prompt_tokens < y.in.prompt_tokens;  // -len(input) descending
    });
    constexpr std::uint64_t kSteps = 20;  // global_config.retract_decode_steps
    std::uint64_t retracted = 0;
    bool first = true;
    auto page_need = [&] {  // a page for each request whose next token starts one (page_size > 1)
      std::uint64_t n = 0;
      for (std::uint32_t id : order) n += reqs_[id].kv_len % page_ == 0 ? page_ : 0;
      return n;
    };
    while (available() < std::max(order.size() * kSteps, page_need()) || first) {
      if (order.size() == 1) break;
      first = false;
      const std::uint32_t id = order.back();
      order.pop_back();
      release_for_retract(reqs_[id]);
      waiting_.push_back(id);
      ++retracted;
      const std::uint64_t want = order.size() * kSteps;
      tree_.evict(want > available() ? want - available() : 0);
    }
    std::vector<std::uint32_t> keep;
    for (std::uint32_t id : running_)
      if (std::find(order.begin(), order.end(), id) != order.end()) keep.push_back(id);
    running_.swap(keep);
    std::uint64_t decoded = 0, max_new = 0;
    for (std::uint32_t id : running_) decoded += reqs_[id].generated, max_new += reqs_[id].max_new;
    ratio_ = max_new ? std::min(1.0, static_cast<double>(decoded + kSteps * running_.size()) / static_cast<double>(max_new)) : 1.0;
    return retracted;
  }

  void finish(std::uint32_t id, double clock, RunRecorder& rec, Source& src) {
    SglReq& q = reqs_[id];
    cache_finished(q);
    rec.finished(q.in, q.generated, q.first_token, clock);
    src.on_finish_turn(q.in.session, q.turn, q.user, q.in.prompt_tokens, q.in.output_tokens, clock);
    if (q.in.session && last_turn_ && q.turn >= last_turn_) sessions_.erase(q.in.session);
    q = SglReq{};
    free_ids_.push_back(id);
  }

  void fill_header(SimResult& r) {
    r.engine = "sglang";
    r.num_blocks = total_pages_;
    r.block_size = page_;
    r.max_model_len = prof_.context_length;
    r.engine_max_concurrency = prof_.max_concurrency;
    r.max_num_seqs = prof_.max_running_requests;
    r.max_num_batched_tokens = chunk_;
    r.prefix_caching = !tree_.disabled();
    r.groups.push_back({"token_pool", page_, 0, layers_, 0});
    r.step_time_model = timer_.describe();
    r.slo = o_.slo;
    r.notes.push_back("SGLang's radix cache, PrefillAdder admission and decode retraction mirrored step by step; the pool is "
                      "kvplan's SGLang profile: max_total_num_tokens " + format_count(prof_.max_total_num_tokens) +
                      " tokens in pages of " + format_count(page_, "token") + " (num_blocks counts pages)");
    r.notes.push_back("new_token_ratio starts at " + format_fixed(init_ratio_, 3) + " (0.7 x --schedule-conservativeness " +
                      format_fixed(o_.sglang_scheduler.schedule_conservativeness, 2) +
                      "): requests are admitted on an estimate of their remaining output, and retracted when decoding "
                      "runs out of tokens (counted as preemptions)");
    r.notes.push_back("FCFS waiting queue (--schedule-policy fcfs; other policies are refused), no mixed prefill/decode batches "
                      "(--enable-mixed-chunk off), no overlap scheduling effects; retracted requests rejoin the back of the queue");
    if (prof_.mamba_slots || prof_.swa_tokens)
      r.notes.push_back("hybrid pools (SWA or Mamba) are simulated as one token pool of the full-attention tokens");
    r.notes.push_back(step_time_note(o_.step_time));
  }

  void admit(Source& src, SimResult& r, RunRecorder& rec) {
    const Pending p = rec.take_arrival(src);
    const SimRequest& in = p.r;
    // _validate_one_request: prompt >= context_length, or prompt + max_new_tokens >= context_length.
    if (in.prompt_tokens == 0 || in.output_tokens == 0 || in.prompt_tokens >= prof_.context_length ||
        in.prompt_tokens + in.output_tokens >= prof_.context_length ||
        in.prompt_tokens + in.output_tokens > prof_.max_total_num_tokens) {
      ++r.rejected;
      return;
    }
    const std::uint32_t id = take_slot(reqs_, free_ids_);
    SglReq& q = reqs_[id];
    q.in = in;
    q.in.arrival_s = p.t;
    q.uid = ++uid_;
    q.user = p.user;
    q.turn = p.turn;
    q.max_new = in.output_tokens;
    q.last_node = tree_.root();
    request_tokens(sessions_, in, q.uid, segs_, q.tokens);
    r.prompt_tokens += in.prompt_tokens;
    waiting_.push_back(id);
  }

  std::uint64_t last_turn_ = 0, layers_ = 0;
  SimOptions o_;
  SglangResult prof_;
  StepTimer timer_;
  std::uint64_t page_ = 1, total_pages_ = 0, free_pages_ = 0, chunk_ = 0;
  RadixCache tree_;
  double init_ratio_ = 0.7, min_ratio_ = 0.098, decay_ = 0, ratio_ = 0.7;
  bool batch_is_full_ = false;
  std::vector<SglReq> reqs_;
  std::vector<std::uint32_t> free_ids_, running_;
  std::deque<std::uint32_t> waiting_;
  std::uint32_t chunked_req_ = kNoNode;
  SessionHistory sessions_;
  std::vector<Seg> segs_;
  std::uint64_t uid_ = 0, preemptions_ = 0, prefix_query_ = 0, prefix_hit_ = 0;
};

}  // namespace kvplan::detail
