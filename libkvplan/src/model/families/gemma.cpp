// Gemma 1/2/3/3n: Gemma 2 alternates sliding and full layers; Gemma 3 has one full layer per
// sliding_window_pattern (default 6); Gemma 3n one in five; explicit layer_types win
// (transformers Gemma2Config / Gemma3TextConfig / Gemma3nTextConfig). Gemma 2 and 3 take the
// class defaults head_dim 256 and 4 KV heads when the config leaves them out.
#include "kvplan/checked.h"
#include "model/gguf_meta.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
// transformers Gemma2Config / Gemma3TextConfig: head_dim defaults to 256, not hidden / heads, and
// num_key_value_heads to 4. The multimodal gemma-3 files leave head_dim out of text_config (12B:
// hidden 3840 / 16 heads would give 240).
build::AttnDims gemma_attention_shape(const LoadCtx& x) {
  const auto& c = x.cfg;
  if (c.has("head_dim")) return attention_shape(x);
  build::AttnDims a;
  a.kv = kv_heads(x, attention_heads(c));
  a.k_dim = a.v_dim = 256;
  x.m.dims.q_head_dim = a.k_dim;
  x.note(c.model_type() + ": head_dim not set; transformers' default 256 used");
  return a;
}
std::uint64_t gemma_kv_heads(const LoadCtx& x, std::uint64_t) {
  return x.cfg.uint("num_key_value_heads").value_or(4);
}

void map_with_pattern(const LoadCtx& x, std::uint64_t pattern_default, bool pattern_field, const char* missing_note,
                      bool head_dim_default = true) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const build::AttnDims a = head_dim_default ? gemma_attention_shape(x) : attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    std::optional<std::uint64_t> p;
    if (pattern_field) p = c.uint_any({"sliding_window_pattern", "_sliding_window_pattern"});
    if (!p && missing_note) x.note(c.model_type() + missing_note);
    slots = pattern_slots(n, p.value_or(pattern_default));
  }
  add_attention_layers(x, slots, a);
}
void map_gemma2(const LoadCtx& x) { map_with_pattern(x, 2, false, nullptr); }
void map_gemma3(const LoadCtx& x) {
  map_with_pattern(x, 6, true, ": sliding_window_pattern not set; transformers' default 6 used (5 sliding : 1 full)");
  // Gemma3TextConfig's vocab_size default; the multimodal gemma-3 files name none in text_config.
  if (!x.cfg.has("vocab_size") && x.m.dims.vocab_size == 0) {
    x.m.dims.vocab_size = 262'208;
    x.note(x.cfg.model_type() + ": vocab_size not set; transformers' default 262208 used");
  }
}

