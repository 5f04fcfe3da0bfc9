// gpt-oss: alternating sliding (128) and full layers; attention with biases and sinks, every
// layer routed experts with fused gate_up and biases.
#include "kvplan/checked.h"
#include "model/gguf_meta.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_gpt_oss(const LoadCtx& x) {
  const u64 n = num_layers(x.cfg);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    slots = pattern_slots(n, 2);
    x.note("gpt_oss: layer_types not set; transformers' default alternation (sliding, full, ...) used");
  }
  add_attention_layers(x, slots, a);
}
void count_gpt_oss(const ParamCtx& x) {
  const u64 h = x.h();
  const u64 e = x.m.dims.num_experts, k = top_k(x);
  const u64 ei = x.m.dims.intermediate_size;
  AttnStyle as;
  as.qkv_bias = as.o_bias = x.c.boolean("attention_bias").value_or(true);
  as.sinks = true;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
    x.inv.linear(C::moe_router, p + "mlp.router", e, h, true);
    x.inv.add(C::moe_routed, K::linear, p + "mlp.experts.gate_up_proj", 2 * ei, h, e, k);
    x.inv.add(C::moe_routed, K::vector, p + "mlp.experts.gate_up_proj_bias", 1, 2 * ei, e, k);
    x.inv.add(C::moe_routed, K::linear, p + "mlp.experts.down_proj", h, ei, e, k);
    x.inv.add(C::moe_routed, K::vector, p + "mlp.experts.down_proj_bias", 1, h, e, k);
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m, "model.embed_tokens.weight", "lm_head");
  x.note("gpt_oss: OpenAI's 3.6B active (20b) excludes the embedding table; kvplan's active counts it");
}

// GGUF (llama.cpp's gpt-oss loader): set_swa_pattern(2), even layers sliding.
void gguf_gpt_oss(const GgufMeta& m, nlohmann::json& c) {
  nlohmann::json types = nlohmann::json::array();
  for (std::uint64_t i = 0; i < m.n_layers; ++i) types.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  c["layer_types"] = types;
}

}  // namespace

std::vector<Family> gpt_oss() {
  return {Family{.name = "gpt_oss",
                 .model_types = {"gpt_oss"},
                 .gguf = {{.arch = "gpt-oss", .model_type = "gpt_oss", .reads_window = true, .translate = gguf_gpt_oss}},
                 .map_layers = map_gpt_oss,
                 .count_params = count_gpt_oss,
                 .sliding_window_default = 128}};
}

}  // namespace kvplan::detail::families
