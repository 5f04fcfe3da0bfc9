// Qwen3-VL (dense and MoE): a vision-language wrapper whose text_config is a Qwen3 / Qwen3-MoE
// decoder with every layer full causal attention (transformers Qwen3VLTextConfig /
// Qwen3VLMoeTextConfig have no window field), plus the vision tower, whose weights are counted.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail {

// Vision tower (transformers modeling_qwen3_vl.py Qwen3VLVisionModel): Conv3d patch embedding,
// learned position embedding, `depth` blocks (LayerNorms, fused qkv, proj, two-layer MLP, all
// with biases), the patch merger and one merger per deepstack_visual_indexes entry (Qwen3.5's
// Qwen3_5VisionModel has the same blocks and merger, and no DeepStack: an empty list).
void qwen_vl_vision(const ParamCtx& x) {
  using u64 = std::uint64_t;
  using C = WeightComponent;
  using K = WeightKind;
  const auto& root = x.c.root();
  if (!root.contains("vision_config") || !root["vision_config"].is_object()) return;
  ConfigView v(root["vision_config"], x.c.source() + " /vision_config");
  const u64 h = v.require_uint("hidden_size"), i = v.require_uint("intermediate_size"), depth = v.require_uint("depth");
  const u64 patch = v.require_uint("patch_size"), tp = v.require_uint("temporal_patch_size");
  const u64 in = v.uint("in_channels").value_or(3), merge = v.require_uint("spatial_merge_size");
  const u64 out = v.require_uint("out_hidden_size"), pos = v.require_uint("num_position_embeddings");
  const u64 merged = checked_product({h, merge, merge});
  const std::string p = "model.visual.";
  x.inv.add(C::other, K::linear, p + "patch_embed.proj.weight", h, checked_product({in, tp, patch, patch}));
  x.inv.vec(C::other, p + "patch_embed.proj.bias", h);
  x.inv.add(C::other, K::embedding, p + "pos_embed.weight", pos, h);
  for (u64 b = 0; b < depth; ++b) {
    const std::string q = p + "blocks.*.";
    x.inv.norm(C::other, q + "norm1", h, true);
    x.inv.norm(C::other, q + "norm2", h, true);
    x.inv.linear(C::other, q + "attn.qkv", 3 * h, h, true);
    x.inv.linear(C::other, q + "attn.proj", h, h, true);
    x.inv.linear(C::other, q + "mlp.linear_fc1", i, h, true);
    x.inv.linear(C::other, q + "mlp.linear_fc2", h, i, true);
  }
  auto merger = [&](const std::string& q, u64 norm_size) {
    x.inv.norm(C::other, q + "norm", norm_size, true);
    x.inv.linear(C::other, q + "linear_fc1", merged, merged, true);
    x.inv.linear(C::other, q + "linear_fc2", out, merged, true);
  };
  merger(p + "merger.", h);  // use_postshuffle_norm = False: the norm runs before the shuffle
  const auto deep = v.uint_list("deepstack_visual_indexes");
  for (std::size_t k = 0; deep && k < deep->size(); ++k) merger(p + "deepstack_merger_list.*.", merged);
  x.note(x.m.model_type + ": the vision tower's weights are counted (component other, model.visual.*)");
}

}  // namespace kvplan::detail

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void count_qwen3_vl(const ParamCtx& x) {
  llama_like(x, {.qk_norm = true});
  qwen_vl_vision(x);
}

}  // namespace

std::vector<Family> qwen3_vl() {
  return {Family{.name = "qwen3_vl",
                 .model_types = {"qwen3_vl_text", "qwen3_vl_moe_text"},
                 .map_layers = map_plain_attention,
                 .count_params = count_qwen3_vl}};
}

}  // namespace kvplan::detail::families
