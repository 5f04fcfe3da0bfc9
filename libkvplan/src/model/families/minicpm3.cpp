// MiniCPM3 (remote code modeling_minicpm.py, model_type minicpm3; vLLM minicpm3.py). The model's
// attention is MLA-shaped (kv_lora_rank, qk_rope_head_dim), but no engine kvplan judges caches the
// latent: vLLM's MiniCPM3Attention decompresses it and hands Attention() full per-head K and V,
// num_attention_heads heads of qk_nope_head_dim + qk_rope_head_dim each, V zero-padded from
// v_head_dim up to that width ("v = pad(v, [0, qk_head_dim - v_head_dim])"; vllm-project/vllm
// vllm/model_executor/models/minicpm3.py @ 009ccee09595bc1ed5de28164ea2490a5ba1ce84). So every layer
// is full attention with num_attention_heads KV heads and K = V = qk_nope + qk_rope wide. An
// engine that cached the 256 + 32 latent would hold less: this is the unfavourable end.
//
// Weights: not counted (q_a/q_b and kv_a/kv_b low-rank projections; no rule proven yet).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
void map_minicpm3(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c), heads = attention_heads(c);
  const std::uint64_t width = checked_add(c.require_uint("qk_nope_head_dim"), c.require_uint("qk_rope_head_dim"),
                                          "qk_nope_head_dim + qk_rope_head_dim");
  (void)c.require_uint("kv_lora_rank");  // the MLA shape this mapping decompresses
  reject_unmapped(x, {"sliding_window", "attention_chunk_size"});
  x.m.dims.q_head_dim = width;
  x.note("minicpm3: cached as vLLM holds it, " + std::to_string(heads) + " K/V heads of " + std::to_string(width) +
         " (qk_nope + qk_rope; V padded to that width), not the " + std::to_string(*c.uint("kv_lora_rank")) +
         "-wide latent");
  for (std::uint64_t i = 0; i < n; ++i) x.add(i, build::full_attention(heads, width, width));
}
}  // namespace

std::vector<Family> minicpm3() {
  return {Family{.name = "minicpm3",
                 .model_types = {"minicpm3"},
                 .map_layers = map_minicpm3,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "MiniCPM3: low-rank q/kv projections, not proven against a published count");
                 }}};
}

}  // namespace kvplan::detail::families
