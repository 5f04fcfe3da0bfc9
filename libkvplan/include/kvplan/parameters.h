#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kvplan {

// Which ParameterCounts component a weight tensor belongs to.
enum class WeightComponent { embedding, lm_head, attention, mlp_dense, moe_routed, moe_shared, moe_router, mixer,
                             norms, other };

// How a tensor is stored and read: `linear` = a projection matrix (quantisable); `embedding` = a
// lookup table (quantisable; a token reads one row unless the table is also the output head);
// `vector` = norms, biases, conv kernels, SSM constants (kept in the model dtype).
enum class WeightKind { linear, embedding, vector };

// One group of identical tensors of the checkpoint: `count` copies of a rows x cols tensor
// (rows = output features, cols = input features; a vector has rows = 1). `active_count` of
// the copies are used per token (routed experts: top-k of them per layer).
struct WeightTensor {
  std::string name;                 // HF-style name with "*" for the layer/expert index
  WeightComponent component = WeightComponent::other;
  WeightKind kind = WeightKind::linear;
  std::uint64_t rows = 1, cols = 1;
  std::uint64_t count = 1;
  std::uint64_t active_count = 1;
  bool tied_head = false;           // embedding table that is also the output head (read whole)
  bool mtp = false;                 // part of the multi-token-prediction module (not in total)
  std::uint64_t params() const;       // rows * cols * count (checked)
  std::uint64_t active_params() const;  // rows * cols * active_count (checked)
};

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
  // Why the weights cannot be priced from the config (no parameter rule, or a malformed
  // weight-only field such as quantization_config); empty when they can. The cache answer never
  // depends on it: plan, sweep and check refuse to run without --weights while it is set.
  std::string unknown_reason;
  std::vector<WeightTensor> tensors; // the inventory the counts (and weight_bytes) are built from
  // Multimodal encoders the config declares and the count includes ("vision_config",
  // "audio_config"): an engine that profiles them before sizing its cache needs their peak.
  std::vector<std::string> encoders;
};

}  // namespace kvplan
