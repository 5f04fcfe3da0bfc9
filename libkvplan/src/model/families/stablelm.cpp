// StableLM (transformers stablelm, modeling_stablelm.py): every layer is plain full attention.
//
// Weights, tensor by tensor: StableLmAttention's q_proj, k_proj, v_proj (a bias each when
// use_qkv_bias, default false) and o_proj (never a bias); when qk_layernorm (default false),
// q_layernorm and k_layernorm are one bias-free LayerNorm of head_dim per head
// (StableLmLayerNormPerHead: num_attention_heads and num_key_value_heads of them); StableLmMLP's
// gate_proj, up_proj, down_proj (no bias); input_layernorm, and post_attention_layernorm unless
// use_parallel_residual (default false), each an nn.LayerNorm with weight and bias; the final norm
// (the same); embed_tokens and lm_head (untied unless tie_word_embeddings, default false).
// Proven against StableLM-3B-4E1T's published 2,795,443,200 (tests/data/weights/README.md).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using C = WeightComponent;

void count_stablelm(const ParamCtx& x) {
  const std::uint64_t h = x.h();
  const bool qkv_bias = x.c.boolean("use_qkv_bias").value_or(false);
  const bool qk_norm = x.c.boolean("qk_layernorm").value_or(false);
  const bool parallel = x.c.boolean("use_parallel_residual").value_or(false);
  const std::string p = "model.layers.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    const build::AttnDims a = x.attn(l);
    attention(x.inv, p + "self_attn.", h, x.heads(), a, AttnStyle{.qkv_bias = qkv_bias});
    if (qk_norm) {
      x.inv.norm(C::attention, p + "self_attn.q_layernorm", checked_mul(x.heads(), a.k_dim, "StableLM q_layernorm"));
      x.inv.norm(C::attention, p + "self_attn.k_layernorm", checked_mul(a.kv, a.k_dim, "StableLM k_layernorm"));
    }
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
    x.inv.norm(C::norms, p + "input_layernorm", h, /*bias=*/true);
    if (!parallel) x.inv.norm(C::norms, p + "post_attention_layernorm", h, /*bias=*/true);
  }
  x.inv.norm(C::norms, "model.norm", h, /*bias=*/true);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> stablelm() {
  return {Family{.name = "stablelm",
                 .model_types = {"stablelm"},
                 .map_layers = map_plain_attention,
                 .count_params = count_stablelm}};
}

}  // namespace kvplan::detail::families
