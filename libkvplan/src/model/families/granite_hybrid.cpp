// Granite 4.0 hybrid (granitemoehybrid): layer_types of "mamba" (Mamba-2) and "attention".
// No parameter rule yet.
#include "kvplan/checked.h"
#include "model/gguf_meta.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

void map_granite_hybrid(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  auto types = c.string_list("layer_types");
  if (!types) c.fail("layer_types", "a list of \"mamba\" / \"attention\" per layer", nullptr);
  auto slots = layer_types_field(x, n);
  const build::AttnDims a = attention_shape(x);
  const auto m = mamba2_from(x, "mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv");
  for (u64 i = 0; i < n; ++i) {
    if (slots[i] == Slot::mamba) x.add(i, m);
    else if (slots[i] == Slot::full) x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim));
    else c.fail_at(slot_pointer(x, "layer_types", i), "\"mamba\" or \"attention\"", "another type");
  }
}

// GGUF (llama.cpp's granitehybrid): Mamba-2 keys, and a layer is recurrent where
// head_count_kv(il) == 0.
void gguf_granite_hybrid(const GgufMeta& m, nlohmann::json& c) {
  gguf_mamba2_fields(m, c, {"mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv"});
  if (m.kv_heads.empty()) m.bad("attention.head_count_kv", "one KV head count per layer (0 = Mamba-2 layer)");
  nlohmann::json types = nlohmann::json::array();
  for (std::uint64_t x : m.kv_heads) types.push_back(x == 0 ? "mamba" : "attention");
  c["layer_types"] = types;
}

}  // namespace

std::vector<Family> granite_hybrid() {
  return {Family{.name = "granitemoehybrid",
                 .model_types = {"granitemoehybrid"},
                 .gguf = {{.arch = "granitehybrid", .model_type = "granitemoehybrid", .per_layer_kv_heads = true,
                           .translate = gguf_granite_hybrid}},
                 .map_layers = map_granite_hybrid}};
}

}  // namespace kvplan::detail::families
