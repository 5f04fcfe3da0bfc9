// LFM2: gated short-convolution layers and GQA attention layers (layer_types or full_attn_idxs).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_lfm2(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  const u64 channels = c.uint("conv_dim").value_or(hidden_size(c));
  const auto sc = build::short_conv(channels, c.require_uint("conv_L_cache"));
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    auto idxs = c.uint_list("full_attn_idxs");
    if (!idxs) c.fail("layer_types", "layer_types or full_attn_idxs", nullptr);
    slots.assign(n, Slot::conv);
    for (std::size_t k = 0; k < idxs->size(); ++k) {
      if ((*idxs)[k] >= n)
        c.fail_at(slot_pointer(x, "full_attn_idxs", k), "a layer index below " + std::to_string(n),
                  std::to_string((*idxs)[k]));
      slots[(*idxs)[k]] = Slot::full;
    }
  }
  for (u64 i = 0; i < n; ++i) {
    if (slots[i] == Slot::full) x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim));
    else if (slots[i] == Slot::conv) x.add(i, sc);
    else c.fail_at(slot_pointer(x, "layer_types", i), "conv or full_attention", "another type");
  }
}

// LFM2: gated short-convolution or GQA attention (with q/k layernorms), SwiGLU MLP whose width
// is auto-adjusted from block_ff_dim like transformers' Lfm2MLP.
void count_lfm2(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  u64 ff = c.uint_any({"block_ff_dim", "intermediate_size"}).value_or(12288);
  if (c.boolean("block_auto_adjust_ff_dim").value_or(true)) {
    ff = 2 * ff / 3;
    if (auto mult = c.number("block_ffn_dim_multiplier")) ff = static_cast<u64>(*mult * static_cast<double>(ff));
    const u64 multiple = c.uint("block_multiple_of").value_or(256);
    ff = multiple * ceil_div(ff, multiple);
  }
  const bool conv_bias = c.boolean("conv_bias").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    if (const auto sc = build::short_conv_dims(x.cache(i))) {
      x.inv.add(C::mixer, K::vector, p + "conv.conv.weight", 1, checked_mul(sc->channels, sc->conv_kernel));
      if (conv_bias) x.inv.vec(C::mixer, p + "conv.conv.bias", sc->channels);
      x.inv.linear(C::mixer, p + "conv.in_proj", 3 * sc->channels, h, conv_bias);
      x.inv.linear(C::mixer, p + "conv.out_proj", h, sc->channels, conv_bias);
    } else {
      build::AttnDims a = x.attn(i);
      x.inv.linear(C::attention, p + "self_attn.q_proj", x.heads() * a.k_dim, h);
      x.inv.linear(C::attention, p + "self_attn.k_proj", a.kv * a.k_dim, h);
      x.inv.linear(C::attention, p + "self_attn.v_proj", a.kv * a.v_dim, h);
      x.inv.linear(C::attention, p + "self_attn.out_proj", h, x.heads() * a.v_dim);
      x.inv.norm(C::attention, p + "self_attn.q_layernorm", a.k_dim);
      x.inv.norm(C::attention, p + "self_attn.k_layernorm", a.k_dim);
    }
    gated_mlp(x.inv, C::mlp_dense, p + "feed_forward.", h, ff, false, 1, kAllActive, "w1", "w3", "w2");
    x.inv.norm(C::norms, p + "operator_norm", h);
    x.inv.norm(C::norms, p + "ffn_norm", h);
  }
  x.inv.norm(C::norms, "model.embedding_norm", h);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> lfm2() {
  return {Family{.name = "lfm2", .model_types = {"lfm2"}, .map_layers = map_lfm2, .count_params = count_lfm2, .tie_word_embeddings = true}};
}

}  // namespace kvplan::detail::families
