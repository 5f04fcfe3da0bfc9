// vLLM V1's per-kind KV cache managers (vllm_single_type_manager.h).
#include "simulate/vllm_single_type_manager.h"

#include <algorithm>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "simulate/rng.h"

namespace kvplan::detail {

bool full_attention_manager(VllmGroupKind k) {
  switch (k) {
    case VllmGroupKind::full_attention:
    case VllmGroupKind::mla: return true;
    case VllmGroupKind::sliding_window:
    case VllmGroupKind::chunked_local:
    case VllmGroupKind::mamba: return false;
  }
  return false;
}

Group make_group(const VllmGroup& g, const std::string& mamba_cache_mode) {
  Group x;
  x.kind = g.kind;
  x.block = g.block_size;
  x.window = g.window;
  if (x.block == 0) throw Error("kvplan simulate: internal error: a KV cache group with block size 0");
  // The recycling-aware admission cap (SlidingWindowSpec.max_admission_blocks_per_request and
  // its chunked-local counterpart) is the per-request bound the profile sizes the pool with.
  switch (x.kind) {
    case VllmGroupKind::sliding_window:
      x.contiguous = std::max<std::uint64_t>(1, ceil_div(x.window - 1, x.block));
      x.admission_cap = g.blocks_per_request;
      break;
    case VllmGroupKind::chunked_local:
      x.admission_cap = g.blocks_per_request;
      break;
    case VllmGroupKind::mamba:
      x.mamba_blocks = mamba_cache_mode == "align" ? 2 : 1;
      x.mamba_all = mamba_cache_mode == "all";
      break;
    case VllmGroupKind::full_attention:
    case VllmGroupKind::mla:
      break;
  }
  return x;
}

std::uint64_t required_blocks(const Group& g, std::uint64_t tokens) {
  if (g.kind == VllmGroupKind::mamba) return g.mamba_all ? ceil_div(tokens, g.block) : g.mamba_blocks;
  return ceil_div(tokens, g.block);
}

namespace {

// FullAttentionManager: left to right until the first miss.
void full_attention_hit(std::size_t gi, const BlockPool& pool, const std::vector<std::uint64_t>& h, std::uint64_t n,
                        std::vector<std::uint32_t>& out) {
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t b = pool.get_cached(hash_mix(h[i], gi));
    if (b == kNone) break;
    out.push_back(b);
  }
}

// ChunkedLocalAttentionManager.find_longest_cache_hit: the blocks before the chunk that holds
// max_len are out of every later token's window, so they count as computed (null); from the
// chunk's first block on, the cached blocks left to right until the first miss.
void chunked_local_hit(const Group& g, std::size_t gi, const BlockPool& pool, const std::vector<std::uint64_t>& h,
                       std::uint64_t max_len, std::uint64_t n, std::vector<std::uint32_t>& out) {
  const std::uint64_t start = g.window ? max_len / g.window * g.window / g.block : 0;
  out.assign(std::min(start, n), kNull);
  for (std::uint64_t i = out.size(); i < n; ++i) {
    const std::uint32_t b = pool.get_cached(hash_mix(h[i], gi));
    if (b == kNone) break;
    out.push_back(b);
  }
}

// SlidingWindowManager.find_longest_cache_hit: right to left, stop at the first run of
// `contiguous` cached blocks; the blocks before it are null.
void sliding_window_hit(const Group& g, std::size_t gi, const BlockPool& pool, const std::vector<std::uint64_t>& h,
                        std::uint64_t n, std::vector<std::uint32_t>& out) {
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

}  // namespace

void find_longest_cache_hit(const Group& g, std::size_t gi, const BlockPool& pool, const std::vector<std::uint64_t>& h,
                            std::uint64_t max_len, std::vector<std::uint32_t>& out) {
  out.clear();
  switch (g.kind) {
    case VllmGroupKind::mamba: return;
    case VllmGroupKind::chunked_local: return chunked_local_hit(g, gi, pool, h, max_len, max_len / g.block, out);
    case VllmGroupKind::full_attention:
    case VllmGroupKind::mla: return full_attention_hit(gi, pool, h, max_len / g.block, out);
    case VllmGroupKind::sliding_window: return sliding_window_hit(g, gi, pool, h, max_len / g.block, out);
  }
}

void remove_skipped_blocks(const Group& g, BlockPool& pool, std::vector<std::uint32_t>& table, std::uint64_t computed,
                           std::vector<std::uint32_t>& removed) {
  std::uint64_t skipped = 0;
  switch (g.kind) {
    case VllmGroupKind::sliding_window:
      skipped = computed + 1 > g.window ? computed + 1 - g.window : 0;
      break;
    case VllmGroupKind::chunked_local:
      if (!g.window) return;
      skipped = computed / g.window * g.window;
      break;
    case VllmGroupKind::full_attention:
    case VllmGroupKind::mla:
    case VllmGroupKind::mamba:
      return;
  }
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
