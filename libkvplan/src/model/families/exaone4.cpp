// EXAONE 4 (transformers Exaone4Config / modeling_exaone4.py): layer_types names full and
// sliding-window layers (the 1.2B model is global-only), one KV shape; q/k RMSNorm and two norms
// per layer (post-attention, post-feedforward).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
// Without layer_types only a config without a window is certain (every layer full).
void map_exaone4(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    if (c.has("sliding_window"))
      c.fail("layer_types", "a layer_types list (exaone4 with a sliding_window names its sliding layers there)", nullptr);
    slots.assign(n, Slot::full);
  }
  add_attention_layers(x, slots, a);
}

}  // namespace

std::vector<Family> exaone4() {
  return {Family{.name = "exaone4",
                 .model_types = {"exaone4"},
                 .map_layers = map_exaone4,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.qk_norm = true}); }}};
}

}  // namespace kvplan::detail::families
