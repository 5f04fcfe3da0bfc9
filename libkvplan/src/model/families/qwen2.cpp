// Qwen2 / Qwen2-MoE / Qwen3 / Qwen3-MoE, and MiMo (a Qwen2 with MTP layers): sliding only when
// use_sliding_window, and only for layers >= max_window_layers (transformers Qwen2Config), unless
// layer_types says otherwise.
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

// MiMo (vLLM mimo.py MiMoForCausalLM: a Qwen2 model): q/k/v biases; the MTP layers
// (num_nextn_predict_layers) are a separate draft model and hold no weights of the main model.
void count_mimo(const ParamCtx& x) {
  llama_like(x, {.qkv_bias_only = true});
  if (auto mtp = x.c.uint("num_nextn_predict_layers", true); mtp && *mtp)
    x.note("mimo: the " + std::to_string(*mtp) + " MTP layer(s) are a separate draft model; not counted");
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
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.qk_norm = true}); }},
          Family{.name = "mimo", .model_types = {"mimo"}, .map_layers = map_qwen, .count_params = count_mimo}};
}

}  // namespace kvplan::detail::families
