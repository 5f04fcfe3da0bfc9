// OLMo and OLMo 2 (transformers olmo / olmo2, modeling_olmo.py / modeling_olmo2.py): every layer is
// plain full attention. Weights: not counted. OLMo's LayerNorms have no parameters at all
// (OlmoLayerNorm); OLMo 2 has q_norm over the whole query width and k_norm over the whole key
// width, and post_attention_layernorm / post_feedforward_layernorm after the blocks (no input
// norm). Neither is the generic estimate, and no rule is proven against a published count yet,
// so the weights are unknown (--weights, or the checkpoint's headers).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> olmo() {
  return {Family{.name = "olmo",
                 .model_types = {"olmo"},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) { no_weight_rule(x, "OLMo: LayerNorms without parameters"); }},
          Family{.name = "olmo2",
                 .model_types = {"olmo2"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "OLMo 2: full-width q_norm and k_norm, norms after attention and MLP");
                     }}};
}

}  // namespace kvplan::detail::families
