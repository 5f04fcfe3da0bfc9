// StableLM (transformers stablelm, modeling_stablelm.py): every layer is plain full attention.
// Weights: not counted. StableLM's norms are LayerNorms with bias, q/k/v take a bias when
// use_qkv_bias, qk_layernorm adds one LayerNorm per head on q and k, and use_parallel_residual drops
// post_attention_layernorm. No rule is proven against a published count yet, so the weights are
// unknown (--weights, or the checkpoint's headers).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> stablelm() {
  return {Family{.name = "stablelm",
                 .model_types = {"stablelm"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "StableLM: LayerNorms with bias, use_qkv_bias, per-head qk_layernorm, "
                                         "use_parallel_residual");
                     }}};
}

}  // namespace kvplan::detail::families
