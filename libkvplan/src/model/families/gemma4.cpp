// Gemma 4: per-layer-type attention (global layers: own head dim and KV heads), a dense MLP in
// every layer plus a routed-expert block beside it when enable_moe_block, per-layer inputs.
#include <algorithm>

#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

// Sliding layers use head_dim and num_key_value_heads; full (global) layers take global_head_dim
// (default 512) and, only when attention_k_eq_v, num_global_key_value_heads
// (transformers Gemma4TextConfig.__post_init__, which also forces the last layer to full).
void map_gemma4(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::string& mt = c.model_type();
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    // Gemma4TextConfig: without layer_types, every 6th layer full (5 sliding : 1 full).
    slots = pattern_slots(n, 6);
    x.note(mt + ": layer_types not set; transformers' default (5 sliding : 1 full) used");
  }
  if (!slots.empty() && slots.back() != Slot::full) {
    slots.back() = Slot::full;
    x.note(mt + ": the last layer is full attention (transformers forces it)");
  }
  u64 window = 0;
  if (std::count(slots.begin(), slots.end(), Slot::sliding) > 0) {
    window = require_window(x);
    if (c.string("use_bidirectional_attention").value_or("") == "all") {
      window = window / 2 + 1;  // Gemma4TextConfig: exclusive bounds for bidirectional attention
      x.note(mt + ": use_bidirectional_attention \"all\": sliding window read as sliding_window // 2 + 1");
    }
  }
  build::AttnDims g = a;
  const bool k_eq_v = c.boolean("attention_k_eq_v").value_or(false);
  if (k_eq_v) g.kv = c.uint("num_global_key_value_heads").value_or(a.kv);
  if (!c.has("global_head_dim")) x.note(mt + ": global_head_dim not set; transformers' default 512 used for full layers");
  g.k_dim = g.v_dim = c.uint("global_head_dim").value_or(512);
  if (g.kv == 0 || attention_heads(c) % g.kv != 0)
    c.fail_at(c.pointer("num_global_key_value_heads"), "a KV head count that divides num_attention_heads",
              std::to_string(g.kv));
  if (k_eq_v)
    x.note(mt + ": attention_k_eq_v: global layers compute V from the K projection; kvplan counts K and V "
                "as separate cache tensors, as the engines store them");
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i] == Slot::sliding) x.add(i, build::sliding_attention(a.kv, a.k_dim, a.v_dim, window));
    else if (slots[i] == Slot::full) x.add(i, build::full_attention(g.kv, g.k_dim, g.v_dim));
    else c.fail_at(slot_pointer(x, "layer_types", i), "sliding_attention or full_attention", "other");
  }
}

