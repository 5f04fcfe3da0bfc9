#pragma once
// vLLM V1's engine core as the simulator runs it: the Scheduler (vllm_scheduler.h) over the
// KVCacheManager (vllm_kv_cache_manager.h), its KVCacheCoordinator (vllm_kv_cache_coordinator.h),
// the single-type managers (vllm_single_type_manager.h) and the BlockPool (vllm_block_pool.h),
// each in its own unit as in vllm/v1/core/. Private: the public API is kvplan/simulate.h.
//
// Simulator is the Scheduler with handles on its KV cache manager, so that one object can be
// driven the way vLLM's tests drive KVCacheManager (test_prefix_caching.py,
// test_single_type_kv_cache_manager.py) and Scheduler (test_scheduler.py).
#include <cstdint>
#include <utility>
#include <vector>

#include "simulate/vllm_scheduler.h"

namespace kvplan::detail {

class Simulator : public Scheduler {
 public:
  Simulator(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o) : Scheduler(m, gpu, o) { bind(); }
  Simulator(VllmResult profile, const SimOptions& o, StepTimer timer) : Scheduler(std::move(profile), o, std::move(timer)) {
    bind();
  }
  Simulator(Simulator&& s) noexcept : Scheduler(std::move(s)) { bind(); }
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  Simulator& operator=(Simulator&&) = delete;

  // KVCacheManager.
  std::uint64_t get_computed_blocks(Req& q, GroupBlocks& hits) { return kv_cache_manager_.get_computed_blocks(q, hits); }
  bool allocate_slots(Req& q, std::uint64_t n_new, GroupBlocks* hits, std::uint64_t n_hit, bool full_sequence_must_fit = false) {
    return kv_cache_manager_.allocate_slots(q, n_new, hits, n_hit, full_sequence_must_fit);
  }
  void free_request(Req& q) { kv_cache_manager_.free(q); }
  // KVCacheCoordinator and the single-type managers.
  std::uint64_t num_blocks_to_allocate(const Req& q, std::uint64_t need, const GroupBlocks* hits,
                                       bool admission_cap = false) const {
    return kv_cache_manager_.coordinator().get_num_blocks_to_allocate(q, need, hits, admission_cap);
  }
  void remove_skipped(std::size_t gi, Req& q, std::uint64_t computed) {
    kv_cache_manager_.coordinator().remove_skipped_blocks(gi, q, computed);
  }
  void ensure_hashes(Req& q, std::size_t slot, std::uint64_t nblocks) const {
    kv_cache_manager_.coordinator().ensure_hashes(q, slot, nblocks);
  }
  void find_hit(std::size_t gi, Req& q, std::uint64_t max_len, std::vector<std::uint32_t>& out) {
    kv_cache_manager_.coordinator().find_hit(gi, q, max_len, out);
  }

  BlockPool* pool_ = nullptr;        // the coordinator's block pool
  const Group* groups_ = nullptr;    // the coordinator's groups, by index

 private:
  void bind() {
    pool_ = &kv_cache_manager_.block_pool();
    groups_ = kv_cache_manager_.coordinator().groups_.data();
  }
};

}  // namespace kvplan::detail
