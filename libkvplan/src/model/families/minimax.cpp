// MiniMax-Text-01 / M1: attn_type_list, 0 (lightning linear attention) or 1 (softmax) per layer;
// every layer a Mixtral-style MoE. MiniMax-M2.x: softmax attention in every layer.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_minimax(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  auto types = c.uint_list("attn_type_list");
  if (!types) c.fail("attn_type_list", "a list of 0 (linear) / 1 (softmax) per layer", nullptr);
  if (types->size() != n)
    c.fail_at(c.pointer("attn_type_list"), "one entry per layer (" + std::to_string(n) + ")",
              std::to_string(types->size()) + " entries");
  reject_unmapped(x, {"sliding_window"});
  // Lightning attention keeps one (head_dim x head_dim) state per query head.
  const u64 heads = attention_heads(c);
  const auto lin = build::linear_attention(build::LinearVariant::lightning, heads, heads, a.k_dim, a.k_dim, 0);
  for (u64 i = 0; i < n; ++i) {
    if ((*types)[i] == 1) x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim));
    else if ((*types)[i] == 0) x.add(i, lin);
    else c.fail_at(slot_pointer(x, "attn_type_list", i), "0 or 1", std::to_string((*types)[i]));
  }
}

void count_minimax(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const u64 e = x.m.dims.num_experts;
  const u64 shared = c.uint("shared_intermediate_size", true).value_or(0);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    if (const auto la = build::linear_attention_dims(x.cache(i))) {
      const u64 inner = checked_mul(x.heads(), la->k_dim);
      x.inv.linear(C::mixer, p + "self_attn.qkv_proj", 3 * inner, h);
      x.inv.linear(C::mixer, p + "self_attn.output_gate", inner, h);
      x.inv.linear(C::mixer, p + "self_attn.out_proj", h, inner);
      x.inv.norm(C::mixer, p + "self_attn.norm", inner);
    } else {
      attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), AttnStyle{});
    }
    MoeStyle ms;
    ms.prefix = p + "block_sparse_moe.";
    ms.w_gate = "w1";
    ms.w_down = "w2";
    ms.w_up = "w3";
    ms.shared_i = shared;
    moe_block(x, ms, e, top_k(x), x.m.dims.intermediate_size);
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  x.note(x.m.model_type + ": MiniMax's 45.9B active (M1) excludes the embedding and output head; kvplan's active "
                          "counts both");
}

// MiniMax-M2.x (vLLM minimax_m2.py MiniMaxM2Attention): softmax attention in every layer.
// Some configs carry MiniMax-M1's attn_type_list; for M2 it must say softmax (1) everywhere.
void map_minimax_m2(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  reject_unmapped(x, {"sliding_window", "attention_chunk_size"});
  if (auto types = c.uint_list("attn_type_list")) {
    if (types->size() != n)
      c.fail_at(c.pointer("attn_type_list"), "one entry per layer (" + std::to_string(n) + ")",
                std::to_string(types->size()) + " entries");
    for (std::size_t i = 0; i < n; ++i)
      if ((*types)[i] != 1)
        c.fail_at(slot_pointer(x, "attn_type_list", i),
                  "1 (softmax attention: MiniMax-M2 has no lightning-attention layers)", std::to_string((*types)[i]));
  }
  for (u64 i = 0; i < n; ++i) x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim));
}

// MiniMax-M2.x (vLLM minimax_m2.py): attention with RMSNorm over all q heads and all k heads
// (qk_norm_type per_layer), every layer a MoE of w1/w2/w3 experts with a sigmoid router and its
// correction bias (use_routing_bias); the MTP modules are not in the config's layers.
void count_minimax_m2(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const bool qk_norm = c.boolean("use_qk_norm").value_or(true);
  const bool per_layer_norm = c.string("qk_norm_type").value_or("per_layer") == "per_layer";
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    const build::AttnDims a = x.attn(i);
    AttnStyle as;
    as.qk_norm = qk_norm && !per_layer_norm;
    attention(x.inv, p + "self_attn.", h, x.heads(), a, as);
    if (qk_norm && per_layer_norm) {
      x.inv.norm(C::attention, p + "self_attn.q_norm", checked_mul(x.heads(), a.k_dim));
      x.inv.norm(C::attention, p + "self_attn.k_norm", checked_mul(a.kv, a.k_dim));
    }
    MoeStyle ms;
    ms.prefix = p + "block_sparse_moe.";
    ms.w_gate = "w1";
    ms.w_down = "w2";
    ms.w_up = "w3";
    ms.router_correction_bias = c.boolean("use_routing_bias").value_or(false);
    ms.shared_i = c.uint("shared_intermediate_size", true).value_or(0);
    moe_block(x, ms, x.m.dims.num_experts, top_k(x), x.m.dims.intermediate_size);
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  if (c.uint("num_mtp_modules", true).value_or(0))
    x.note("minimax_m2: the MTP modules (num_mtp_modules) are not counted");
}

}  // namespace

std::vector<Family> minimax() {
  return {Family{.name = "minimax",
                 .model_types = {"minimax", "minimax_m1", "minimax_text_01"},
                 .map_layers = map_minimax,
                 .count_params = count_minimax},
          Family{.name = "minimax_m2",
                 .model_types = {"minimax_m2"},
                 .map_layers = map_minimax_m2,
                 .count_params = count_minimax_m2}};
}

}  // namespace kvplan::detail::families
