// GLM-4.5 / 4.6 / 4.5-Air (transformers glm4_moe, modeling_glm4_moe.py): every layer is plain full
// attention. Weights: not counted yet. The model is MoE: first_k_dense_replace dense layers, then
// routed experts (n_routed_experts of moe_intermediate_size, a router with
// e_score_correction_bias) beside n_shared_experts shared experts, q/k/v biases when
// attention_bias, optional use_qk_norm, and num_nextn_predict_layers MTP layers in the checkpoint.
// The generic estimate refuses routed experts; no rule is proven against a published count yet,
// so the weights are unknown (--weights, or the checkpoint's headers).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> glm4_moe() {
  return {Family{.name = "glm4_moe",
                 .model_types = {"glm4_moe"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "GLM-4.5 MoE: first_k_dense_replace dense layers, shared and routed "
                                         "experts, router e_score_correction_bias, MTP layers");
                     }}};
}

}  // namespace kvplan::detail::families
