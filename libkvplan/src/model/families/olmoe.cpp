// OLMoE (transformers olmoe, modeling_olmoe.py): every layer is full causal attention, so the
// cache is plain attention. Weights, tensor by tensor: OlmoeAttention's q_proj, k_proj, v_proj,
// o_proj (bias attention_bias) with q_norm over the whole query width (hidden_size) and k_norm
// over (hidden_size / num_attention_heads) x num_key_value_heads (not one head_dim each, as
// Qwen3's); OlmoeSparseMoeBlock's router gate (num_experts x hidden, no bias) and num_experts
// SwiGLU experts of intermediate_size (top num_experts_per_tok of them per token);
// input_layernorm and post_attention_layernorm; the final norm; embed_tokens and lm_head (untied
// unless tie_word_embeddings).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;

void count_olmoe(const ParamCtx& x) {
  if (x.m.dims.num_experts == 0) x.c.fail("num_experts", "a positive number of routed experts (OLMoE is a MoE model)", nullptr);
  llama_like(x, {});  // attention, router + routed experts, two RMSNorms a layer, final norm, embeddings
  const u64 h = x.h(), heads = x.heads();
  if (h % heads != 0)
    x.c.fail_at(x.c.pointer("num_attention_heads"), "a head count dividing hidden_size (" + std::to_string(h) + ")",
                std::to_string(heads));
  for (std::size_t i = 0; i < x.n(); ++i) {
    x.inv.norm(WeightComponent::attention, "model.layers.*.self_attn.q_norm", h);
    x.inv.norm(WeightComponent::attention, "model.layers.*.self_attn.k_norm", checked_mul(h / heads, x.attn(i).kv, "OLMoE k_norm"));
  }
}

}  // namespace

std::vector<Family> olmoe() {
  return {Family{.name = "olmoe", .model_types = {"olmoe"}, .map_layers = map_plain_attention, .count_params = count_olmoe}};
}

}  // namespace kvplan::detail::families