// Gemma 3 multimodal (transformers Gemma3ForConditionalGeneration): the text model, then the
// SigLIP vision tower (SiglipVisionModel: Conv2d patch embedding with bias, a learned position per
// patch ((image_size / patch_size)^2), num_hidden_layers encoder layers of two LayerNorms,
// q/k/v/out projections and a two-layer MLP, all with biases, and the post LayerNorm; no pooling
// head with vision_use_head false) and the projector (Gemma3MultiModalProjector:
// mm_input_projection_weight vision_hidden x text_hidden and the RMSNorm mm_soft_emb_norm).
void count_gemma3(const ParamCtx& x) {
  using C = WeightComponent;
  using K = WeightKind;
  using u64 = std::uint64_t;
  llama_like(x, {.qk_norm = true, .norms_per_layer = 4});
  const auto& root = x.c.root();
  if (!root.contains("vision_config") || !root["vision_config"].is_object()) return;  // text-only
  ConfigView v(root["vision_config"], x.c.source() + " /vision_config");
  if (v.boolean("vision_use_head").value_or(true))
    throw UnsupportedArchitecture::field(v.source(), x.m.model_type, v.pointer("vision_use_head"),
                                         "kvplan has no parameter rule for the SigLIP pooling head (vision_use_head)");
  const u64 h = v.require_uint("hidden_size"), i = v.require_uint("intermediate_size");
  const u64 depth = v.require_uint("num_hidden_layers"), image = v.require_uint("image_size");
  const u64 patch = v.require_uint("patch_size"), ch = v.uint("num_channels").value_or(3);
  if (image % patch != 0)
    v.fail_at(v.pointer("image_size"), "a multiple of patch_size (" + std::to_string(patch) + ")", std::to_string(image));
  const u64 side = image / patch;
  const std::string p = "model.vision_tower.vision_model.";
  x.inv.add(C::other, K::linear, p + "embeddings.patch_embedding.weight", h, checked_product({ch, patch, patch}));
  x.inv.vec(C::other, p + "embeddings.patch_embedding.bias", h);
  x.inv.add(C::other, K::embedding, p + "embeddings.position_embedding.weight", checked_mul(side, side, "patches"), h);
  for (u64 b = 0; b < depth; ++b) {
    const std::string q = p + "encoder.layers.*.";
    x.inv.norm(C::other, q + "layer_norm1", h, true);
    x.inv.norm(C::other, q + "layer_norm2", h, true);
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"})
      x.inv.linear(C::other, q + "self_attn." + proj, h, h, true);
    x.inv.linear(C::other, q + "mlp.fc1", i, h, true);
    x.inv.linear(C::other, q + "mlp.fc2", h, i, true);
  }
  x.inv.norm(C::other, p + "post_layernorm", h, true);
  x.inv.add(C::other, K::linear, "model.multi_modal_projector.mm_input_projection_weight", h, x.h());
  x.inv.norm(C::other, "model.multi_modal_projector.mm_soft_emb_norm", h);
  x.note(x.m.model_type + ": the SigLIP vision tower and projector weights are counted (component other)");
}
void map_gemma3n(const LoadCtx& x) {
  map_with_pattern(x, 5, false, ": layer_types not set; transformers' default (4 sliding : 1 full) used", false);
}

// GGUF (llama.cpp's gemma3 loader): attention.sliding_window_pattern when written, else the
// loader's own hparams.set_swa_pattern(6).
void gguf_gemma3(const GgufMeta& m, nlohmann::json& c) {
  if (auto p = m.uint("attention.sliding_window_pattern")) c["sliding_window_pattern"] = *p;
  else c["sliding_window_pattern"] = 6;
}

}  // namespace

std::vector<Family> gemma() {
  return {Family{.name = "gemma",
                 .model_types = {"gemma"},
                 .gguf = {{.arch = "gemma", .model_type = "gemma"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {}); },
                 .tie_word_embeddings = true},
          Family{.name = "gemma2",
                 .model_types = {"gemma2"},
                 .gguf = {{.arch = "gemma2", .model_type = "gemma2", .reads_window = true}},
                 .map_layers = map_gemma2,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.norms_per_layer = 4}); },
                 .tie_word_embeddings = true,
                 .sliding_window_default = 4096,
                 .kv_heads = gemma_kv_heads},
          Family{.name = "gemma3",
                 .model_types = {"gemma3", "gemma3_text"},
                 .gguf = {{.arch = "gemma3", .model_type = "gemma3_text", .reads_window = true, .translate = gguf_gemma3}},
                 .map_layers = map_gemma3,
                 .count_params = count_gemma3,
                 .tie_word_embeddings = true,
                 .sliding_window_default = 4096,
                 .kv_heads = gemma_kv_heads},
          Family{.name = "gemma3n",
                 .model_types = {"gemma3n", "gemma3n_text"},
                 .map_layers = map_gemma3n,
                 // Gemma 3n's weights are not counted (modeling_gemma3n.py): beside Gemma 3's layers it
                 // has per-layer embeddings (vocab_size_per_layer_input x num_hidden_layers x
                 // hidden_size_per_layer_input, with their projections and gates), AltUp
                 // (altup_num_inputs streams with correction and prediction coefficients), LAuReL
                 // (laurel_rank low-rank residuals) and, in the multimodal model, the MobileNetV5
                 // vision tower and the Conformer audio tower. No rule is written, so the weights
                 // are unknown rather than a Llama-shaped estimate.
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "Gemma 3n: per-layer embeddings, AltUp, LAuReL, MobileNetV5 and Conformer "
                                         "towers");
                     },
                 .sliding_window_default = 512}};
}

}  // namespace kvplan::detail::families
