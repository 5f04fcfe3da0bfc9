// Phi-1/1.5/2: transformers' schema (model_type "phi") and the remote-code schema (phi-msft);
// plain attention, parallel block with one LayerNorm.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

// Phi-2's remote-code schema (phi-msft): parallel block, one LayerNorm, fused Wqkv, a head with
// its own LayerNorm and bias.
void count_phi_msft(const ParamCtx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const build::AttnDims a = x.attn(i);
    const std::string p = "transformer.h.*.";
    x.inv.norm(C::norms, p + "ln", h, true);
    x.inv.linear(C::attention, p + "mixer.Wqkv", (x.heads() + 2 * a.kv) * a.k_dim, h, true);
    x.inv.linear(C::attention, p + "mixer.out_proj", h, x.heads() * a.k_dim, true);
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "fc1", "fc2");
  }
  x.inv.norm(C::norms, "lm_head.ln", h, true);
  embeddings(x.inv, x.m, "transformer.embd.wte.weight", "lm_head.linear", true);
}

// Phi-1/1.5/2 in transformers' current schema (model_type "phi"): parallel block with one
// LayerNorm, q/k/v/dense with biases, fc1/fc2 with biases, optional q/k LayerNorms, a biased head.
void count_phi(const ParamCtx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  const bool qk_ln = x.c.boolean("qk_layernorm").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const build::AttnDims a = x.attn(i);
    const std::string p = "model.layers.*.";
    x.inv.norm(C::norms, p + "input_layernorm", h, true);
    x.inv.linear(C::attention, p + "self_attn.q_proj", x.heads() * a.k_dim, h, true);
    x.inv.linear(C::attention, p + "self_attn.k_proj", a.kv * a.k_dim, h, true);
    x.inv.linear(C::attention, p + "self_attn.v_proj", a.kv * a.v_dim, h, true);
    x.inv.linear(C::attention, p + "self_attn.dense", h, x.heads() * a.v_dim, true);
    if (qk_ln) {
      x.inv.norm(C::attention, p + "self_attn.q_layernorm", a.k_dim, true);
      x.inv.norm(C::attention, p + "self_attn.k_layernorm", a.k_dim, true);
    }
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "fc1", "fc2");
  }
  x.inv.norm(C::norms, "model.final_layernorm", h, true);
  embeddings(x.inv, x.m, "model.embed_tokens.weight", "lm_head", true);
}

}  // namespace

std::vector<Family> phi() {
  return {Family{.name = "phi", .model_types = {"phi"}, .map_layers = map_plain_attention, .count_params = count_phi},
          Family{.name = "phi-msft",
                 .model_types = {"phi-msft"},
                 .map_layers = map_plain_attention,
                 .count_params = count_phi_msft,
                 .tie_word_embeddings = true}};
}

}  // namespace kvplan::detail::families
