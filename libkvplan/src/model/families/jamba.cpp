// Jamba: one attention layer per attn_layer_period (at attn_layer_offset), Mamba-1 elsewhere;
// MoE on every expert_layer_period-th layer.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_jamba(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  const u64 hidden = hidden_size(c);
  const u64 d_inner = checked_mul(c.require_uint("mamba_expand"), hidden, "d_inner");
  const u64 d_state = c.require_uint("mamba_d_state");
  const auto m = build::mamba1(d_inner, d_state, c.require_uint("mamba_d_conv"));
  reject_unmapped(x, {"sliding_window"});
  const u64 period = c.uint("attn_layer_period").value_or(8);
  const u64 offset = c.uint("attn_layer_offset", true).value_or(4);
  if (offset >= period) c.fail_at(c.pointer("attn_layer_offset"), "an offset below attn_layer_period", std::to_string(offset));
  for (u64 i = 0; i < n; ++i) {
    if (i % period == offset) x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim));
    else x.add(i, m);
  }
}

void count_jamba(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const u64 r = dt_rank(x, "mamba_dt_rank");
  const bool proj_bias = c.boolean("mamba_proj_bias").value_or(false);
  const bool conv_bias = c.boolean("mamba_conv_bias").value_or(true);
  const u64 period = c.uint("expert_layer_period").value_or(2);
  const u64 offset = c.uint("expert_layer_offset", true).value_or(1);
  const u64 e = x.m.dims.num_experts;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    if (const auto mb = build::mamba1_dims(x.cache(i))) {
      mamba1_mixer(x, p + "mamba.", *mb, r, proj_bias, conv_bias, true);
    } else {
      attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), AttnStyle{});
    }
    if (e > 1 && i % period == offset) {
      MoeStyle ms;
      ms.prefix = p + "feed_forward.";
      ms.gate = "router";
      moe_block(x, ms, e, top_k(x), x.m.dims.intermediate_size);
    } else {
      gated_mlp(x.inv, C::mlp_dense, p + "feed_forward.", h, x.m.dims.intermediate_size);
    }
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "pre_ff_layernorm", h);
  }
  x.inv.norm(C::norms, "model.final_layernorm", h);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> jamba() {
  return {Family{.name = "jamba", .model_types = {"jamba"}, .map_layers = map_jamba, .count_params = count_jamba}};
}

}  // namespace kvplan::detail::families
