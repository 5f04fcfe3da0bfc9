// Llama 4: chunked attention on RoPE layers, global attention on NoPE layers
// (no_rope_layers[i] == 0); routed experts plus a shared expert on moe_layers.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_llama4(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    slots.assign(n, Slot::full);
    if (c.has("attention_chunk_size")) {
      auto nr = c.uint_list("no_rope_layers");
      std::vector<u64> rope(n);
      if (nr && !nr->empty()) {
        if (nr->size() != n)
          c.fail_at(c.pointer("no_rope_layers"), "one entry per layer (" + std::to_string(n) + ")",
                    std::to_string(nr->size()) + " entries");
        rope = *nr;
      } else {
        const u64 interval = c.uint("no_rope_layer_interval").value_or(4);
        for (u64 i = 0; i < n; ++i) rope[i] = ((i + 1) % interval) != 0;
        x.note("llama4: no_rope_layers empty; transformers' default (every " + std::to_string(interval) +
               "th layer NoPE, global attention) used");
      }
      for (u64 i = 0; i < n; ++i) slots[i] = rope[i] ? Slot::chunked : Slot::full;
    }
  }
  add_attention_layers(x, slots, a);
}
// The vision encoder and projector (transformers modeling_llama4.py): Llama4VisionModel is an
// unfold "convolution" (a bias-free linear over num_channels x patch^2 pixels), a class embedding,
// a learned position embedding of (image_size // patch_size)^2 + 1 rows, LayerNorms before and
// after the encoder, num_hidden_layers encoder layers (q/k/v/o and a two-layer MLP, all with
// biases, two LayerNorms) and the pixel-shuffle adapter Llama4VisionMLP2 (fc1: intermediate_size ->
// projector_input_dim, fc2: projector_output_dim -> projector_output_dim, no biases);
// Llama4MultiModalProjector is one bias-free linear vision_output_dim -> text hidden_size.
// Names as the checkpoint stores them (vision_model.*, multi_modal_projector.*).
void count_llama4_vision(const ParamCtx& x) {
  const auto& root = x.c.root();
  if (!root.contains("vision_config") || !root["vision_config"].is_object()) return;  // text-only
  ConfigView v(root["vision_config"], x.c.source() + " /vision_config");
  // A field the config leaves out takes transformers' Llama4VisionConfig default, said in a note.
  const EncoderConfig enc{x, v, "llama4: vision_config", "Llama4VisionConfig"};
  auto field = [&](const char* key, u64 def) { return enc.uint(key, def); };
  const u64 h = field("hidden_size", 768), i = field("intermediate_size", 5632);
  const u64 depth = field("num_hidden_layers", 34), ch = field("num_channels", 3);
  const u64 image = field("image_size", 448), patch = field("patch_size", 14);
  const u64 proj_in = field("projector_input_dim", 4096), proj_out = field("projector_output_dim", 4096);
  const u64 out = field("vision_output_dim", 7680);
  const u64 side = image / patch;  // Llama4VisionModel: (image_size // patch_size) ** 2 + 1 positions
  const std::string p = "vision_model.";
  x.inv.add(C::other, K::linear, p + "patch_embedding.linear.weight", h, checked_product({ch, patch, patch}));
  x.inv.vec(C::other, p + "class_embedding", h);
  x.inv.add(C::other, K::embedding, p + "positional_embedding_vlm", checked_add(checked_mul(side, side, "patches"), 1), h);
  x.inv.norm(C::other, p + "layernorm_pre", h, true);
  x.inv.norm(C::other, p + "layernorm_post", h, true);
  for (u64 b = 0; b < depth; ++b) {
    const std::string q = p + "model.layers.*.";
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "o_proj"})
      x.inv.linear(C::other, q + "self_attn." + proj, h, h, true);
    x.inv.linear(C::other, q + "mlp.fc1", i, h, true);
    x.inv.linear(C::other, q + "mlp.fc2", h, i, true);
    x.inv.norm(C::other, q + "input_layernorm", h, true);
    x.inv.norm(C::other, q + "post_attention_layernorm", h, true);
  }
  x.inv.linear(C::other, p + "vision_adapter.mlp.fc1", proj_in, i);
  x.inv.linear(C::other, p + "vision_adapter.mlp.fc2", proj_out, proj_out);
  x.inv.linear(C::other, "multi_modal_projector.linear_1", x.h(), out);
  x.note("llama4: the vision encoder and projector weights are counted (component other, vision_model.*, "
         "multi_modal_projector.*)");
}

// Llama 4: every moe_layers layer has routed experts (fused gate_up) plus one shared expert;
// the others a dense MLP of intermediate_size_mlp. QK norm is a weightless L2 norm.
void count_llama4(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const u64 n = x.n();
  auto moe_layers = c.uint_list("moe_layers");
  if (!moe_layers || moe_layers->empty()) {
    const u64 step = c.uint("interleave_moe_layer_step").value_or(1);
    moe_layers.emplace();
    for (u64 i = step - 1; i < n; i += step) moe_layers->push_back(i);
  }
  const u64 e = x.m.dims.num_experts;
  const u64 ei = x.m.dims.intermediate_size;
  const u64 dense_i = c.uint("intermediate_size_mlp").value_or(ei);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string p = "language_model.model.layers.*.";
    AttnStyle as;
    as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
    if (e > 0 && in_list(moe_layers, i)) {
      const u64 k = top_k(x);
      x.inv.linear(C::moe_router, p + "feed_forward.router", e, h);
      x.inv.add(C::moe_routed, K::linear, p + "feed_forward.experts.gate_up_proj", 2 * ei, h, e, k);
      x.inv.add(C::moe_routed, K::linear, p + "feed_forward.experts.down_proj", h, ei, e, k);
      gated_mlp(x.inv, C::moe_shared, p + "feed_forward.shared_expert.", h, ei);
    } else {
      gated_mlp(x.inv, C::mlp_dense, p + "feed_forward.", h, dense_i);
    }
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "language_model.model.norm", h);
  embeddings(x.inv, x.m, "language_model.model.embed_tokens.weight", "language_model.lm_head");
  count_llama4_vision(x);
}

}  // namespace

std::vector<Family> llama4() {
  return {Family{.name = "llama4", .model_types = {"llama4", "llama4_text"}, .map_layers = map_llama4, .count_params = count_llama4}};
}

}  // namespace kvplan::detail::families
