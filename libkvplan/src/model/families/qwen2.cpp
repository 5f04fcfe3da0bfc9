// Qwen2 / Qwen2-MoE / Qwen3 / Qwen3-MoE, MiMo (a Qwen2 with MTP layers) and Qwen2.5-VL (a
// Qwen2 text model, its fields top-level or in text_config, plus a vision tower): sliding only
// when use_sliding_window, and only for layers >= max_window_layers (transformers Qwen2Config,
// Qwen2_5_VLTextConfig), unless layer_types says otherwise.
#include "kvplan/checked.h"
#include "kvplan/units.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
void map_qwen(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    const bool use = c.boolean("use_sliding_window").value_or(false);
    slots.assign(n, Slot::full);
    if (use && c.has("sliding_window")) {
      const std::uint64_t first = c.uint("max_window_layers", true).value_or(28);
      for (std::uint64_t i = first; i < n; ++i) slots[i] = Slot::sliding;
    }
  }
  add_attention_layers(x, slots, a);
}

// MiMo (vLLM mimo.py MiMoForCausalLM: a Qwen2 model): q/k/v biases; the MTP layers
// (num_nextn_predict_layers) are a separate draft model and hold no weights of the main model.
void count_mimo(const ParamCtx& x) {
  llama_like(x, {.qkv_bias_only = true});
  if (auto mtp = x.c.uint("num_nextn_predict_layers", true); mtp && *mtp)
    x.note("mimo: the " + format_count(*mtp, "MTP layer") + (*mtp == 1 ? " is" : " are") + " a separate draft model; not counted");
}

// Qwen2.5-VL (transformers modeling_qwen2_5_vl.py; vLLM qwen2_5_vl.py): the text model is a Qwen2
// decoder (q/k/v biases); the vision tower (Qwen2_5_VisionTransformerPretrainedModel) holds no
// KV cache and its weights are counted: a bias-free Conv3d patch embedding (in_channels x
// temporal_patch_size x patch_size^2 -> hidden), `depth` blocks of two RMSNorms, fused qkv and
// proj with biases and a gated SiLU MLP with biases, and the patch merger (RMSNorm ln_q, then
// Linear(hidden*m^2 -> hidden*m^2) and Linear(hidden*m^2 -> out_hidden_size), both with biases).
// transformers reads in_channels (default 3); the older in_chans key is not a field of its class.
void count_qwen2_5_vl(const ParamCtx& x) {
  using C = WeightComponent;
  using K = WeightKind;
  using u64 = std::uint64_t;
  llama_like(x, {.qkv_bias_only = true});
  const auto& root = x.c.root();
  if (!root.contains("vision_config") || !root["vision_config"].is_object()) {
    x.note(x.m.model_type + ": no vision_config; the vision tower's weights are not counted");
    return;
  }
  ConfigView v(root["vision_config"], x.c.source() + " /vision_config");
  const u64 h = v.require_uint("hidden_size"), i = v.require_uint("intermediate_size"), depth = v.require_uint("depth");
  const u64 patch = v.require_uint("patch_size"), tp = v.require_uint("temporal_patch_size");
  const u64 in = v.uint("in_channels").value_or(3), merge = v.require_uint("spatial_merge_size");
  const u64 out = v.require_uint("out_hidden_size");
  const u64 merged = checked_product({h, merge, merge});
  const std::string p = "visual.";
  x.inv.add(C::other, K::linear, p + "patch_embed.proj.weight", h, checked_product({in, tp, patch, patch}));
  for (u64 b = 0; b < depth; ++b) {
    const std::string q = p + "blocks.*.";
    x.inv.norm(C::other, q + "norm1", h);
    x.inv.norm(C::other, q + "norm2", h);
    x.inv.linear(C::other, q + "attn.qkv", 3 * h, h, true);
    x.inv.linear(C::other, q + "attn.proj", h, h, true);
    x.inv.linear(C::other, q + "mlp.gate_proj", i, h, true);
    x.inv.linear(C::other, q + "mlp.up_proj", i, h, true);
    x.inv.linear(C::other, q + "mlp.down_proj", h, i, true);
  }
  x.inv.norm(C::other, p + "merger.ln_q", h);
  x.inv.linear(C::other, p + "merger.mlp.0", merged, merged, true);
  x.inv.linear(C::other, p + "merger.mlp.2", out, merged, true);
  x.note(x.m.model_type + ": the vision tower's weights are counted (component other, visual.*)");
}

}  // namespace

std::vector<Family> qwen2() {
  return {Family{.name = "qwen2",
                 .model_types = {"qwen2"},
                 .gguf = {{.arch = "qwen2", .model_type = "qwen2"}},
                 .map_layers = map_qwen,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.qkv_bias_only = true}); }},
          Family{.name = "qwen2_moe",
                 .model_types = {"qwen2_moe"},
                 .gguf = {{.arch = "qwen2moe", .model_type = "qwen2_moe"}},
                 .map_layers = map_qwen,
                 .count_params =
                     [](const ParamCtx& x) { llama_like(x, {.qkv_bias_only = true, .qwen2_shared_expert = true}); }},
          Family{.name = "qwen3",
                 .model_types = {"qwen3", "qwen3_moe"},
                 .gguf = {{.arch = "qwen3", .model_type = "qwen3"}, {.arch = "qwen3moe", .model_type = "qwen3_moe"}},
                 .map_layers = map_qwen,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.qk_norm = true}); }},
          Family{.name = "mimo", .model_types = {"mimo"}, .map_layers = map_qwen, .count_params = count_mimo},
          Family{.name = "qwen2_5_vl",
                 .model_types = {"qwen2_5_vl", "qwen2_5_vl_text"},
                 .map_layers = map_qwen,
                 .count_params = count_qwen2_5_vl},
          // Qwen2-VL (transformers modeling_qwen2_vl.py Qwen2VLTextModel; vLLM qwen2_vl.py): the text
          // model is Qwen2's, with Qwen2.5-VL's sliding rule (use_sliding_window, max_window_layers).
          // Its vision tower (Qwen2VisionTransformer: LayerNorm blocks, fc1/fc2 MLP of mlp_ratio) is not
          // Qwen2.5-VL's, so the weights are not counted.
          Family{.name = "qwen2_vl",
                 .model_types = {"qwen2_vl", "qwen2_vl_text"},
                 .gguf = {{.arch = "qwen2vl", .model_type = "qwen2_vl"}},
                 .map_layers = map_qwen,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "Qwen2-VL: its vision tower (LayerNorm blocks, fc1/fc2 MLP) has no proven rule");
                     }}};
}

}  // namespace kvplan::detail::families
