// Hunyuan 3 / Hy3 (model_type hy_v3, HYV3ForCausalLM; NeMo AutoModel's and Modular MAX's HYV3Config
// are Llama-3-shaped: num_key_value_heads heads of head_dim, qk_norm, MoE after
// first_k_dense_replace dense layers): every one of the num_hidden_layers layers is full causal
// attention. The num_nextn_predict_layers MTP layer is a separate draft model, outside
// num_hidden_layers. Hunyuan's cross-layer attention (use_cla / cla_share_factor, Hunyuan-Large)
// would share K/V between layers: a hy_v3 config that turns it on is refused, not sized as if
// every layer kept its own.
//
// Weights: not counted (192 routed experts + a shared one; no rule proven yet).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
void map_hy_v3(const LoadCtx& x) {
  if (x.cfg.boolean("use_cla").value_or(false)) reject_unmapped(x, {"use_cla"});
  map_plain_attention(x);
}
}  // namespace

std::vector<Family> hy_v3() {
  return {Family{.name = "hy_v3",
                 .model_types = {"hy_v3"},
                 .map_layers = map_hy_v3,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "Hy3: 192 routed experts and a shared expert, not proven against a published "
                                     "count");
                 }}};
}

}  // namespace kvplan::detail::families
