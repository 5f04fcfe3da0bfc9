// Granite MoE (transformers granitemoe, modeling_granitemoe.py; Granite 3.0 1B-A400M / 3B-A800M):
// every layer is full causal attention, so the cache is plain attention. Weights, tensor by
// tensor: GraniteMoeAttention's q_proj, k_proj, v_proj, o_proj (bias attention_bias);
// GraniteMoeMoE's router (GraniteMoeTopKGating.layer: num_local_experts x hidden, no bias),
// input_linear (GraniteMoeParallelExperts: num_local_experts x 2 intermediate_size x hidden, the
// gate and up halves) and output_linear (num_local_experts x hidden x intermediate_size), top
// num_experts_per_tok experts per token; input_layernorm and post_attention_layernorm; the final
// norm; embed_tokens and lm_head (one tensor when tie_word_embeddings, as in the Granite 3.0
// checkpoints; GraniteMoeConfig's default is untied). The muP multipliers (embedding_multiplier, logits_scaling, ...) are scalars
// of the config, not weights.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;

void count_granitemoe(const ParamCtx& x) {
  const auto& d = x.m.dims;
  if (d.num_experts == 0) x.c.fail("num_local_experts", "a positive number of routed experts (Granite MoE)", nullptr);
  const u64 h = x.h(), i = d.intermediate_size, e = d.num_experts, k = top_k(x);
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const std::string p = "model.layers.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(l), AttnStyle{.qkv_bias = bias, .o_bias = bias});
    x.inv.linear(C::moe_router, p + "block_sparse_moe.router.layer", e, h);
    x.inv.linear(C::moe_routed, p + "block_sparse_moe.input_linear", checked_mul(2, i, "Granite MoE input_linear"), h, false, e, k);
    x.inv.linear(C::moe_routed, p + "block_sparse_moe.output_linear", h, i, false, e, k);
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> granitemoe() {
  return {Family{.name = "granitemoe",
                 .model_types = {"granitemoe"},
                 .map_layers = map_plain_attention,
                 .count_params = count_granitemoe}};
}

}  // namespace kvplan::detail::families
