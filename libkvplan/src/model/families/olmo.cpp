// OLMo and OLMo 2 (transformers olmo / olmo2, modeling_olmo.py / modeling_olmo2.py): every layer is
// plain full attention.
//
// OLMo's weights, tensor by tensor: OlmoAttention's q_proj, k_proj, v_proj, o_proj (a bias each
// when attention_bias, default false); OlmoMLP's gate_proj, up_proj, down_proj (no bias);
// input_layernorm, post_attention_layernorm and the final norm are OlmoLayerNorm, which has no
// parameters at all (F.layer_norm with no weight or bias); embed_tokens and lm_head (untied
// unless tie_word_embeddings, default false). Proven against two single-file float32 checkpoints
// of OLMo-1B's shape (tests/data/weights/README.md).
//
// OLMo 2's: Olmo2Attention is OlmoAttention plus q_norm, an RMSNorm over the whole query width
// (num_attention_heads x head_dim), and k_norm over the whole key width (num_key_value_heads x
// head_dim), not one head_dim each as Qwen3's; Olmo2MLP as OLMo's; no input norm: an RMSNorm
// post_attention_layernorm and post_feedforward_layernorm of hidden_size after the two blocks;
// the final norm (an RMSNorm); embed_tokens and lm_head (untied unless tie_word_embeddings, default
// false). Proven exactly against OLMo-2-1124-13B's float32 index total_size, and against
// OLMo-2-1124-7B's shard sizes (tests/data/weights/README.md).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using C = WeightComponent;

void count_olmo(const ParamCtx& x) {
  const std::uint64_t h = x.h();
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const std::string p = "model.layers.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(l), AttnStyle{.qkv_bias = bias, .o_bias = bias});
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
  }
  embeddings(x.inv, x.m);
}

void count_olmo2(const ParamCtx& x) {
  const std::uint64_t h = x.h();
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const std::string p = "model.layers.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    const build::AttnDims a = x.attn(l);
    attention(x.inv, p + "self_attn.", h, x.heads(), a, AttnStyle{.qkv_bias = bias, .o_bias = bias});
    x.inv.norm(C::attention, p + "self_attn.q_norm", checked_mul(x.heads(), a.k_dim, "OLMo 2 q_norm"));
    x.inv.norm(C::attention, p + "self_attn.k_norm", checked_mul(a.kv, a.k_dim, "OLMo 2 k_norm"));
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
    x.inv.norm(C::norms, p + "post_feedforward_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> olmo() {
  return {Family{.name = "olmo", .model_types = {"olmo"}, .map_layers = map_plain_attention, .count_params = count_olmo},
          Family{.name = "olmo2",
                 .model_types = {"olmo2"},
                 .gguf = {{.arch = "olmo2", .model_type = "olmo2"}},
                 .map_layers = map_plain_attention,
                 .count_params = count_olmo2}};
}

}  // namespace kvplan::detail::families
