// vLLM V1's KV cache manager (vllm_kv_cache_manager.h).
#include "simulate/vllm_kv_cache_manager.h"

#include <algorithm>
#include <string>

#include "kvplan/error.h"

namespace kvplan::detail {

const VllmResult& KVCacheManager::checked(const VllmResult& profile) {
  if (!profile.starts) throw InputError::value("vLLM settings", profile.error, "settings with which vLLM starts");
  if (profile.num_blocks < 2)
    throw InputError::value("vLLM KV cache blocks", std::to_string(profile.num_blocks), "at least 2 (block 0 is the null block)");
  return profile;
}

KVCacheManager::KVCacheManager(const VllmResult& profile, bool enable_caching)
    : coordinator_(checked(profile), enable_caching), caching_(enable_caching), M_(profile.max_model_len) {
  const auto& sizes = coordinator_.slot_sizes_;
  simple_ = sizes.size() == 1 && (sizes[0] & (sizes[0] - 1)) == 0;
  for (const auto& g : coordinator_.groups_) simple_ = simple_ && full_attention_manager(g.kind);
  if (simple_) {
    simple_block_ = sizes[0];
    while ((std::uint64_t{1} << simple_shift_) < simple_block_) ++simple_shift_;
  }
}

std::uint64_t KVCacheManager::get_computed_blocks(Req& q, GroupBlocks& hits) {
  hits.resize(coordinator_.groups_.size());
  for (auto& h : hits) h.clear();
  if (!caching_) return 0;
  // When every token hits, the last is recomputed to obtain logits: max_cache_hit_length = num_tokens - 1.
  return coordinator_.find_longest_cache_hit(q, q.num_tokens() - 1, hits);
}

bool KVCacheManager::allocate_slots(Req& q, std::uint64_t n_new, GroupBlocks* hits, std::uint64_t n_hit,
                                    bool full_sequence_must_fit) {
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
  BlockPool& pool = *coordinator_.pool_;
  const std::uint64_t computed = q.computed + n_hit;
  const std::uint64_t need = std::min(computed + n_new, M_);
  // full_sequence_must_fit (the scheduler passes scheduler_reserve_full_isl for waiting
  // requests): refuse unless the blocks of the whole sequence, min(num_tokens, max_model_len),
  // are free now, sliding and chunked groups at their admission cap.
  if (full_sequence_must_fit &&
      coordinator_.get_num_blocks_to_allocate(q, std::min(q.num_tokens(), M_), hits, true) > pool.num_free())
    return false;
  coordinator_.remove_skipped_blocks(q, q.computed);
  if (coordinator_.get_num_blocks_to_allocate(q, need, hits, false) > pool.num_free()) return false;
  if (hits) coordinator_.save_new_computed_blocks(q, *hits);
  coordinator_.allocate_new_blocks(q, need);
  if (caching_) coordinator_.cache_blocks(q, std::min(computed + n_new, q.num_tokens()));
  return true;
}

}  // namespace kvplan::detail
