#pragma once
// vLLM V1's per-kind KV cache managers (vllm/v1/core/single_type_kv_cache_manager.py): one
// KV cache group's rules for how many blocks a request needs, which blocks a cache hit may use
// (find_longest_cache_hit) and which blocks fall out of the attention window
// (remove_skipped_blocks). FullAttentionManager (also MLA), SlidingWindowManager,
// ChunkedLocalAttentionManager and MambaManager, chosen by the group's VllmGroupKind (engines.h)
// as spec_manager_map does; the block tables themselves live in Req.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/engines.h"
#include "simulate/vllm_block_pool.h"

namespace kvplan::detail {

// One KV cache group (its KVCacheSpec as the managers need it).
struct Group {
  VllmGroupKind kind = VllmGroupKind::full_attention;
  std::uint64_t block = 16, window = 0;
  std::size_t slot = 0;                // which block-size hash list it uses
  std::uint64_t mamba_blocks = 1;      // blocks a running request holds (Mamba)
  bool mamba_all = false;              // Mamba "all" mode: one block per block_size tokens
  std::uint64_t contiguous = 1;        // sliding window: blocks a hit needs
  std::uint64_t admission_cap = 0;     // sliding window, chunked local: blocks one request holds at most (0: none)
};

// FullAttentionManager serves FullAttentionSpec and MLAAttentionSpec (spec_manager_map).
bool full_attention_manager(VllmGroupKind k);

// The group a profile's KV cache group becomes (`mamba_cache_mode`: the profile's).
Group make_group(const VllmGroup& g, const std::string& mamba_cache_mode);

// get_num_blocks_to_allocate's required blocks for `tokens` tokens.
std::uint64_t required_blocks(const Group& g, std::uint64_t tokens);

// find_longest_cache_hit for group `gi` over the request's block hashes `h` (at least
// max_len / g.block of them) up to `max_len` tokens: the hit blocks (null where a block is
// outside every later token's window), into `out`.
void find_longest_cache_hit(const Group& g, std::size_t gi, const BlockPool& pool, const std::vector<std::uint64_t>& h,
                            std::uint64_t max_len, std::vector<std::uint32_t>& out);

// remove_skipped_blocks: blocks of `table` wholly outside the window at `computed` tokens become
// the null block and are freed (last first); `removed` is scratch.
void remove_skipped_blocks(const Group& g, BlockPool& pool, std::vector<std::uint32_t>& table, std::uint64_t computed,
                           std::vector<std::uint32_t>& removed);

}  // namespace kvplan::detail
