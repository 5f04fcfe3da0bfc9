// Phi-3 (fused qkv_proj and gate_up_proj) and Phi-3.5-MoE: a uniform sliding window when set.
//
// Phi-3.5-MoE (transformers phimoe, modular_phimoe.py / modeling_phimoe.py), tensor by tensor:
// PhimoeAttention is LlamaAttention: q_proj, k_proj, v_proj, o_proj, each with a bias when
// attention_bias (true in Phi-3.5-MoE-instruct); PhimoeSparseMoeBlock's router (PhimoeTopKRouter,
// num_local_experts x hidden, no bias) and num_local_experts SwiGLU experts of intermediate_size
// (MixtralExperts; the checkpoint's block_sparse_moe.experts.*.w1 / w3 / w2), top
// num_experts_per_tok per token; input_layernorm and post_attention_layernorm are nn.LayerNorm
// (weight and bias), as is the final norm; embed_tokens, and lm_head with a bias when lm_head_bias
// (untied unless tie_word_embeddings).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;

void count_phimoe(const ParamCtx& x) {
  const auto& d = x.m.dims;
  if (d.num_experts == 0) x.c.fail("num_local_experts", "a positive number of routed experts (Phi-3.5-MoE)", nullptr);
  const u64 h = x.h();
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const std::string p = "model.layers.*.";
  MoeStyle ms;
  ms.prefix = p + "block_sparse_moe.";
  ms.w_gate = "w1";
  ms.w_up = "w3";
  ms.w_down = "w2";
  for (std::size_t l = 0; l < x.n(); ++l) {
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(l), AttnStyle{.qkv_bias = bias, .o_bias = bias});
    moe_block(x, ms, d.num_experts, top_k(x), d.intermediate_size);
    x.inv.norm(C::norms, p + "input_layernorm", h, true);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h, true);
  }
  x.inv.norm(C::norms, "model.norm", h, true);
  embeddings(x.inv, x.m, "model.embed_tokens.weight", "lm_head", x.c.boolean("lm_head_bias").value_or(false));
}

}  // namespace

std::vector<Family> phi3() {
  return {Family{.name = "phi3",
                 .model_types = {"phi3"},
                 .gguf = {{.arch = "phi3", .model_type = "phi3", .reads_window = true}},
                 .map_layers = map_uniform_window,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.fused_projections = true}); }},
          // Phi-3-vision (remote code modeling_phi3_v.py, model_type phi3_v; vLLM phi3v.py): a Phi-3-mini
          // text model (same attention, same uniform window rule) behind a CLIP image embedding, which
          // holds no KV cache. Weights: not counted (the CLIP tower and HD-transform projector).
          Family{.name = "phi3_v",
                 .model_types = {"phi3_v"},
                 .map_layers = map_uniform_window,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "Phi-3-vision: the CLIP image tower and projector have no proven rule");
                     }},
          Family{.name = "phimoe", .model_types = {"phimoe"}, .map_layers = map_uniform_window, .count_params = count_phimoe}};
}

}  // namespace kvplan::detail::families
