// Laguna (vLLM laguna.py): full and sliding-window attention named by layer_types, one KV shape
// for both; per-layer query heads (num_attention_heads_per_layer), q/k RMSNorm, a softplus output
// gate, and per layer a dense SwiGLU MLP or a sigmoid-routed MoE with a shared expert.
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;

// The bundled configs name every layer in layer_types; without it there is no rule for which
// layers slide.
void map_laguna(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    if (!x.assumed("dense"))
      throw UnsupportedArchitecture::model_type(c.source(), c.model_type(),
                                                "no mapping; pass --assume dense if it is plain attention");
    slots = plain_attention_slots(x, n);
  }
  add_attention_layers(x, slots, a);
}

// q/k RMSNorm; the output gate g_proj (gating true / "per-head": one per head, "per-element":
// heads x head_dim); mlp_layer_types "dense" a SwiGLU MLP, "sparse" a MoE with correction bias
// and a shared expert.
void count_laguna(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const auto per_layer = c.uint_list("num_attention_heads_per_layer");
  const auto mlp_types = c.string_list("mlp_layer_types");
  if (per_layer && per_layer->size() != x.n())
    c.fail_at(c.pointer("num_attention_heads_per_layer"), "one entry per layer", std::to_string(per_layer->size()));
  if (mlp_types && mlp_types->size() != x.n())
    c.fail_at(c.pointer("mlp_layer_types"), "one entry per layer", std::to_string(mlp_types->size()));
  std::string gating = "none";
  if (c.has("gating") && c.text()["gating"].is_string()) gating = *c.string("gating");
  else if (auto g = c.boolean("gating")) gating = *g ? "per-head" : "none";
  if (gating != "none" && gating != "per-head" && gating != "per-element")
    c.fail_at(c.pointer("gating"), "true, false, \"per-head\" or \"per-element\"", "\"" + gating + "\"");
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    const u64 heads = per_layer ? (*per_layer)[i] : x.heads();
    const build::AttnDims a = x.attn(i);
    AttnStyle as;
    as.qk_norm = true;
    as.qkv_bias = c.boolean("qkv_bias").value_or(false);
    as.o_bias = c.boolean("attention_bias").value_or(false);
    attention(x.inv, p + "self_attn.", h, heads, a, as);
    if (gating == "per-head") x.inv.linear(C::attention, p + "self_attn.g_proj", heads, h);
    else if (gating == "per-element") x.inv.linear(C::attention, p + "self_attn.g_proj", checked_mul(heads, a.k_dim), h);
    const bool sparse = mlp_types ? (*mlp_types)[i] == "sparse" : x.m.dims.num_experts > 0;
    if (sparse) {
      MoeStyle ms;
      ms.prefix = p + "mlp.";
      ms.router_correction_bias = true;
      ms.shared_i = c.uint("shared_expert_intermediate_size", true).value_or(0);
      moe_block(x, ms, x.m.dims.num_experts, top_k(x), x.m.dims.moe_intermediate_size);
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

std::vector<Family> laguna() {
  return {Family{.name = "laguna", .model_types = {"laguna"}, .map_layers = map_laguna, .count_params = count_laguna}};
}

}  // namespace kvplan::detail::families
