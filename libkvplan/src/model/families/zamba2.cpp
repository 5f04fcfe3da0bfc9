// Zamba2 (transformers zamba2): every layer is a Mamba-2 layer; the "hybrid" layers of
// layers_block_type also run a shared transformer block first (Zamba2HybridLayer: the shared
// attention + MLP, then the Mamba-2 layer), whose attention keeps its own K/V per hybrid layer
// (Zamba2HybridDynamicCache; vLLM zamba2.py). Shapes as Zamba2Config computes them
// (configuration_zamba2.py): attention over 2 x hidden_size, attention_head_dim
// = 2 x hidden_size / num_attention_heads (whatever attention_head_dim the file holds: __post_init__
// recomputes it), num_attention_heads (class default 32), num_key_value_heads (default: the head count),
// num_hidden_layers (class default 54);
// Mamba-2 of n_mamba_heads heads of mamba_headdim = mamba_expand x hidden_size / n_mamba_heads,
// mamba_ngroups groups, mamba_d_state, mamba_d_conv. Without layers_block_type the class default
// pattern applies, which is defined for its 54 layers only. transformers 5 names the Mamba-2-only
// layers "linear_attention" (remap_legacy_layer_types maps the older "mamba" to it); both are read.
#include "kvplan/checked.h"
#include "model/mapping.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;

std::vector<std::string> block_types(const LoadCtx& x, u64 n) {
  const auto& c = x.cfg;
  if (auto list = c.string_list("layers_block_type")) {
    if (list->size() != n)
      c.fail_at(c.pointer("layers_block_type"), "one entry per layer (" + std::to_string(n) + ")",
                std::to_string(list->size()) + " entries");
    return *list;
  }
  // Zamba2Config's default: ["mamba"] + (["mamba"] * 5 + ["hybrid"]) * 7 + ["mamba"] * 4 +
  // ["hybrid"] + ["mamba"] * 3 + ["hybrid"] + ["mamba"] * 2, 54 layers.
  if (n != 54)
    c.fail("layers_block_type", "a list of \"mamba\" / \"hybrid\" per layer (Zamba2Config's default pattern has 54 layers)",
           nullptr);
  std::vector<std::string> t{"mamba"};
  for (int r = 0; r < 7; ++r) {
    t.insert(t.end(), 5, "mamba");
    t.push_back("hybrid");
  }
  t.insert(t.end(), 4, "mamba");
  t.push_back("hybrid");
  t.insert(t.end(), 3, "mamba");
  t.push_back("hybrid");
  t.insert(t.end(), 2, "mamba");
  x.note("zamba2: layers_block_type absent; Zamba2Config's default 54-layer pattern used");
  return t;
}

void map_zamba2(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::optional<u64> given_layers = c.uint("num_hidden_layers");
  if (!given_layers) x.note("zamba2: num_hidden_layers absent; Zamba2Config's default 54 used");
  const u64 n = given_layers.value_or(54);
  const u64 hidden = hidden_size(c);
  const std::optional<u64> given_heads = c.uint("num_attention_heads");
  if (!given_heads) x.note("zamba2: num_attention_heads absent; Zamba2Config's default 32 used");
  const u64 heads = given_heads.value_or(32);
  const u64 attn_width = checked_mul(2, hidden, "Zamba2 attention width");
  if (attn_width % heads != 0)
    c.fail_at(c.pointer("num_attention_heads"), "a head count dividing 2 x hidden_size (" + std::to_string(attn_width) + ")",
              std::to_string(heads));
  const u64 head_dim = attn_width / heads;
  const u64 kv = c.uint("num_key_value_heads").value_or(heads);
  if (heads % kv != 0)
    c.fail_at(c.pointer("num_key_value_heads"), "a KV head count dividing num_attention_heads (" + std::to_string(heads) + ")",
              std::to_string(kv));
  x.m.dims.q_head_dim = head_dim;
  const u64 width = checked_mul(c.require_uint("mamba_expand"), hidden, "Zamba2 Mamba width");
  const u64 m_heads = c.require_uint("n_mamba_heads");
  if (width % m_heads != 0)
    c.fail_at(c.pointer("n_mamba_heads"), "a head count dividing mamba_expand x hidden_size (" + std::to_string(width) + ")",
              std::to_string(m_heads));
  const u64 groups = c.uint("mamba_ngroups").value_or(1);
  if (groups == 0 || m_heads % groups != 0)
    c.fail_at(c.pointer("mamba_ngroups"), "a group count dividing n_mamba_heads (" + std::to_string(m_heads) + ")",
              std::to_string(groups));
  const LayerCache ssm =
      build::mamba2(m_heads, width / m_heads, groups, c.require_uint("mamba_d_state"), c.require_uint("mamba_d_conv"));
  const LayerCache attn = build::full_attention(kv, head_dim, head_dim);
  const std::vector<std::string> types = block_types(x, n);
  for (u64 i = 0; i < n; ++i) {
    if (types[i] == "mamba" || types[i] == "linear_attention") x.add(i, ssm);
    else if (types[i] == "hybrid") x.add_mixers(i, {attn, ssm});
    else c.fail_at(c.pointer("layers_block_type") + "/" + std::to_string(i), "\"mamba\" (or \"linear_attention\") or \"hybrid\"", "\"" + types[i] + "\"");
  }
}

}  // namespace

std::vector<Family> zamba2() {
  return {Family{.name = "zamba2", .model_types = {"zamba2"}, .map_layers = map_zamba2}};
}

}  // namespace kvplan::detail::families
