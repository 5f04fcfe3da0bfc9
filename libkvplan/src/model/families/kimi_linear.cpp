// Kimi Linear: 1-based kda_layers / full_attn_layers in linear_attn_config; KDA (linear attention
// with a short convolution) layers and MLA full layers. No parameter rule yet.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;

void map_kimi_linear(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const std::string lac = c.pointer("linear_attn_config");
  if (!c.has("linear_attn_config") || !c.text()["linear_attn_config"].is_object())
    c.fail("linear_attn_config", "an object with kda_layers, full_attn_layers, num_heads, head_dim", nullptr);
  ConfigView sub(c.text()["linear_attn_config"], c.source() + " " + lac);
  auto kda = sub.uint_list("kda_layers", false);
  auto full = sub.uint_list("full_attn_layers", false);
  if (!kda || !full) c.fail_at(lac, "kda_layers and full_attn_layers (1-based layer ids)", "a missing list");
  std::vector<Slot> slots(n, Slot::none);
  auto place = [&](const std::vector<u64>& ids, Slot s, const char* key) {
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] < 1 || ids[k] > n || slots[ids[k] - 1] != Slot::none)
        c.fail_at(lac + "/" + key + "/" + std::to_string(k),
                  "a 1-based layer id in 1.." + std::to_string(n) + " listed once across kda_layers and full_attn_layers",
                  std::to_string(ids[k]));
      slots[ids[k] - 1] = s;
    }
  };
  place(*kda, Slot::linear, "kda_layers");
  place(*full, Slot::full, "full_attn_layers");
  for (u64 i = 0; i < n; ++i)
    if (slots[i] == Slot::none)
      c.fail_at(lac, "every layer in kda_layers or full_attn_layers", "layer " + std::to_string(i + 1) + " in neither");
  const u64 heads = sub.require_uint("num_heads"), hd = sub.require_uint("head_dim");
  const auto k = build::linear_attention(build::LinearVariant::kda, heads, heads, hd, hd,
                                         sub.require_uint("short_conv_kernel_size"));
  const u64 rank = c.require_uint("kv_lora_rank");
  const u64 rope = c.require_uint("qk_rope_head_dim");
  const auto mla = build::mla(rank, rope);
  x.m.dims.mla_qk_nope_head_dim = c.uint("qk_nope_head_dim").value_or(0);
  x.m.dims.mla_v_head_dim = c.uint("v_head_dim").value_or(0);
  x.m.dims.mla_q_lora_rank = c.uint("q_lora_rank").value_or(0);
  x.m.dims.q_head_dim = x.m.dims.mla_qk_nope_head_dim + rope;
  if (!x.m.ssm_state_dtype) {
    x.m.ssm_state_dtype = Dtype::fp32;
    x.note(c.model_type() + ": KDA recurrent state kept in float32 (as vLLM and the reference kernels keep it)");
  }
  for (u64 i = 0; i < n; ++i) x.add(i, slots[i] == Slot::full ? mla : k);
}

}  // namespace

std::vector<Family> kimi_linear() {
  return {Family{.name = "kimi_linear", .model_types = {"kimi_linear"}, .map_layers = map_kimi_linear}};
}

}  // namespace kvplan::detail::families
