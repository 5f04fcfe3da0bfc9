// vLLM V1's KV cache coordinator (vllm_kv_cache_coordinator.h).
#include "simulate/vllm_kv_cache_coordinator.h"

#include <algorithm>

#include "simulate/rng.h"

namespace kvplan::detail {

KVCacheCoordinator::KVCacheCoordinator(const VllmResult& profile, bool caching) : caching_(caching) {
  for (const auto& g : profile.groups) {
    Group x = make_group(g, profile.mamba_cache_mode);
    auto it = std::find(slot_sizes_.begin(), slot_sizes_.end(), x.block);
    x.slot = static_cast<std::size_t>(it - slot_sizes_.begin());
    if (it == slot_sizes_.end()) slot_sizes_.push_back(x.block);
    groups_.push_back(x);
    has_mamba_ = has_mamba_ || x.kind == VllmGroupKind::mamba;
  }
  pool_ = std::make_unique<BlockPool>(profile.num_blocks, groups_.size(), caching_);
}

void KVCacheCoordinator::ensure_hashes(Req& q, std::size_t slot, std::uint64_t nblocks) const {
  auto& h = q.hashes[slot];
  const std::uint64_t B = slot_sizes_[slot];
  while (h.size() < nblocks) {
    const std::uint64_t parent = h.empty() ? kRootHash : h.back();
    h.push_back(block_hash(q.segs, parent, h.size() * B, B));
  }
}

void KVCacheCoordinator::find_hit(std::size_t gi, Req& q, std::uint64_t max_len, std::vector<std::uint32_t>& out) {
  const Group& g = groups_[gi];
  out.clear();
  if (g.kind == VllmGroupKind::mamba) return;
  ensure_hashes(q, g.slot, max_len / g.block);
  detail::find_longest_cache_hit(g, gi, *pool_, q.hashes[g.slot], max_len, out);
}

std::uint64_t KVCacheCoordinator::find_longest_cache_hit(Req& q, std::uint64_t max_len, GroupBlocks& hits) {
  std::uint64_t len = max_len;
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

std::uint64_t KVCacheCoordinator::get_num_blocks_to_allocate(const Req& q, std::uint64_t need, const GroupBlocks* hits,
                                                             bool admission_cap) const {
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

void KVCacheCoordinator::remove_skipped_blocks(std::size_t gi, Req& q, std::uint64_t computed) {
  detail::remove_skipped_blocks(groups_[gi], *pool_, q.tables[gi], computed, removed_);
}

void KVCacheCoordinator::remove_skipped_blocks(Req& q, std::uint64_t computed) {
  for (std::size_t g = 0; g < groups_.size(); ++g) remove_skipped_blocks(g, q, computed);
}

void KVCacheCoordinator::save_new_computed_blocks(Req& q, const GroupBlocks& hits) {
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    for (std::uint32_t b : hits[g]) pool_->touch(b);
    q.tables[g] = hits[g];
    q.cached[g] = hits[g].size();
  }
}

void KVCacheCoordinator::allocate_new_blocks(Req& q, std::uint64_t need) {
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const std::uint64_t req = required_blocks(groups_[g], need);
    if (req > q.tables[g].size()) pool_->get_new_blocks(req - q.tables[g].size(), static_cast<std::uint32_t>(g), q.tables[g]);
  }
}

void KVCacheCoordinator::cache_blocks(Req& q, std::uint64_t tokens) {
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const Group& G = groups_[g];
    if (G.kind == VllmGroupKind::mamba) continue;
    const std::uint64_t full = std::min<std::uint64_t>(tokens / G.block, q.tables[g].size());
    if (full <= q.cached[g]) continue;
    ensure_hashes(q, G.slot, full);
    for (std::uint64_t i = q.cached[g]; i < full; ++i) pool_->cache(q.tables[g][i], hash_mix(q.hashes[G.slot][i], g));
    q.cached[g] = full;
  }
}

void KVCacheCoordinator::free(Req& q) {
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    auto& t = q.tables[g];
    std::reverse(t.begin(), t.end());  // free in reverse order: tail blocks are evicted first
    pool_->free_blocks(t);
    t.clear();
    q.cached[g] = 0;
  }
}

}  // namespace kvplan::detail
