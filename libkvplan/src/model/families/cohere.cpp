// Cohere (Command R): plain attention. Cohere 2 (Command R7B): one full layer per
// sliding_window_pattern (default 4); a parallel block with one LayerNorm per layer.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
void map_cohere2(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    auto p = c.uint_any({"sliding_window_pattern", "_sliding_window_pattern"});
    if (!p) x.note(c.model_type() + ": sliding_window_pattern not set; transformers' default 4 used (3 sliding : 1 full)");
    slots = pattern_slots(n, p.value_or(4));
  }
  add_attention_layers(x, slots, a);
}

}  // namespace

std::vector<Family> cohere() {
  return {Family{.name = "cohere", .model_types = {"cohere"}, .map_layers = map_plain_attention, .tie_word_embeddings = true},
          Family{.name = "cohere2",
                 .model_types = {"cohere2"},
                 .map_layers = map_cohere2,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.norms_per_layer = 1}); },
                 .tie_word_embeddings = true,
                 .sliding_window_default = 4096}};
}

}  // namespace kvplan::detail::families
