// Gemma 1/2/3/3n: Gemma 2 alternates sliding and full layers; Gemma 3 has one full layer per
// sliding_window_pattern (default 6); Gemma 3n one in five; explicit layer_types win
// (transformers Gemma2Config / Gemma3TextConfig / Gemma3nTextConfig).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
void map_with_pattern(const LoadCtx& x, std::uint64_t pattern_default, bool pattern_field, const char* missing_note) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
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
}
void map_gemma3n(const LoadCtx& x) {
  map_with_pattern(x, 5, false, ": layer_types not set; transformers' default (4 sliding : 1 full) used");
}

}  // namespace

std::vector<Family> gemma() {
  return {Family{.name = "gemma",
                 .model_types = {"gemma"},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {}); },
                 .tie_word_embeddings = true},
          Family{.name = "gemma2",
                 .model_types = {"gemma2"},
                 .map_layers = map_gemma2,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.norms_per_layer = 4}); },
                 .tie_word_embeddings = true,
                 .sliding_window_default = 4096},
          Family{.name = "gemma3",
                 .model_types = {"gemma3", "gemma3_text"},
                 .map_layers = map_gemma3,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.qk_norm = true, .norms_per_layer = 4}); },
                 .tie_word_embeddings = true,
                 .sliding_window_default = 4096},
          Family{.name = "gemma3n",
                 .model_types = {"gemma3n", "gemma3n_text"},
                 .map_layers = map_gemma3n,
                 .sliding_window_default = 512}};
}

}  // namespace kvplan::detail::families