// The vision tower and its embedder (transformers modeling_gemma4.py): Gemma4VisionModel is a
// patch embedder (input_proj, a bias-free linear over 3 x patch^2 pixels, and a (2,
// position_embedding_size, hidden) position table), num_hidden_layers encoder layers (q/k/v/o and
// a gated MLP, all Gemma4ClippableLinear without bias; per-head q_norm/k_norm weights, v_norm
// has no scale; four RMSNorms) and, when standardize, the std_bias/std_scale buffers it stores;
// the pooler has no weights. With use_clipped_linears every clippable linear also stores four
// scalar bounds (input_min/max, output_min/max). Gemma4MultimodalEmbedder (embed_vision): a
// scale-free RMSNorm and one bias-free linear vision hidden -> text hidden.
void count_gemma4_vision(const ParamCtx& x) {
  const auto& root = x.c.root();
  if (!root.contains("vision_config") || !root["vision_config"].is_object()) return;  // text-only
  ConfigView v(root["vision_config"], x.c.source() + " /vision_config");
  // A field the config leaves out takes transformers' Gemma4VisionConfig default, said in a note.
  const EncoderConfig enc{x, v, "gemma4: vision_config", "Gemma4VisionConfig"};
  auto field = [&](const char* key, u64 def) { return enc.uint(key, def); };
  auto flag = [&](const char* key) { return enc.boolean(key, false); };
  const u64 h = field("hidden_size", 768), i = field("intermediate_size", 3072);
  const u64 depth = field("num_hidden_layers", 16), heads = field("num_attention_heads", 12);
  const u64 kv = field("num_key_value_heads", 12), hd = field("head_dim", 64);
  const u64 patch = field("patch_size", 16), pos = field("position_embedding_size", 10240);
  const bool clipped = flag("use_clipped_linears"), standardize = flag("standardize");
  const std::string p = "model.vision_tower.";
  auto clippable = [&](const std::string& name, u64 out, u64 in) {
    x.inv.linear(C::other, name + ".linear", out, in);
    if (clipped)
      for (const char* b : {".input_min", ".input_max", ".output_min", ".output_max"}) x.inv.vec(C::other, name + b, 1);
  };
  x.inv.add(C::other, K::linear, p + "patch_embedder.input_proj.weight", h, checked_product({3, patch, patch}));
  x.inv.add(C::other, K::embedding, p + "patch_embedder.position_embedding_table", checked_mul(2, pos, "positions"), h);
  for (u64 b = 0; b < depth; ++b) {
    const std::string q = p + "encoder.layers.*.";
    clippable(q + "self_attn.q_proj", checked_mul(heads, hd), h);
    clippable(q + "self_attn.k_proj", checked_mul(kv, hd), h);
    clippable(q + "self_attn.v_proj", checked_mul(kv, hd), h);
    clippable(q + "self_attn.o_proj", h, checked_mul(heads, hd));
    x.inv.norm(C::other, q + "self_attn.q_norm", hd);
    x.inv.norm(C::other, q + "self_attn.k_norm", hd);
    clippable(q + "mlp.gate_proj", i, h);
    clippable(q + "mlp.up_proj", i, h);
    clippable(q + "mlp.down_proj", h, i);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                          "post_feedforward_layernorm"})
      x.inv.norm(C::other, q + n, h);
  }
  if (standardize) {
    x.inv.vec(C::other, p + "std_bias", h);
    x.inv.vec(C::other, p + "std_scale", h);
  }
  x.inv.linear(C::other, "model.embed_vision.embedding_projection", x.h(), h);
  x.note("gemma4: the vision tower and its embedder are counted (component other, model.vision_tower.*, "
         "model.embed_vision.*)");
}

