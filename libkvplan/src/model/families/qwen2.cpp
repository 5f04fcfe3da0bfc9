// Qwen2 / Qwen2-MoE / Qwen3 / Qwen3-MoE: sliding only when use_sliding_window, and only for
// layers >= max_window_layers (transformers Qwen2Config), unless layer_types says otherwise.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
void map_qwen(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    const bool use = c.boolean("use_sliding_window").value_or(false);
    slots.assign(n, Slot::full);
    if (use && c.has("sliding_window")) {
      const std::uint64_t first = c.uint("max_window_layers", true).value_or(28);
      for (std::uint64_t i = first; i < n; ++i) slots[i] = Slot::sliding;
    }
  }
  add_attention_layers(x, slots, a);
}

}  // namespace

std::vector<Family> qwen2() {
  return {Family{.name = "qwen2",
                 .model_types = {"qwen2"},
                 .map_layers = map_qwen,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.qkv_bias_only = true}); }},
          Family{.name = "qwen2_moe",
                 .model_types = {"qwen2_moe"},
                 .map_layers = map_qwen,
                 .count_params =
                     [](const ParamCtx& x) { llama_like(x, {.qkv_bias_only = true, .qwen2_shared_expert = true}); }},
          Family{.name = "qwen3",
                 .model_types = {"qwen3", "qwen3_moe"},
                 .map_layers = map_qwen,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.qk_norm = true}); }}};
}

}  // namespace kvplan::detail::families
