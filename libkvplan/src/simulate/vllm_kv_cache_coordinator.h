#pragma once
// vLLM V1's KV cache coordinator (vllm/v1/core/kv_cache_coordinator.py): the block pool and one
// single-type manager per KV cache group; the cache-hit search over every group (the hybrid
// coordinator's fixed point: each group's hit shortens the common length until all agree),
// the blocks to allocate summed over the groups, and allocation, caching and freeing group by
// group.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kvplan/engines.h"
#include "simulate/vllm_block_pool.h"
#include "simulate/vllm_request.h"
#include "simulate/vllm_single_type_manager.h"

namespace kvplan::detail {

using GroupBlocks = std::vector<std::vector<std::uint32_t>>;  // per group (KVCacheBlocks.blocks)

class KVCacheCoordinator {
 public:
  KVCacheCoordinator(const VllmResult& profile, bool caching);

  // The request's block hashes at slot's block size, at least `nblocks` of them.
  void ensure_hashes(Req& q, std::size_t slot, std::uint64_t nblocks) const;
  // Group gi's find_longest_cache_hit up to max_len tokens.
  void find_hit(std::size_t gi, Req& q, std::uint64_t max_len, std::vector<std::uint32_t>& out);
  // find_longest_cache_hit over every group (HybridKVCacheCoordinator's fixed point; one group:
  // UnitaryKVCacheCoordinator): the hit length, each group's hit blocks cut to it.
  std::uint64_t find_longest_cache_hit(Req& q, std::uint64_t max_len, GroupBlocks& hits);
  // get_num_blocks_to_allocate summed over the groups: the blocks the request still lacks for
  // `need` tokens (beyond those it holds and its hits), plus every hit block that sits in the
  // free queue (ref count 0), since taking it removes it from there. `admission_cap`:
  // sliding-window and chunked-local groups need at most their per-request cap.
  std::uint64_t get_num_blocks_to_allocate(const Req& q, std::uint64_t need, const GroupBlocks* hits,
                                           bool admission_cap) const;
  void remove_skipped_blocks(Req& q, std::uint64_t computed);
  void remove_skipped_blocks(std::size_t gi, Req& q, std::uint64_t computed);
  // save_new_computed_blocks: the hit blocks join the request's tables (touched out of the free queue).
  void save_new_computed_blocks(Req& q, const GroupBlocks& hits);
  // allocate_new_blocks: every group's table grows to cover `need` tokens.
  void allocate_new_blocks(Req& q, std::uint64_t need);
  // cache_blocks: the full blocks of the first `tokens` tokens enter the prefix cache.
  void cache_blocks(Req& q, std::uint64_t tokens);
  // free: every group's blocks, in reverse order (tail blocks are evicted first).
  void free(Req& q);

  std::vector<Group> groups_;
  std::vector<std::uint64_t> slot_sizes_;  // the distinct block sizes (one hash list each)
  std::unique_ptr<BlockPool> pool_;
  bool caching_ = true, has_mamba_ = false;

 private:
  std::vector<std::uint32_t> removed_;
};

}  // namespace kvplan::detail
