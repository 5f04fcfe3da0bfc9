// Decoders whose layers are all plain full attention (transformers' configs for them have no window
// or recurrent field) and for which kvplan has no weight rule of its own: the generic-decoder
// estimate counts them when their fields allow. GPT-J and OPT have one KV head per query head.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
std::uint64_t kv_all_heads(const LoadCtx&, std::uint64_t heads) { return heads; }

}  // namespace

std::vector<Family> plain_decoders() {
  return {Family{.name = "plain attention",
                 .model_types = {"olmo", "olmo2", "granite", "internlm2", "stablelm", "exaone",
                                 "glm", "glm4", "glm4_moe", "deepseek", "qwen", "baichuan", "mpt"},
                 .map_layers = map_plain_attention},
          Family{.name = "gptj", .model_types = {"gptj"}, .map_layers = map_plain_attention, .kv_heads = kv_all_heads},
          Family{.name = "opt",
                 .model_types = {"opt"},
                 .map_layers = map_plain_attention,
                 .tie_word_embeddings = true,
                 .kv_heads = kv_all_heads}};
}

}  // namespace kvplan::detail::families
