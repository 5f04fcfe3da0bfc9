// Falcon-H1 (transformers falcon_h1): every decoder layer runs softmax attention and a Mamba-2
// mixer side by side on the same input (FalconH1DecoderLayer in modeling_falcon_h1.py; vLLM
// falcon_h1.py FalconH1ParallelHybrid), so each layer holds a KV cache and a Mamba-2 state.
// Mamba-2 shape as FalconH1Config reads it (configuration_falcon_h1.py): the inner width is
// mamba_d_ssm (class default 1024; mamba_expand x hidden_size when null), mamba_d_head "auto"
// is that width / mamba_n_heads, and validate_architecture requires d_head x n_heads == width.
#include "kvplan/checked.h"
#include "model/mapping.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;

void map_falcon_h1(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  const u64 heads = c.require_uint("mamba_n_heads");
  u64 width = 0;
  if (c.text().contains("mamba_d_ssm")) {
    // Present: a width, or null for mamba_expand x hidden_size.
    if (auto w = c.uint("mamba_d_ssm")) width = *w;
    else width = checked_mul(c.require_uint("mamba_expand"), hidden_size(c), "Falcon-H1 Mamba width");
  } else {
    width = 1024;
    x.note("falcon_h1: mamba_d_ssm absent; FalconH1Config's default 1024 used");
  }
  u64 head_dim = 0;  // absent or "auto": width / heads
  if (const auto& t = c.text(); t.contains("mamba_d_head") && t["mamba_d_head"].is_string()) {
    if (t["mamba_d_head"] != "auto") c.fail("mamba_d_head", "a positive integer or \"auto\"", &t["mamba_d_head"]);
  } else if (auto d = c.uint("mamba_d_head")) {
    head_dim = *d;
  }
  if (head_dim == 0) {
    if (width % heads != 0)
      c.fail_at(c.pointer("mamba_n_heads"), "a head count dividing the Mamba width (" + std::to_string(width) + ")",
                std::to_string(heads));
    head_dim = width / heads;
  }
  if (checked_mul(head_dim, heads, "Falcon-H1 Mamba width") != width)
    c.fail_at(c.pointer("mamba_d_head"),
              "mamba_d_head x mamba_n_heads equal to the Mamba width mamba_d_ssm (" + std::to_string(width) + ")",
              std::to_string(head_dim) + " x " + std::to_string(heads));
  const u64 groups = c.uint("mamba_n_groups").value_or(1);
  if (groups == 0 || heads % groups != 0)
    c.fail_at(c.pointer("mamba_n_groups"), "a group count dividing mamba_n_heads (" + std::to_string(heads) + ")",
              std::to_string(groups));
  const LayerCache ssm =
      build::mamba2(heads, head_dim, groups, c.require_uint("mamba_d_state"), c.require_uint("mamba_d_conv"));
  reject_unmapped(x, {"sliding_window", "attn_layer_indices"});
  for (u64 i = 0; i < n; ++i) x.add_mixers(i, {build::full_attention(a.kv, a.k_dim, a.v_dim), ssm});
}

}  // namespace

std::vector<Family> falcon_h1() {
  return {Family{.name = "falcon_h1", .model_types = {"falcon_h1"}, .map_layers = map_falcon_h1}};
}

}  // namespace kvplan::detail::families
