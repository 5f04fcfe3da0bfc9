#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/dtype.h"
#include "kvplan/model.h"

namespace kvplan {

// Bytes of the model's weights as stored for serving. By default the checkpoint's own format
// (torch_dtype, with quantization_config honoured: DeepSeek fp8 128x128 blocks incl. their
// fp32 scales, gpt-oss mxfp4 experts); `override_dtype` stores every quantisable matrix in that
// dtype instead (norms and other small vectors stay in the model dtype).
struct WeightBytes {
  std::uint64_t total = 0;          // everything that is loaded (main model, no MTP)
  std::uint64_t experts = 0;        // routed experts part of total
  std::uint64_t non_experts = 0;    // total - experts
  std::uint64_t active = 0;         // bytes read per token at batch 1 (routed experts: top-k only;
                                    // an embedding table that is not also the head: one row)
  std::uint64_t mtp = 0;            // MTP/next-n layers, not in total
  std::string scheme;               // "bf16", "fp8 (128x128 blocks) + bf16", "mxfp4 experts + bf16"
  // Where `total` came from: "config rule" (shapes from config.json priced by the scheme), or the
  // checkpoint's own headers ("safetensors headers (4 files)", "GGUF tensor infos",
  // "model.safetensors.index.json (metadata.total_size)").
  std::string source = "config rule";
  // Bytes per model layer when the headers give them (empty otherwise), for pipeline splits and
  // llama.cpp's -ngl partial offload; `outside_layers` = embeddings, head, final norm.
  std::vector<std::uint64_t> layer_bytes;
  std::uint64_t outside_layers = 0;
  // Why the weights cannot be priced (m.params.unknown_reason: no parameter rule, or a malformed
  // quantization_config); every figure above is then 0 and means "unknown", never "no weights".
  // Empty when they can. plan, sweep and check stop with InputError::unknown_weights.
  std::string unknown;
};

// Without an override, a checkpoint whose headers were read (m.checkpoint_weights) gives its exact
// total, experts and MTP bytes; `active` is then the config rule's active share of its total.
WeightBytes weight_bytes(const ModelSpec& m, std::optional<Dtype> override_dtype = std::nullopt);

}  // namespace kvplan
