// Granite 4.0 hybrid (granitemoehybrid): layer_types of "mamba" (Mamba-2) and "attention".
// No parameter rule yet.
#include "kvplan/checked.h"
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

}  // namespace

std::vector<Family> granite_hybrid() {
  return {Family{.name = "granitemoehybrid", .model_types = {"granitemoehybrid"}, .map_layers = map_granite_hybrid}};
}

}  // namespace kvplan::detail::families
