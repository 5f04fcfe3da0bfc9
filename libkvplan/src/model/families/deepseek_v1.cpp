// DeepSeek-MoE / DeepSeek LLM (model_type deepseek, the checkpoints' own modeling_deepseek.py):
// every layer is plain multi-head attention (not MLA). Weights: not counted yet. The MoE model has
// first_k_dense_replace dense layers, then one MoE block every moe_layer_freq layers with
// n_routed_experts of moe_intermediate_size and n_shared_experts shared experts. The generic
// estimate refuses routed experts; no rule is proven against a published count yet, so the weights
// are unknown (--weights, or the checkpoint's headers).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> deepseek_v1() {
  return {Family{.name = "deepseek",
                 .model_types = {"deepseek"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "DeepSeek-MoE: first_k_dense_replace dense layers, moe_layer_freq, "
                                         "shared and routed experts");
                     }}};
}

}  // namespace kvplan::detail::families