// The audio tower and its embedder (transformers modeling_gemma4.py Gemma4AudioModel, a conformer):
// the sub-sample projection (two bias-free 3x3 Conv2d, 1 -> c0 -> c1 channels, each with a
// bias-free LayerNorm, then input_proj_linear (c0 // 4) x c1 -> hidden); num_hidden_layers layers
// of feed_forward1/2 (clippable hidden -> 4 hidden -> hidden, pre/post RMSNorms), self_attn
// (clippable q/k/v/post hidden -> hidden, a bias-free relative_k_proj, per_dim_scale of head_dim),
// lconv1d (clippable linear_start hidden -> 2 hidden and linear_end, a bias-free depthwise Conv1d of
// conv_kernel_size, two RMSNorms) and three RMSNorms; output_proj hidden -> output_proj_dims with
// bias. embed_audio projects output_proj_dims to the text hidden size (bias-free, scale-free norm).
// With use_clipped_linears (the default) each clippable linear stores four scalar bounds.
void count_gemma4_audio(const ParamCtx& x) {
  const auto& root = x.c.root();
  if (!root.contains("audio_config") || !root["audio_config"].is_object()) return;  // no audio tower
  ConfigView a(root["audio_config"], x.c.source() + " /audio_config");
  const EncoderConfig enc{x, a, "gemma4: audio_config", "Gemma4AudioConfig"};
  auto field = [&](const char* key, u64 def) { return enc.uint(key, def); };
  const u64 h = field("hidden_size", 1024), depth = field("num_hidden_layers", 12);
  const u64 heads = field("num_attention_heads", 8), kernel = field("conv_kernel_size", 5);
  const u64 out = field("output_proj_dims", 1536);
  bool clipped = true;
  if (auto val = a.boolean("use_clipped_linears")) clipped = *val;
  else x.note("gemma4: audio_config.use_clipped_linears not set; transformers' Gemma4AudioConfig default true used");
  std::vector<u64> ch = {128, 32};
  if (auto list = a.uint_list("subsampling_conv_channels", false)) {
    if (list->size() != 2)
      a.fail_at(a.pointer("subsampling_conv_channels"), "two channel counts",
                std::to_string(list->size()) + " entries");
    ch = *list;
  } else {
    x.note("gemma4: audio_config.subsampling_conv_channels not set; transformers' Gemma4AudioConfig default [128, 32] used");
  }
  if (h % heads != 0)
    a.fail_at(a.pointer("num_attention_heads"), "a head count that divides hidden_size (" + std::to_string(h) + ")",
              std::to_string(heads));
  const u64 head_dim = h / heads;
  const std::string p = "model.audio_tower.";
  auto clippable = [&](const std::string& name, u64 rows, u64 cols) {
    x.inv.linear(C::other, name + ".linear", rows, cols);
    if (clipped)
      for (const char* b : {".input_min", ".input_max", ".output_min", ".output_max"}) x.inv.vec(C::other, name + b, 1);
  };
  const std::string sp = p + "subsample_conv_projection.";
  x.inv.add(C::other, K::vector, sp + "layer0.conv.weight", 1, checked_product({ch[0], 1, 3, 3}));
  x.inv.norm(C::other, sp + "layer0.norm", ch[0]);
  x.inv.add(C::other, K::vector, sp + "layer1.conv.weight", 1, checked_product({ch[1], ch[0], 3, 3}));
  x.inv.norm(C::other, sp + "layer1.norm", ch[1]);
  x.inv.linear(C::other, sp + "input_proj_linear", h, checked_mul(ch[0] / 4, ch[1]));
  const u64 wide = checked_mul(4, h);
  for (u64 b = 0; b < depth; ++b) {
    const std::string q = p + "layers.*.";
    for (const char* ff : {"feed_forward1.", "feed_forward2."}) {
      clippable(q + ff + "ffw_layer_1", wide, h);
      clippable(q + ff + "ffw_layer_2", h, wide);
      x.inv.norm(C::other, q + ff + "pre_layer_norm", h);
      x.inv.norm(C::other, q + ff + "post_layer_norm", h);
    }
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "post"}) clippable(q + "self_attn." + proj, h, h);
    x.inv.linear(C::other, q + "self_attn.relative_k_proj", h, h);
    x.inv.vec(C::other, q + "self_attn.per_dim_scale", head_dim);
    clippable(q + "lconv1d.linear_start", checked_mul(2, h), h);
    clippable(q + "lconv1d.linear_end", h, h);
    x.inv.add(C::other, K::vector, q + "lconv1d.depthwise_conv1d.weight", 1, checked_mul(h, kernel));
    x.inv.norm(C::other, q + "lconv1d.pre_layer_norm", h);
    x.inv.norm(C::other, q + "lconv1d.conv_norm", h);
    for (const char* n : {"norm_pre_attn", "norm_post_attn", "norm_out"}) x.inv.norm(C::other, q + n, h);
  }
  x.inv.linear(C::other, p + "output_proj", out, h, true);
  x.inv.linear(C::other, "model.embed_audio.embedding_projection", x.h(), out);
  x.note("gemma4: the audio tower and its embedder are counted (component other, model.audio_tower.*, "
         "model.embed_audio.*)");
}

