#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
  // The routed-expert part of each layer's bytes, from the same headers (empty otherwise): what
  // llama.cpp's --n-cpu-moe N keeps off the GPU is the first N layers' share.
  std::vector<std::uint64_t> layer_experts;
  // Why the weights cannot be priced (m.params.unknown_reason: no parameter rule, or a malformed
  // quantization_config); every figure above is then 0 and means "unknown", never "no weights".
  // Empty when they can. plan, sweep and check stop with InputError::unknown_weights.
  std::string unknown;
};

// What --weight-dtype names (parse_weight_format): a plain dtype that stores every quantisable
// matrix ("bf16", "fp8_e4m3", "int8": embeddings and head included), or a preset: the model
// priced as if its checkpoint carried that quantisation, by the same rule the config and GGUF
// readers use ("awq", "gptq", "nf4", "w8a8", "fp8", "mxfp4": a quantization_config; "Q4_K_M",
// "Q8_0", "IQ4_XS", ...: llama.cpp's llama-quantize file types with its per-tensor type choice).
struct WeightFormat {
  std::optional<Dtype> dtype;  // the plain dtype; for a preset the element dtype of its matrices
                               // where kvplan has one (fp8 -> fp8_e4m3, w8a8 -> int8), else none
  std::string preset;          // canonical preset name ("awq", "Q4_K_M"); empty for a plain dtype
  WeightFormat() = default;
  WeightFormat(Dtype d) : dtype(d) {}  // NOLINT(google-explicit-constructor): a dtype is a format
};

// Presets first (case-insensitive), then dtype names; anything else is an InputError naming `what`
// and listing both.
WeightFormat parse_weight_format(std::string_view text, std::string_view what = "--weight-dtype");
std::vector<std::string> weight_preset_names();

// Without an override, a checkpoint whose headers were read (m.checkpoint_weights) gives its exact
// total, experts and MTP bytes; `active` is then the config rule's active share of its total.
WeightBytes weight_bytes(const ModelSpec& m, std::optional<WeightFormat> override_format = std::nullopt);

}  // namespace kvplan
