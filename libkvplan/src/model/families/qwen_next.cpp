// Qwen3-Next and Qwen3.5: gated DeltaNet (linear attention) layers and one gated full-attention
// layer per full_attention_interval (or layer_types), a MoE with a gated shared expert, MTP.
#include "kvplan/checked.h"
#include "kvplan/units.h"
#include "model/gguf_meta.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_qwen_next(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  const u64 k_heads = c.require_uint("linear_num_key_heads");
  const u64 v_heads = c.require_uint("linear_num_value_heads");
  const u64 k_dim = c.require_uint("linear_key_head_dim");
  const u64 v_dim = c.require_uint("linear_value_head_dim");
  const auto gdn = build::linear_attention(build::LinearVariant::gated_delta_net, k_heads, v_heads, k_dim, v_dim,
                                           c.require_uint("linear_conv_kernel_dim"));
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    auto interval = c.uint("full_attention_interval");
    if (!interval) c.fail("full_attention_interval", "a positive integer (or a layer_types list)", nullptr);
    for (u64 i = 0; i < n; ++i) slots.push_back(((i + 1) % *interval) == 0 ? Slot::full : Slot::linear);
  }
  for (u64 i = 0; i < n; ++i) {
    if (slots[i] == Slot::full) x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim));
    else if (slots[i] == Slot::linear) x.add(i, gdn);
    else c.fail_at(slot_pointer(x, "layer_types", i), "full_attention or linear_attention", "another type");
  }
}

void gated_deltanet(const ParamCtx& x, const std::string& p, const build::LinearDims& la, bool fused_in_proj) {
  const u64 h = x.h();
  const u64 kd = checked_mul(la.num_k_heads, la.k_dim), vd = checked_mul(la.num_v_heads, la.v_dim);
  if (fused_in_proj) {
    x.inv.linear(C::mixer, p + "in_proj_qkvz", 2 * kd + 2 * vd, h);
    x.inv.linear(C::mixer, p + "in_proj_ba", 2 * la.num_v_heads, h);
  } else {
    x.inv.linear(C::mixer, p + "in_proj_qkv", 2 * kd + vd, h);
    x.inv.linear(C::mixer, p + "in_proj_z", vd, h);
    x.inv.linear(C::mixer, p + "in_proj_b", la.num_v_heads, h);
    x.inv.linear(C::mixer, p + "in_proj_a", la.num_v_heads, h);
  }
  x.inv.add(C::mixer, K::vector, p + "conv1d.weight", 1, checked_mul(2 * kd + vd, la.conv_kernel));
  x.inv.vec(C::mixer, p + "dt_bias", la.num_v_heads);
  x.inv.vec(C::mixer, p + "A_log", la.num_v_heads);
  x.inv.norm(C::mixer, p + "norm", la.v_dim);
  x.inv.linear(C::mixer, p + "out_proj", h, vd);
}

void qwen_next_layer(const ParamCtx& x, std::size_t i, const std::string& p, bool attention_layer, bool fused) {
  const auto& c = x.c;
  const u64 h = x.h();
  if (attention_layer) {
    AttnStyle as;
    as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
    as.qk_norm = true;
    as.gated_q = c.boolean("attn_output_gate").value_or(true);
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
  } else {
    gated_deltanet(x, p + "linear_attn.", *build::linear_attention_dims(x.cache(i)), fused);
  }
  const u64 e = x.m.dims.num_experts;
  const u64 step = c.uint("decoder_sparse_step").value_or(1);
  if (e > 0 && !in_list(c.uint_list("mlp_only_layers"), i) && (step == 0 || (i + 1) % step == 0)) {
    MoeStyle ms;
    ms.prefix = p + "mlp.";
    ms.shared_i = c.uint("shared_expert_intermediate_size", true).value_or(0);
    ms.shared_gate = ms.shared_i > 0;
    moe_block(x, ms, e, top_k(x), x.m.dims.moe_intermediate_size);
  } else {
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
  }
  x.inv.norm(C::norms, p + "input_layernorm", h);
  x.inv.norm(C::norms, p + "post_attention_layernorm", h);
}

void count_qwen_next(const ParamCtx& x, bool fused) {
  const u64 h = x.h();
  std::size_t last_attention = 0;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const bool attn = x.is_attention(i);
    if (attn) last_attention = i;
    qwen_next_layer(x, i, "model.layers.*.", attn, fused);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  if (auto mtp = x.c.uint("mtp_num_hidden_layers", true); mtp && *mtp) {
    // Qwen3.5 MTP: fc (h x 2h), two pre-fc norms, decoder layers (num_nextn_predict_layers) with full attention, a norm;
    // the embedding and head are shared unless mtp_use_dedicated_embeddings.
    x.inv.mtp = true;
    const std::string p = "mtp.";
    x.inv.linear(C::other, p + "fc", h, 2 * h);
    x.inv.norm(C::norms, p + "pre_fc_norm_embedding", h);
    x.inv.norm(C::norms, p + "pre_fc_norm_hidden", h);
    for (u64 j = 0; j < *mtp; ++j) qwen_next_layer(x, last_attention, p + "layers.*.", true, fused);
    x.inv.norm(C::norms, p + "norm", h);
    if (x.c.boolean("mtp_use_dedicated_embeddings").value_or(false))
      x.inv.add(C::embedding, K::embedding, p + "embed_tokens.weight", x.m.dims.vocab_size, h);
    x.inv.mtp = false;
    x.note(x.m.model_type + ": " + format_count(*mtp, "MTP layer") + " counted in mtp (not in total)");
  }
  qwen_vl_vision(x);
}

// GGUF (llama.cpp's qwen3next): the Gated DeltaNet keys as convert_hf_to_gguf maps them.
void gguf_qwen3next(const GgufMeta& m, nlohmann::json& c) {
  const std::uint64_t v_heads = m.require("ssm.time_step_rank");
  const std::uint64_t inner = m.require("ssm.inner_size");
  if (v_heads == 0 || inner % v_heads != 0) m.bad("ssm.time_step_rank", "a head count dividing ssm.inner_size");
  c["linear_conv_kernel_dim"] = m.require("ssm.conv_kernel");
  c["linear_key_head_dim"] = m.require("ssm.state_size");
  c["linear_num_key_heads"] = m.require("ssm.group_count");
  c["linear_num_value_heads"] = v_heads;
  c["linear_value_head_dim"] = inner / v_heads;
  c["full_attention_interval"] = m.uint("full_attention_interval").value_or(4);  // llama.cpp's default
}

}  // namespace

std::vector<Family> qwen_next() {
  return {Family{.name = "qwen3_next",
                 .model_types = {"qwen3_next"},
                 .gguf = {{.arch = "qwen3next", .model_type = "qwen3_next", .translate = gguf_qwen3next}},
                 .map_layers = map_qwen_next,
                 .count_params = [](const ParamCtx& x) { count_qwen_next(x, true); }},
          Family{.name = "qwen3_5",
                 .model_types = {"qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"},
                 .map_layers = map_qwen_next,
                 .count_params = [](const ParamCtx& x) { count_qwen_next(x, false); }}};
}

}  // namespace kvplan::detail::families
