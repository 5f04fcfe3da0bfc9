// GLM-4 (transformers glm, modeling_glm.py) and GLM-4-0414 (glm4, modeling_glm4.py): every layer is
// plain full attention (partial rotary changes no cache shape).
//
// GLM-4's weights, tensor by tensor: GlmAttention's q_proj, k_proj, v_proj (a bias each when
// attention_bias) and o_proj (never a bias: the generic estimate would put one there); GlmMLP's
// fused gate_up_proj (2 x intermediate_size rows) and down_proj, no biases; input_layernorm and
// post_attention_layernorm (RMSNorm weights); the final norm; embed_tokens and lm_head (untied
// unless tie_word_embeddings, default false). These are the remote-code ChatGLM tensors renamed
// (query_key_value, dense, dense_h_to_4h, dense_4h_to_h, ...). Proven against GLM-4-9B's exact
// count (tests/data/weights/README.md).
//
// GLM-4-0414 adds post_self_attn_layernorm and post_mlp_layernorm (four RMSNorms a layer). No rule
// is proven against a published count yet, so its weights are unknown (--weights, or the
// checkpoint's headers).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using C = WeightComponent;

void count_glm(const ParamCtx& x) {
  const std::uint64_t h = x.h(), i = x.m.dims.intermediate_size;
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const std::string p = "model.layers.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(l), AttnStyle{.qkv_bias = bias, .o_bias = false});
    x.inv.linear(C::mlp_dense, p + "mlp.gate_up_proj", checked_mul(2, i, "GLM gate_up_proj"), h);
    x.inv.linear(C::mlp_dense, p + "mlp.down_proj", h, i);
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> glm() {
  return {Family{.name = "glm", .model_types = {"glm"}, .map_layers = map_plain_attention, .count_params = count_glm},
          Family{.name = "glm4",
                 .model_types = {"glm4"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "GLM-4-0414: q/k/v biases without an o_proj bias, four RMSNorms a layer");
                     }}};
}

}  // namespace kvplan::detail::families
