// Config readers shared by the family files (model/families/*.cpp).
#include "model/mapping.h"

#include <map>

#include "kvplan/checked.h"
#include "kvplan/units.h"

namespace kvplan::detail {

std::uint64_t num_layers(const ConfigView& c) {
  auto n = c.require_uint_any({"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  if (n > kMaxLayers) {
    for (auto k : {"num_hidden_layers", "n_layer", "num_layers", "n_layers"})
      if (c.has(k)) c.fail(k, "a layer count of at most " + format_count(kMaxLayers), &c.text()[k]);
  }
  return n;
}
std::uint64_t hidden_size(const ConfigView& c) { return c.require_uint_any({"hidden_size", "n_embd", "d_model"}); }
std::uint64_t attention_heads(const ConfigView& c) {
  return c.require_uint_any({"num_attention_heads", "n_head", "num_heads", "n_heads"});
}

std::uint64_t kv_heads_all(const LoadCtx&, std::uint64_t heads) { return heads; }

std::uint64_t kv_heads(const LoadCtx& x, std::uint64_t heads) {
  const auto& c = x.cfg;
  std::uint64_t kv = 0;
  if (x.family.kv_heads) {
    kv = x.family.kv_heads(x, heads);
  } else {
    auto v = c.uint_any({"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"});
    // Step's configs give their KV heads as num_attention_groups; read it only where a family says
    // so (step3_text), never by default: without a family it is refused, not sized as full MHA.
    if (!v && c.has("num_attention_groups"))
      c.fail_at(c.pointer("num_attention_groups"),
                "num_key_value_heads (num_attention_groups is read as the KV head count only by the Step-3 "
                "family, step3_text; this model_type has no family that reads it)",
                "num_attention_groups without num_key_value_heads");
    kv = v ? *v : heads;  // transformers: num_key_value_heads defaults to num_attention_heads
  }
  if (kv > heads || heads % kv != 0)
    c.fail_at(c.pointer("num_key_value_heads"),
              "a KV head count that divides num_attention_heads (" + std::to_string(heads) + ")", std::to_string(kv));
  return kv;
}

std::uint64_t head_dim(const ConfigView& c, std::uint64_t hidden, std::uint64_t heads) {
  if (auto hd = c.uint_any({"head_dim", "attention_head_dim", "kv_channels"})) return *hd;
  if (hidden % heads != 0)
    c.fail_at(c.pointer("head_dim"),
              "head_dim, or a hidden_size divisible by num_attention_heads (" + std::to_string(hidden) + " / " +
                  std::to_string(heads) + ")",
              "nothing (field missing)");
  return hidden / heads;
}

namespace {
Slot parse_layer_type(const LoadCtx& x, const std::string& key, std::size_t i, const std::string& t) {
  static const std::map<std::string, Slot> kTypes = {
      {"full_attention", Slot::full},     {"attention", Slot::full},          {"global", Slot::full},
      {"sliding_attention", Slot::sliding}, {"local", Slot::sliding},         {"chunked_attention", Slot::chunked},
      {"linear_attention", Slot::linear}, {"mamba", Slot::mamba},             {"conv", Slot::conv}};
  auto it = kTypes.find(t);
  if (it == kTypes.end())
    x.cfg.fail_at(slot_pointer(x, key, i),
                  "a known layer type (full_attention, sliding_attention, chunked_attention, linear_attention, "
                  "mamba, conv)",
                  "\"" + t + "\"");
  return it->second;
}
}  // namespace

build::AttnDims attention_shape(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t hidden = hidden_size(c), heads = attention_heads(c);
  build::AttnDims a;
  a.kv = kv_heads(x, heads);
  a.k_dim = head_dim(c, hidden, heads);
  a.v_dim = a.k_dim;
  x.m.dims.q_head_dim = a.k_dim;
  return a;
}

std::string slot_pointer(const LoadCtx& x, std::string_view key, std::size_t i) {
  return x.cfg.pointer(key) + "/" + std::to_string(i);
}

std::vector<Slot> layer_types_field(const LoadCtx& x, std::uint64_t n) {
  auto types = x.cfg.string_list("layer_types");
  std::vector<Slot> out;
  if (!types) return out;
  if (types->size() != n)
    x.cfg.fail_at(x.cfg.pointer("layer_types"), "one entry per layer (" + std::to_string(n) + ")",
                  std::to_string(types->size()) + " entries");
  for (std::size_t i = 0; i < types->size(); ++i) out.push_back(parse_layer_type(x, "layer_types", i, (*types)[i]));
  return out;
}

std::vector<Slot> pattern_slots(std::uint64_t n, std::uint64_t pattern) {
  std::vector<Slot> s(n);
  for (std::uint64_t i = 0; i < n; ++i) s[i] = ((i + 1) % pattern) ? Slot::sliding : Slot::full;
  return s;
}

std::uint64_t require_window(const LoadCtx& x) {
  auto w = x.cfg.uint_any({"sliding_window", "sliding_window_size"});
  if (w) return *w;
  if (const auto fallback = x.family.sliding_window_default) {
    x.note(x.cfg.model_type() + ": sliding_window not set; transformers' default " + std::to_string(fallback) + " used");
    return fallback;
  }
  x.cfg.fail("sliding_window", "a positive integer (the layer types include sliding layers)", nullptr);
}

void reject_unmapped(const LoadCtx& x, std::initializer_list<std::string_view> keys) {
  for (auto k : keys)
    if (x.cfg.has(k))
      throw UnsupportedArchitecture::field(x.cfg.source(), x.cfg.model_type(), x.cfg.pointer(k),
                                           std::string("field \"") + std::string(k) +
                                               "\" changes the cache layout but kvplan has no rule for it in "
                                               "this model type");
}

void add_attention_layers(const LoadCtx& x, const std::vector<Slot>& slots, const build::AttnDims& a) {
  std::uint64_t window = 0, chunk = 0;
  if (std::count(slots.begin(), slots.end(), Slot::sliding) > 0) window = require_window(x);
  if (std::count(slots.begin(), slots.end(), Slot::chunked) > 0) chunk = x.cfg.require_uint("attention_chunk_size");
  for (std::size_t i = 0; i < slots.size(); ++i) {
    switch (slots[i]) {
      case Slot::full: x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim)); break;
      case Slot::sliding: x.add(i, build::sliding_attention(a.kv, a.k_dim, a.v_dim, window)); break;
      case Slot::chunked: x.add(i, build::chunked_attention(a.kv, a.k_dim, a.v_dim, chunk)); break;
      default:
        x.cfg.fail_at(slot_pointer(x, "layer_types", i), "an attention layer type",
                      "a non-attention layer in an attention-only model");
    }
  }
}

