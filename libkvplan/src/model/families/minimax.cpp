// MiniMax-Text-01 / M1: attn_type_list, 0 (lightning linear attention) or 1 (softmax) per layer;
// every layer a Mixtral-style MoE.
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

}  // namespace

std::vector<Family> minimax() {
  return {Family{.name = "minimax",
                 .model_types = {"minimax", "minimax_m1", "minimax_text_01"},
                 .map_layers = map_minimax,
                 .count_params = count_minimax}};
}

}  // namespace kvplan::detail::families
