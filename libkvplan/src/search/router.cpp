// kvplan search's routers over a fleet's replicas (simulate_fleet drives them while the replicas
// run; round-robin needs no feedback and is also split up front, search.cpp).
//
//  - least-outstanding: the replica with the fewest requests in flight (routed, not finished), as
//    llm-d's active-request-scorer counts them router-side (llm-d/llm-d-inference-scheduler
//    pkg/plugins/scorer/active_request.go@139bcce2c631da70474516154a1e3dfaf9245a09, ActiveRequest.Score:
//    (max - count) / max, highest score picked; PreRequest increments, ResponseComplete decrements).
//    Ties go to the lowest replica index (llm-d's max-score-picker picks among ties at random).
//  - prefix-aware: NVIDIA Dynamo's KV router cost (ai-dynamo/dynamo
//    lib/llm/src/kv_router/scheduler.rs@db19bd2a659d4cb04998fb4101cd0dbfbbeba9d4,
//    DefaultWorkerSelector::select_worker): for each worker
//        logit = overlap_score_weight x potential_prefill_tokens / block_size + potential_decode_blocks
//    and the lowest logit wins (router_temperature 0: no sampling). With KvRouterConfig's defaults
//    (lib/llm/src/kv_router/config.rs@0435b58a9c92a9071bc89af9ca345e517fc1bd09, KvRouterConfig::default):
//    overlap_score_weight 1.0, router_temperature 0.0, router_track_active_blocks true,
//    router_track_output_blocks false, router_assume_kv_reuse true. The load terms are
//    ActiveSequences' (lib/llm/src/kv_router/sequence.rs@581ee33e434f3f99b84f6ea99fcf0a3fda26a685,
//    potential_blocks_and_tokens): potential_prefill_tokens = the request's new tokens (its prompt
//    less overlap x block_size) + the worker's active_tokens (new tokens of its requests whose first
//    token has not come back: mark_prefill_completed); potential_decode_blocks = the request's
//    blocks not among the worker's active blocks (new_blocks) + its active unique blocks. Only full
//    prompt blocks are hashed (compute_seq_hashes_for_tracking: tokens.len() / block_size), chained
//    so a block's hash names its whole prefix.
//    The overlap is the approximate indexer's, Dynamo's mode without KV events (--no-kv-events;
//    lib/llm/src/kv_router/approx.rs ApproxKvIndexer): a routed request's blocks count as cached on
//    its worker for router_ttl_secs (120 s) from the routing, refreshed by each request that routes
//    them there; the overlap is the number of leading blocks so held. (Dynamo's default reads the
//    engines' KV events instead, which the simulator does not publish; its tree-size pruning,
//    2^20 blocks, is not modelled.) Ties go to the lowest replica index (Dynamo breaks them by tree size).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "kvplan/error.h"
#include "kvplan/search.h"
#include "simulate/request_content.h"
#include "simulate/rng.h"

namespace kvplan {

namespace {

constexpr double kDynamoOverlapScoreWeight = 1.0;  // KvRouterConfig::default overlap_score_weight
constexpr double kDynamoRouterTtlSecs = 120.0;     // KvRouterConfig::default router_ttl_secs

class RoundRobinRouter final : public FleetRouter {
 public:
  explicit RoundRobinRouter(std::size_t n) : n_(n) {}
  std::size_t route(std::size_t index, const SimRequest&) override { return index % n_; }

 private:
  std::size_t n_;
};

class LeastOutstandingRouter final : public FleetRouter {
 public:
  explicit LeastOutstandingRouter(std::size_t n) : outstanding_(n, 0) {}
  std::size_t route(std::size_t, const SimRequest&) override {
    const std::size_t r = static_cast<std::size_t>(std::min_element(outstanding_.begin(), outstanding_.end()) - outstanding_.begin());
    ++outstanding_[r];
    return r;
  }
  void finished(std::size_t replica, std::size_t, double) override { --outstanding_[replica]; }

 private:
  std::vector<std::uint64_t> outstanding_;
};

class KvRouter final : public FleetRouter {
 public:
  KvRouter(std::size_t n, std::uint64_t block_size)
      : block_(block_size), cached_(n), unique_blocks_(n), active_tokens_(n, 0) {
    if (block_ < 2) throw InputError::value("prefix-aware router block size", std::to_string(block_), "at least 2 tokens");
  }