std::vector<Slot> plain_attention_slots(const LoadCtx& x, std::uint64_t n) {
  // No windowed layers in these families; a window field here is unmapped.
  reject_unmapped(x, {"sliding_window", "attention_chunk_size", "kv_lora_rank"});
  // --assume dense never covers a config that names recurrent or linear layers.
  reject_unmapped(x, {"mamba_d_state", "mamba_d_ssm", "ssm_state_size", "state_size", "mamba_n_heads",
                      "linear_attn_config", "attn_type_list", "hybrid_override_pattern", "full_attention_interval",
                      "linear_num_key_heads", "conv_L_cache", "layers_block_type", "attn_layer_period"});
  return std::vector<Slot>(n, Slot::full);
}

void map_plain_attention(const LoadCtx& x) {
  const std::uint64_t n = num_layers(x.cfg);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) slots = plain_attention_slots(x, n);
  add_attention_layers(x, slots, a);
}

bool map_from_layer_types(const LoadCtx& x) {
  const auto& c = x.cfg;
  auto types = c.string_list("layer_types");
  if (!types || types->empty()) return false;
  for (const auto& t : *types)
    if (t != "full_attention" && t != "sliding_attention") return false;
  // Fields the rule does not read that change the cache layout: a family must map them.
  for (auto k : {"kv_lora_rank", "attention_chunk_size", "mamba_d_state", "ssm_state_size", "linear_attn_config",
                 "attn_type_list", "hybrid_override_pattern", "linear_num_key_heads", "num_kv_shared_layers",
                 "layers_block_type", "block_configs"})
    if (c.has(k)) return false;
  const std::uint64_t n = num_layers(c);
  std::vector<Slot> slots = layer_types_field(x, n);
  const build::AttnDims full = attention_shape(x);
  const std::uint64_t heads = attention_heads(c);
  build::AttnDims f = full, s;
  f.v_dim = c.uint("v_head_dim").value_or(full.k_dim);
  s.kv = c.uint("swa_num_key_value_heads").value_or(f.kv);
  s.k_dim = c.uint("swa_head_dim").value_or(f.k_dim);
  s.v_dim = c.uint("swa_v_head_dim").value_or(c.has("swa_head_dim") ? s.k_dim : f.v_dim);
  if (s.kv == 0 || s.kv > heads || heads % s.kv != 0)
    c.fail_at(c.pointer("swa_num_key_value_heads"),
              "a KV head count that divides num_attention_heads (" + std::to_string(heads) + ")", std::to_string(s.kv));
  std::uint64_t window = 0;
  std::size_t n_sliding = 0;
  for (auto sl : slots) n_sliding += sl == Slot::sliding;
  if (n_sliding) window = require_window(x);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i] == Slot::sliding) x.add(i, build::sliding_attention(s.kv, s.k_dim, s.v_dim, window));
    else x.add(i, build::full_attention(f.kv, f.k_dim, f.v_dim));
  }
  x.note("model_type " + c.model_type() + " has no family of its own; mapped from layer_types (" +
         std::to_string(n - n_sliding) + " full, " + std::to_string(n_sliding) +
         " sliding attention) with the per-type KV heads and head dims the config gives");
  return true;
}

}  // namespace kvplan::detail

namespace kvplan::detail {
void map_uniform_window(const LoadCtx& x) {
  const std::uint64_t n = num_layers(x.cfg);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) slots.assign(n, x.cfg.uint_any({"sliding_window"}) ? Slot::sliding : Slot::full);
  add_attention_layers(x, slots, a);
}

LayerCache mamba2_from(const LoadCtx& x, std::string_view heads_key, std::string_view head_dim_key,
                       std::string_view groups_key, std::string_view state_key, std::string_view conv_key) {
  const auto& c = x.cfg;
  const std::uint64_t heads = c.require_uint(heads_key);
  const std::uint64_t head_dim = c.require_uint(head_dim_key);
  const std::uint64_t groups = c.uint(groups_key).value_or(1);
  const std::uint64_t d_state = c.require_uint(state_key);
  const std::uint64_t conv = c.require_uint(conv_key);
  LayerCache m = build::mamba2(heads, head_dim, groups, d_state, conv);
  if (groups == 0 || heads % groups != 0)
    c.fail_at(c.pointer(groups_key), "a group count dividing the Mamba-2 heads (" + std::to_string(heads) + ")",
              std::to_string(groups));
  return m;
}
}  // namespace kvplan::detail
