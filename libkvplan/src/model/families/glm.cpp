// GLM-4 (transformers glm, modeling_glm.py) and GLM-4-0414 (glm4, modeling_glm4.py): every layer is
// plain full attention (partial rotary changes no cache shape). Weights: not counted. Both put a
// bias on q/k/v only when attention_bias (none on o_proj: the generic estimate puts one on all
// four) and fuse gate_up_proj; GLM-4-0414 adds post_self_attn_layernorm and post_mlp_layernorm
// (four RMSNorms a layer). No rule is proven against a published count yet, so the weights are
// unknown (--weights, or the checkpoint's headers).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> glm() {
  return {Family{.name = "glm",
                 .model_types = {"glm"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) { no_weight_rule(x, "GLM-4: q/k/v biases without an o_proj bias"); }},
          Family{.name = "glm4",
                 .model_types = {"glm4"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "GLM-4-0414: q/k/v biases without an o_proj bias, four RMSNorms a layer");
                     }}};
}

}  // namespace kvplan::detail::families