  std::size_t route(std::size_t index, const SimRequest& r) override {
    const std::vector<std::uint64_t> blocks = prompt_blocks(index, r);
    const double now = r.arrival_s;
    std::size_t best = 0;
    double best_logit = 0;
    std::uint64_t best_overlap = 0;
    for (std::size_t w = 0; w < cached_.size(); ++w) {
      std::uint64_t overlap = 0;
      for (std::uint64_t h : blocks) {
        const auto it = cached_[w].find(h);
        if (it == cached_[w].end() || it->second <= now) break;
        ++overlap;
      }
      const std::uint64_t cached_tokens = overlap * block_;
      const std::uint64_t new_tokens = r.prompt_tokens > cached_tokens ? r.prompt_tokens - cached_tokens : 0;
      std::uint64_t new_blocks = 0;
      for (std::uint64_t h : blocks) new_blocks += unique_blocks_[w].count(h) ? 0 : 1;
      const double prefill_blocks = static_cast<double>(new_tokens + active_tokens_[w]) / static_cast<double>(block_);
      const double decode_blocks = static_cast<double>(new_blocks + unique_blocks_[w].size());
      const double logit = kDynamoOverlapScoreWeight * prefill_blocks + decode_blocks;
      if (w == 0 || logit < best_logit) best = w, best_logit = logit, best_overlap = overlap;
    }
    // ApproxKvIndexer: the blocks are on `best` for the TTL from now.
    for (std::uint64_t h : blocks) cached_[best][h] = now + kDynamoRouterTtlSecs;
    // ActiveSequences::add_request.
    Active a;
    a.replica = best;
    a.blocks = blocks;
    const std::uint64_t cached_tokens = best_overlap * block_;
    a.prefill_tokens = r.prompt_tokens > cached_tokens ? r.prompt_tokens - cached_tokens : 0;
    active_tokens_[best] += a.prefill_tokens;
    for (std::uint64_t h : blocks) ++unique_blocks_[best][h];
    active_.emplace(index, std::move(a));
    return best;
  }

  // ActiveSequences::mark_prefill_completed.
  void first_token(std::size_t, std::size_t index, double) override {
    const auto it = active_.find(index);
    if (it == active_.end() || !it->second.prefilling) return;
    active_tokens_[it->second.replica] -= it->second.prefill_tokens;
    it->second.prefilling = false;
  }

  // ActiveSequences::free.
  void finished(std::size_t, std::size_t index, double t) override {
    first_token(0, index, t);
    const auto it = active_.find(index);
    if (it == active_.end()) return;
    auto& unique = unique_blocks_[it->second.replica];
    for (std::uint64_t h : it->second.blocks) {
      const auto u = unique.find(h);
      if (u != unique.end() && --u->second == 0) unique.erase(u);
    }
    active_.erase(it);
  }

 private:
  struct Active {
    std::size_t replica = 0;
    std::vector<std::uint64_t> blocks;
    std::uint64_t prefill_tokens = 0;
    bool prefilling = true;
  };

  // The request's prompt content as the simulator describes it (simulate/request_content.h: the
  // same streams for every replica), and the chained hashes of its full blocks.
  std::vector<std::uint64_t> prompt_blocks(std::size_t index, const SimRequest& r) {
    std::vector<detail::Seg> segs;
    detail::request_segments(sessions_, r, index, segs);
    // Full prompt blocks: each hash chains the previous one and the block's runs (stream, offset, length).
    std::vector<std::uint64_t> out;
    const std::uint64_t nblocks = r.prompt_tokens / block_;
    std::size_t si = 0;
    std::uint64_t off = 0;  // position within segs[si]
    std::uint64_t h = 0x6b76706c616e00ULL;
    for (std::uint64_t b = 0; b < nblocks; ++b) {
      std::uint64_t need = block_;
      while (need > 0) {
        const std::uint64_t take = std::min(need, segs[si].len - off);
        h = detail::hash_mix(detail::hash_mix(detail::hash_mix(h, segs[si].key), off), take);
        off += take;
        need -= take;
        if (off == segs[si].len) ++si, off = 0;
      }
      out.push_back(h);
    }
    return out;
  }

  std::uint64_t block_;
  detail::SessionHistory sessions_;
  std::vector<std::unordered_map<std::uint64_t, double>> cached_;          // block -> expiry, per worker
  std::vector<std::unordered_map<std::uint64_t, std::uint32_t>> unique_blocks_;  // active blocks, per worker
  std::vector<std::uint64_t> active_tokens_;
  std::unordered_map<std::size_t, Active> active_;
};

}  // namespace

std::string_view router_name(RouterKind k) {
  switch (k) {
    case RouterKind::round_robin: return "round-robin";
    case RouterKind::least_outstanding: return "least-outstanding";
    case RouterKind::prefix_aware: return "prefix-aware";
  }
  return "round-robin";
}

RouterKind parse_router(std::string_view text) {
  for (RouterKind k : {RouterKind::round_robin, RouterKind::least_outstanding, RouterKind::prefix_aware})
    if (text == router_name(k)) return k;
  throw InputError::value("--router", text, "round-robin, least-outstanding or prefix-aware");
}

std::unique_ptr<FleetRouter> make_router(RouterKind k, std::size_t replicas, std::uint64_t block_size) {
  switch (k) {
    case RouterKind::round_robin: return std::make_unique<RoundRobinRouter>(replicas);
    case RouterKind::least_outstanding: return std::make_unique<LeastOutstandingRouter>(replicas);
    case RouterKind::prefix_aware: return std::make_unique<KvRouter>(replicas, block_size);
  }
  return std::make_unique<RoundRobinRouter>(replicas);
}

}  // namespace kvplan
