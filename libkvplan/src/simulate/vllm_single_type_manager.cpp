// vLLM V1's per-kind KV cache managers (vllm_single_type_manager.h).
#include "simulate/vllm_single_type_manager.h"

#include <algorithm>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "simulate/rng.h"

namespace kvplan::detail {

Group make_group(const VllmGroup& g, const std::string& mamba_cache_mode) {
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
    x.mamba_blocks = mamba_cache_mode == "align" ? 2 : 1;
    x.mamba_all = mamba_cache_mode == "all";
  }
  return x;
}

std::uint64_t required_blocks(const Group& g, std::uint64_t tokens) {
  if (g.kind == GroupKind::mamba) return g.mamba_all ? ceil_div(tokens, g.block) : g.mamba_blocks;
  return ceil_div(tokens, g.block);
}

void find_longest_cache_hit(const Group& g, std::size_t gi, const BlockPool& pool, const std::vector<std::uint64_t>& h,
                            std::uint64_t max_len, std::vector<std::uint32_t>& out) {
  out.clear();
  if (g.kind == GroupKind::mamba) return;
  const std::uint64_t n = max_len / g.block;
  if (g.kind == GroupKind::chunked) {
    // ChunkedLocalAttentionManager.find_longest_cache_hit: the blocks before the chunk that
    // holds max_len are out of every later token's window, so they count as computed (null);
    // from the chunk's first block on, the cached blocks left to right until the first miss.
    const std::uint64_t start = g.window ? max_len / g.window * g.window / g.block : 0;
    out.assign(std::min(start, n), kNull);
    for (std::uint64_t i = out.size(); i < n; ++i) {
      const std::uint32_t b = pool.get_cached(hash_mix(h[i], gi));
      if (b == kNone) break;
      out.push_back(b);
    }
    return;
  }
  if (g.kind == GroupKind::full) {
    // FullAttentionManager: left to right until the first miss.
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint32_t b = pool.get_cached(hash_mix(h[i], gi));
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
    const std::uint32_t b = pool.get_cached(hash_mix(h[k], gi));
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

void remove_skipped_blocks(const Group& g, BlockPool& pool, std::vector<std::uint32_t>& table, std::uint64_t computed,
                           std::vector<std::uint32_t>& removed) {
  std::uint64_t skipped = 0;
  if (g.kind == GroupKind::sliding) skipped = computed + 1 > g.window ? computed + 1 - g.window : 0;
  else if (g.kind == GroupKind::chunked && g.window) skipped = computed / g.window * g.window;
  else return;
  const std::uint64_t nb = std::min<std::uint64_t>(skipped / g.block, table.size());
  removed.clear();
  for (std::uint64_t i = nb; i-- > 0;) {
    if (table[i] == kNull) break;
    removed.push_back(table[i]);
    table[i] = kNull;
  }
  if (!removed.empty()) pool.free_blocks(removed);
}

}  // namespace kvplan::detail
