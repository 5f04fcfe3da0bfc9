// Mamba-1 and Mamba-2 (pure state-space models).
#include "kvplan/checked.h"
#include "model/gguf_meta.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_mamba(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  // transformers MambaConfig: intermediate_size (default expand * hidden) is d_inner.
  const u64 hidden = hidden_size(c);
  const u64 d_inner =
      c.has("intermediate_size") ? c.require_uint("intermediate_size") : checked_mul(c.require_uint("expand"), hidden, "d_inner");
  const u64 d_state = c.require_uint("state_size");
  const auto m = build::mamba1(d_inner, d_state, c.require_uint("conv_kernel"));
  for (u64 i = 0; i < n; ++i) x.add(i, m);
}

void map_mamba2(const LoadCtx& x) {
  const u64 n = num_layers(x.cfg);
  const auto m = mamba2_from(x, "num_heads", "head_dim", "n_groups", "state_size", "conv_kernel");
  for (u64 i = 0; i < n; ++i) x.add(i, m);
}

void count_mamba(const ParamCtx& x) {
  const u64 h = x.h();
  const bool proj_bias = x.c.boolean("use_bias").value_or(false);
  const bool conv_bias = x.c.boolean("use_conv_bias").value_or(true);
  const u64 r = dt_rank(x, "time_step_rank");
  for (std::size_t i = 0; i < x.n(); ++i) {
    const auto m1 = build::mamba1_dims(x.cache(i));
    const auto m2 = build::mamba2_dims(x.cache(i));
    if (!m1 && !m2) continue;
    x.inv.norm(C::norms, "backbone.layers.*.norm", h);
    if (m2) mamba2_mixer(x, "backbone.layers.*.mixer.", *m2, proj_bias, conv_bias);
    else mamba1_mixer(x, "backbone.layers.*.mixer.", *m1, r, proj_bias, conv_bias, false);
  }
  x.inv.norm(C::norms, "backbone.norm_f", h);
  embeddings(x.inv, x.m, "backbone.embeddings.weight");
}

// GGUF (llama.cpp's mamba / mamba2 loaders): the SSM keys as convert_hf_to_gguf maps them.
void gguf_mamba(const GgufMeta& m, nlohmann::json& c) {
  const std::uint64_t inner = m.require("ssm.inner_size");
  c["intermediate_size"] = inner;
  c["state_size"] = m.require("ssm.state_size");
  c["conv_kernel"] = m.require("ssm.conv_kernel");
  if (auto hs = m.uint("embedding_length"); hs && *hs && inner % *hs == 0) c["expand"] = inner / *hs;
  if (auto r = m.uint("ssm.time_step_rank")) c["time_step_rank"] = *r;
}
void gguf_mamba2(const GgufMeta& m, nlohmann::json& c) {
  gguf_mamba2_fields(m, c, {"num_heads", "head_dim", "n_groups", "state_size", "conv_kernel"});
  c.erase("num_attention_heads");
  const std::uint64_t inner = m.require("ssm.inner_size");
  if (auto hs = m.uint("embedding_length"); hs && *hs && inner % *hs == 0) c["expand"] = inner / *hs;
}

}  // namespace

std::vector<Family> mamba() {
  return {Family{.name = "mamba",
                 .model_types = {"mamba"},
                 .gguf = {{.arch = "mamba", .model_type = "mamba", .translate = gguf_mamba}},
                 .map_layers = map_mamba,
                 .count_params = count_mamba,
                 .tie_word_embeddings = true},
          Family{.name = "mamba2",
                 .model_types = {"mamba2"},
                 .gguf = {{.arch = "mamba2", .model_type = "mamba2", .translate = gguf_mamba2}},
                 .map_layers = map_mamba2,
                 .count_params = count_mamba}};
}

}  // namespace kvplan::detail::families
