#pragma once
// vLLM V1's KV cache manager (vllm/v1/core/kv_cache_manager.py KVCacheManager): the
// scheduler's interface to the coordinator: get_computed_blocks (the prefix-cache hit a waiting
// request starts from; the last token is always recomputed), allocate_slots (the blocks for a
// step's new tokens, or refusal; with full_sequence_must_fit the whole sequence's blocks must be
// free) and free.
#include <cstdint>

#include "kvplan/engines.h"
#include "simulate/vllm_kv_cache_coordinator.h"

namespace kvplan::detail {

class KVCacheManager {
 public:
  KVCacheManager(const VllmResult& profile, bool enable_caching);

  // get_computed_blocks: the hit length in tokens, each group's hit blocks into `hits`.
  std::uint64_t get_computed_blocks(Req& q, GroupBlocks& hits);
  // allocate_slots: room for n_new tokens after the request's computed tokens and its n_hit hit
  // tokens (`hits`: the blocks from get_computed_blocks, for a waiting request), or false.
  bool allocate_slots(Req& q, std::uint64_t n_new, GroupBlocks* hits, std::uint64_t n_hit,
                      bool full_sequence_must_fit = false);
  void free(Req& q) { coordinator_.free(q); }

  KVCacheCoordinator& coordinator() { return coordinator_; }
  const KVCacheCoordinator& coordinator() const { return coordinator_; }
  BlockPool& block_pool() { return *coordinator_.pool_; }
  bool enable_caching() const { return caching_; }
  std::uint64_t max_model_len() const { return M_; }

 private:
  static const VllmResult& checked(const VllmResult& profile);
  KVCacheCoordinator coordinator_;
  bool caching_ = true;
  std::uint64_t M_ = 0;
  bool simple_ = false;  // every group full attention with one power-of-two block size
  std::uint64_t simple_block_ = 1, simple_shift_ = 0;
};

}  // namespace kvplan::detail
