// GPT-NeoX / Pythia: one KV head per query head, fused query_key_value with bias.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

// GPT-NeoX / Pythia: fused query_key_value with bias, two LayerNorms per layer, biased MLP.
void count_gpt_neox(const ParamCtx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  const bool bias = x.c.boolean("attention_bias").value_or(true);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const build::AttnDims a = x.attn(i);
    const std::string p = "gpt_neox.layers.*.";
    x.inv.norm(C::norms, p + "input_layernorm", h, true);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h, true);
    x.inv.linear(C::attention, p + "attention.query_key_value", (x.heads() + 2 * a.kv) * a.k_dim, h, bias);
    x.inv.linear(C::attention, p + "attention.dense", h, x.heads() * a.v_dim, bias);
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "dense_h_to_4h", "dense_4h_to_h");
  }
  x.inv.norm(C::norms, "gpt_neox.final_layer_norm", h, true);
  embeddings(x.inv, x.m, "gpt_neox.embed_in.weight", "embed_out");
}

}  // namespace

std::vector<Family> gpt_neox() {
  return {Family{.name = "gpt_neox",
                 .model_types = {"gpt_neox"},
                 .map_layers = map_plain_attention,
                 .count_params = count_gpt_neox,
                 .kv_heads = kv_heads_all}};
}

}  // namespace kvplan::detail::families
