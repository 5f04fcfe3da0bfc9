// DeepSeek-MoE / DeepSeek LLM (model_type deepseek, the checkpoints' own modeling_deepseek.py):
// every layer is plain multi-head attention (not MLA).
//
// Weights, tensor by tensor: DeepseekAttention's q_proj, k_proj, v_proj, o_proj (a bias each when
// attention_bias, default false); layer i is a DeepseekMoE block when n_routed_experts is set,
// i >= first_k_dense_replace (default 0) and i % moe_layer_freq == 0 (default 1), otherwise a
// DeepseekMLP of intermediate_size (gate_proj, up_proj, down_proj, no bias). DeepseekMoE: the
// MoEGate weight (n_routed_experts x hidden, no bias), n_routed_experts DeepseekMLPs of
// moe_intermediate_size (num_experts_per_tok of them per token) and, when n_shared_experts is set,
// one shared DeepseekMLP of moe_intermediate_size x n_shared_experts; input_layernorm and
// post_attention_layernorm (RMSNorm); the final norm; embed_tokens and lm_head (untied unless
// tie_word_embeddings, default false). Proven against DeepSeek-MoE-16B's published 16.376B
// (tests/data/weights/README.md).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using C = WeightComponent;

void count_deepseek_v1(const ParamCtx& x) {
  const auto& c = x.c;
  const std::uint64_t h = x.h(), experts = x.m.dims.num_experts;
  const bool bias = c.boolean("attention_bias").value_or(false);
  const std::uint64_t first_dense = c.uint("first_k_dense_replace", true).value_or(0);
  const std::uint64_t freq = c.uint("moe_layer_freq").value_or(1);  // a positive integer when set
  const std::string p = "model.layers.*.";
  for (std::size_t i = 0; i < x.n(); ++i) {
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), AttnStyle{.qkv_bias = bias, .o_bias = bias});
    if (experts > 0 && i >= first_dense && i % freq == 0) {
      if (x.m.dims.moe_intermediate_size == 0)
        c.fail("moe_intermediate_size", "a positive expert width (the model has routed experts)", nullptr);
      MoeStyle ms;
      ms.prefix = p + "mlp.";
      ms.shared_i = checked_mul(x.m.dims.moe_intermediate_size, c.uint("n_shared_experts", true).value_or(0),
                                "DeepSeek-MoE shared experts");
      ms.shared = "shared_experts.";
      moe_block(x, ms, experts, top_k(x), x.m.dims.moe_intermediate_size);
    } else {
      gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
    }
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> deepseek_v1() {
  return {Family{.name = "deepseek",
                 .model_types = {"deepseek"},
                 .map_layers = map_plain_attention,
                 .count_params = count_deepseek_v1}};
}

}  // namespace kvplan::detail::families