// Gemma 4: per-layer-type attention (global layers: own head dim / KV heads, V from K), a dense
// MLP in every layer, plus a routed-expert block beside it when enable_moe_block.
void count_gemma4(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const bool k_eq_v = c.boolean("attention_k_eq_v").value_or(false);
  const bool moe = c.boolean("enable_moe_block").value_or(false);
  const u64 ple = c.uint("hidden_size_per_layer_input", true).value_or(0);
  const bool double_wide = c.boolean("use_double_wide_mlp").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.language_model.layers.*.";
    AttnStyle as;
    as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
    as.qk_norm = true;  // v_norm has no scale
    const bool global = !build::is_sliding(x.cache(i));
    as.no_v_proj = k_eq_v && global;
    // Layers that reuse an earlier layer's KV (num_kv_shared_layers) have no k/v projections
    // and, with use_double_wide_mlp, an MLP twice as wide.
    const bool shared_kv = build::shared_kv_source(x.cache(i)).has_value();
    const build::AttnDims a = x.attn(i);
    if (shared_kv) {
      x.inv.linear(C::attention, p + "self_attn.q_proj", x.heads() * a.k_dim, h, as.qkv_bias);
      x.inv.norm(C::attention, p + "self_attn.q_norm", a.k_dim);
      x.inv.linear(C::attention, p + "self_attn.o_proj", h, x.heads() * a.v_dim, as.o_bias);
    } else {
      attention(x.inv, p + "self_attn.", h, x.heads(), a, as);
    }
    const u64 mlp_i = checked_mul(x.m.dims.intermediate_size, shared_kv && double_wide ? 2 : 1);
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, mlp_i);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                          "post_feedforward_layernorm"})
      x.inv.norm(C::norms, p + n, h);
    if (moe) {
      const u64 e = x.m.dims.num_experts, k = top_k(x), mi = x.m.dims.moe_intermediate_size;
      x.inv.linear(C::moe_router, p + "router.proj", e, h);
      x.inv.vec(C::moe_router, p + "router.scale", h);
      x.inv.vec(C::moe_router, p + "router.per_expert_scale", e);
      x.inv.add(C::moe_routed, K::linear, p + "experts.gate_up_proj", 2 * mi, h, e, k);
      x.inv.add(C::moe_routed, K::linear, p + "experts.down_proj", h, mi, e, k);
      for (const char* n : {"post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2"})
        x.inv.norm(C::norms, p + n, h);
    }
    if (ple) {
      x.inv.linear(C::other, p + "per_layer_input_gate", ple, h);
      x.inv.linear(C::other, p + "per_layer_projection", h, ple);
      x.inv.norm(C::norms, p + "post_per_layer_input_norm", h);
    }
  }
  if (ple) {
    const u64 v = c.uint("vocab_size_per_layer_input").value_or(x.m.dims.vocab_size);
    x.inv.add(C::other, K::embedding, "model.language_model.embed_tokens_per_layer.weight", v, x.n() * ple);
    x.inv.linear(C::other, "model.language_model.per_layer_model_projection", x.n() * ple, h);
    x.inv.norm(C::other, "model.language_model.per_layer_projection_norm", ple);
  }
  x.inv.norm(C::norms, "model.language_model.norm", h);
  embeddings(x.inv, x.m, "model.language_model.embed_tokens.weight");
  count_gemma4_vision(x);
  count_gemma4_audio(x);
}

}  // namespace

std::vector<Family> gemma4() {
  return {Family{.name = "gemma4",
                 .model_types = {"gemma4", "gemma4_text"},
                 .map_layers = map_gemma4,
                 .count_params = count_gemma4,
                 .tie_word_embeddings = true,
                 .sliding_window_default = 512},
          // Gemma 4 12B "unified" (transformers gemma4_unified, Gemma4UnifiedForConditionalGeneration;
          // text model gemma4_unified_text): the same per-layer-type attention as Gemma 4 (sliding
          // layers head_dim x num_key_value_heads, full layers global_head_dim x
          // num_global_key_value_heads when attention_k_eq_v), beside audio and vision towers that hold
          // no KV cache. Weights: not counted (the audio tower and the unified vision embedder have no
          // proven rule).
          Family{.name = "gemma4_unified",
                 .model_types = {"gemma4_unified", "gemma4_unified_text"},
                 .map_layers = map_gemma4,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "Gemma 4 unified: audio and vision towers with no proven rule");
                     },
                 .tie_word_embeddings = true,
                 .sliding_window_default = 512}};
}

}  // namespace kvplan::detail::families
