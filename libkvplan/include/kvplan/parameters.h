#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kvplan {

// Parameter counts by component, derived from the config. `total` counts every weight of the
// main model once (tied embeddings once); MTP / next-token-prediction layers are separate.
struct ParameterCounts {
  std::uint64_t embedding = 0;       // token (+ position) embeddings
  std::uint64_t lm_head = 0;         // 0 when tied to the embedding
  std::uint64_t attention = 0;       // all attention / MLA projections (+ biases, q/k norms)
  std::uint64_t mlp_dense = 0;       // dense MLP layers
  std::uint64_t moe_routed = 0;      // all routed experts
  std::uint64_t moe_shared = 0;      // shared experts
  std::uint64_t moe_router = 0;      // gates / routers
  std::uint64_t mixer = 0;           // SSM / linear-attention / short-conv mixers
  std::uint64_t norms = 0;           // layer norms
  std::uint64_t other = 0;           // anything else (indexer, per-layer inputs, ...)
  std::uint64_t mtp = 0;             // DeepSeek-style multi-token-prediction layers (not in total)
  std::uint64_t total = 0;           // sum of all components but mtp
  std::uint64_t active = 0;          // parameters used per token (routed experts: top-k only)
  std::uint64_t total_without_embeddings() const { return total - embedding; }
  std::vector<std::string> notes;    // how the count was derived where it is an estimate
};

}  // namespace kvplan
