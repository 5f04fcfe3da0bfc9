// Mistral, Ministral (8B), Ministral 3 / Mistral 3 text models and Mixtral: Llama-style layers,
// every layer sliding when sliding_window is set (transformers MistralConfig, Ministral3Config),
// or the layer_types list when the config writes one (MinistralConfig).
// Inside a Mistral 3 wrapper (model_type mistral3, text_config mistral / ministral3) the Pixtral
// vision tower and the projector are counted too.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
// transformers Mistral3ForConditionalGeneration: the Pixtral tower (PixtralVisionModel: bias-free
// Conv2d patch_conv, ln_pre RMSNorm, num_hidden_layers layers of attention_norm / ffn_norm RMSNorms,
// q/k/v/o and gate/up/down projections, none with a bias) and Mistral3MultiModalProjector (RMSNorm,
// patch_merger.merging_layer hidden x spatial_merge_size^2 -> hidden, linear_1 hidden -> text
// hidden and linear_2 text -> text, biased when multimodal_projector_bias; Mistral3Config defaults
// 2 and false). Another wrapper's tower, or a list of vision_feature_layer (a wider projector
// input), has no rule here: the count is then unknown, not short.
void count_mistral(const ParamCtx& x) {
  using C = WeightComponent;
  using K = WeightKind;
  using u64 = std::uint64_t;
  llama_like(x, {});
  const auto& root = x.c.root();
  if (!root.contains("vision_config") || !root["vision_config"].is_object()) return;
  const std::string& wrapper = x.c.root_model_type();
  if (wrapper != "mistral3")
    throw UnsupportedArchitecture::field(x.c.source(), wrapper, "/vision_config",
                                         "kvplan has no parameter rule for the vision tower of " + wrapper);
  if (root.contains("vision_feature_layer") && root["vision_feature_layer"].is_array())
    throw UnsupportedArchitecture::field(x.c.source(), wrapper, "/vision_feature_layer",
                                         "kvplan has no parameter rule for a projector fed by several vision layers");
  ConfigView v(root["vision_config"], x.c.source() + " /vision_config");
  const u64 h = v.require_uint("hidden_size"), i = v.require_uint("intermediate_size");
  const u64 depth = v.require_uint("num_hidden_layers"), heads = v.require_uint("num_attention_heads");
  const u64 patch = v.require_uint("patch_size"), ch = v.uint("num_channels").value_or(3);
  const u64 hd = v.uint("head_dim").value_or(h / heads), inner = checked_mul(heads, hd, "attention width");
  u64 merge = 2;
  if (root.contains("spatial_merge_size") && root["spatial_merge_size"].is_number_unsigned())
    merge = root["spatial_merge_size"].get<u64>();
  const bool bias = root.contains("multimodal_projector_bias") && root["multimodal_projector_bias"].is_boolean() &&
                    root["multimodal_projector_bias"].get<bool>();
  const std::string p = "model.vision_tower.";
  x.inv.add(C::other, K::linear, p + "patch_conv.weight", h, checked_product({ch, patch, patch}));
  x.inv.norm(C::other, p + "ln_pre", h);
  for (u64 b = 0; b < depth; ++b) {
    const std::string q = p + "transformer.layers.*.";
    x.inv.norm(C::other, q + "attention_norm", h);
    x.inv.norm(C::other, q + "ffn_norm", h);
    x.inv.linear(C::other, q + "attention.q_proj", inner, h);
    x.inv.linear(C::other, q + "attention.k_proj", inner, h);
    x.inv.linear(C::other, q + "attention.v_proj", inner, h);
    x.inv.linear(C::other, q + "attention.o_proj", h, inner);
    x.inv.linear(C::other, q + "feed_forward.gate_proj", i, h);
    x.inv.linear(C::other, q + "feed_forward.up_proj", i, h);
    x.inv.linear(C::other, q + "feed_forward.down_proj", h, i);
  }
  const std::string m = "model.multi_modal_projector.";
  x.inv.norm(C::other, m + "norm", h);
  x.inv.linear(C::other, m + "patch_merger.merging_layer", h, checked_product({h, merge, merge}));
  x.inv.linear(C::other, m + "linear_1", x.h(), h, bias);
  x.inv.linear(C::other, m + "linear_2", x.h(), x.h(), bias);
  x.note(x.m.model_type + ": the Pixtral vision tower and projector weights are counted (component other)");
}
}  // namespace

std::vector<Family> mistral() {
  return {Family{.name = "mistral",
                 .model_types = {"mistral", "ministral", "ministral3"},
                 .gguf = {{.arch = "mistral", .model_type = "mistral", .reads_window = true}},
                 .map_layers = map_uniform_window,
                 .count_params = count_mistral},
          Family{.name = "mixtral",
                 .model_types = {"mixtral"},
                 .map_layers = map_uniform_window,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.mixtral_experts = true}); }}};
}

}  // namespace kvplan::detail::families
