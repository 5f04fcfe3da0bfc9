// config.json -> ModelSpec. Each family maps its fields onto the layer kinds in layer.h;
// transformers' class defaults are applied for omitted fields, and anything that cannot be
// mapped with certainty is an error naming model_type and the field.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "util/config_view.h"
#include "kvplan/checked.h"
#include "kvplan/files.h"
#include "kvplan/model.h"
#include "kvplan/registry.h"
#include "kvplan/units.h"
#include "model/parameters_internal.h"

namespace kvplan {

using detail::ConfigView;

namespace {

struct Ctx {
  const ConfigView& cfg;
  ModelSpec& m;
  const LoadOptions& opts;
  bool assumed(std::string_view what) const {
    return std::find(opts.assume.begin(), opts.assume.end(), what) != opts.assume.end();
  }
  void note(std::string s) const { m.assumptions.push_back(std::move(s)); }
};

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

// The KV head count, family by family (transformers' rules).
std::uint64_t kv_heads(const Ctx& x, std::uint64_t heads) {
  const auto& c = x.cfg;
  const std::string& mt = c.model_type();
  std::uint64_t kv = 0;
  if (mt == "gpt2" || mt == "gpt_neox" || mt == "gptj" || mt == "opt" || mt == "bloom") {
    kv = heads;
  } else if (mt == "gpt_bigcode") {
    kv = c.boolean("multi_query").value_or(true) ? 1 : heads;
  } else if (mt == "falcon" || mt == "RefinedWeb" || mt == "RefinedWebModel") {
    bool new_arch = c.boolean("new_decoder_architecture").value_or(mt == "RefinedWeb");
    if (new_arch) {
      kv = c.uint_any({"num_kv_heads", "n_head_kv"}).value_or(heads);
    } else {
      kv = c.boolean("multi_query").value_or(true) ? 1 : heads;
      if (c.has("num_kv_heads") && *c.uint("num_kv_heads") != kv)
        x.note("falcon: num_kv_heads is ignored because new_decoder_architecture is false; "
               "multi_query decides (" + std::to_string(kv) + " KV head" + (kv == 1 ? "" : "s") + ")");
    }
  } else {
    auto v = c.uint_any({"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"});
    if (v) kv = *v;
    else kv = heads;  // transformers: num_key_value_heads defaults to num_attention_heads
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

struct AttnShape {
  std::uint64_t kv = 0, k_dim = 0, v_dim = 0;
};

AttnShape attention_shape(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t hidden = hidden_size(c), heads = attention_heads(c);
  AttnShape a;
  a.kv = kv_heads(x, heads);
  a.k_dim = head_dim(c, hidden, heads);
  a.v_dim = a.k_dim;
  x.m.dims.q_head_dim = a.k_dim;
  return a;
}

enum class Slot { full, sliding, chunked, linear, mamba, conv, none };

Slot parse_layer_type(const Ctx& x, const std::string& key, std::size_t i, const std::string& t) {
  static const std::map<std::string, Slot> kTypes = {
      {"full_attention", Slot::full},     {"attention", Slot::full},          {"global", Slot::full},
      {"sliding_attention", Slot::sliding}, {"local", Slot::sliding},         {"chunked_attention", Slot::chunked},
      {"linear_attention", Slot::linear}, {"mamba", Slot::mamba},             {"conv", Slot::conv}};
  auto it = kTypes.find(t);
  if (it == kTypes.end())
    x.cfg.fail_at(x.cfg.pointer(key) + "/" + std::to_string(i),
                  "a known layer type (full_attention, sliding_attention, chunked_attention, linear_attention, "
                  "mamba, conv)",
                  "\"" + t + "\"");
  return it->second;
}

std::vector<Slot> layer_types_field(const Ctx& x, std::uint64_t n) {
  auto types = x.cfg.string_list("layer_types");
  std::vector<Slot> out;
  if (!types) return out;
  if (types->size() != n)
    x.cfg.fail_at(x.cfg.pointer("layer_types"), "one entry per layer (" + std::to_string(n) + ")",
                  std::to_string(types->size()) + " entries");
  for (std::size_t i = 0; i < types->size(); ++i) out.push_back(parse_layer_type(x, "layer_types", i, (*types)[i]));
  return out;
}

std::uint64_t require_window(const Ctx& x, std::uint64_t fallback = 0) {
  auto w = x.cfg.uint_any({"sliding_window", "sliding_window_size"});
  if (w) return *w;
  if (fallback) {
    x.note(x.cfg.model_type() + ": sliding_window not set; transformers' default " + std::to_string(fallback) + " used");
    return fallback;
  }
  x.cfg.fail("sliding_window", "a positive integer (the layer types include sliding layers)", nullptr);
}

// Fails when a field that changes the cache layout is present but this family has no rule for it.
void reject_unmapped(const Ctx& x, std::initializer_list<std::string_view> keys) {
  for (auto k : keys)
    if (x.cfg.has(k))
      throw UnsupportedArchitecture::field(x.cfg.source(), x.cfg.model_type(), x.cfg.pointer(k),
                                           std::string("field \"") + std::string(k) +
                                               "\" changes the cache layout but kvplan has no rule for it in "
                                               "this model type");
}

// Attention-only decoders: the per-layer slots decide full / sliding / chunked.
void build_attention_layers(const Ctx& x, const std::vector<Slot>& slots, const AttnShape& a, std::uint64_t window,
                            std::uint64_t chunk) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    LayerCache cache;
    switch (slots[i]) {
      case Slot::full: cache = FullAttention{a.kv, a.k_dim, a.v_dim}; break;
      case Slot::sliding: cache = SlidingAttention{a.kv, a.k_dim, a.v_dim, window}; break;
      case Slot::chunked: cache = ChunkedAttention{a.kv, a.k_dim, a.v_dim, chunk}; break;
      default:
        x.cfg.fail_at(x.cfg.pointer("layer_types") + "/" + std::to_string(i), "an attention layer type",
                      "a non-attention layer in an attention-only model");
    }
    x.m.layers.push_back({i, cache});
  }
}

// ---- attention-only families ---------------------------------------------------------------

// Pattern rule shared by Gemma 2/3 and Cohere 2: layer i slides unless (i+1) % pattern == 0.
std::vector<Slot> pattern_slots(std::uint64_t n, std::uint64_t pattern) {
  std::vector<Slot> s(n);
  for (std::uint64_t i = 0; i < n; ++i) s[i] = ((i + 1) % pattern) ? Slot::sliding : Slot::full;
  return s;
}

void map_dense(const Ctx& x) {
  const auto& c = x.cfg;
  const std::string& mt = c.model_type();
  const std::uint64_t n = num_layers(c);
  AttnShape a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  std::uint64_t window = 0, chunk = 0;
  const bool explicit_types = !slots.empty();

  static const std::set<std::string> kUniformWindow = {"mistral", "mixtral", "phi3", "phimoe", "starcoder2",
                                                       "ministral", "mistral3_text"};
  static const std::set<std::string> kQwenGated = {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"};
  static const std::set<std::string> kNoWindowRule = {"llama", "gemma", "gpt2", "gpt_bigcode", "falcon", "phi",
                                                      "phi-msft", "gpt_neox", "olmo", "olmo2", "olmoe", "granite",
                                                      "granitemoe", "internlm2", "stablelm", "cohere", "exaone",
                                                      "glm", "glm4", "glm4_moe", "RefinedWeb", "RefinedWebModel",
                                                      "deepseek", "qwen", "baichuan", "yi", "mpt", "gptj", "opt"};
  if (explicit_types) {
    // layer_types decides (transformers >= 4.53 writes it for every windowed family).
  } else if (kUniformWindow.count(mt)) {
    auto w = c.uint_any({"sliding_window"});
    slots.assign(n, w ? Slot::sliding : Slot::full);
  } else if (kQwenGated.count(mt)) {
    // transformers: sliding only when use_sliding_window, and only for layers >= max_window_layers.
    const bool use = c.boolean("use_sliding_window").value_or(false);
    slots.assign(n, Slot::full);
    if (use && c.has("sliding_window")) {
      const std::uint64_t first = c.uint("max_window_layers", true).value_or(28);
      for (std::uint64_t i = first; i < n; ++i) slots[i] = Slot::sliding;
    }
  } else if (mt == "gemma2") {
    slots = pattern_slots(n, 2);
  } else if (mt == "gemma3" || mt == "gemma3_text") {
    auto p = c.uint_any({"sliding_window_pattern", "_sliding_window_pattern"});
    if (!p) x.note(mt + ": sliding_window_pattern not set; transformers' default 6 used (5 sliding : 1 full)");
    slots = pattern_slots(n, p.value_or(6));
  } else if (mt == "gemma3n" || mt == "gemma3n_text") {
    // transformers' Gemma3nTextConfig: every 5th layer full, the rest sliding.
    slots = pattern_slots(n, 5);
    x.note(mt + ": layer_types not set; transformers' default (4 sliding : 1 full) used");
  } else if (mt == "cohere2") {
    auto p = c.uint_any({"sliding_window_pattern", "_sliding_window_pattern"});
    if (!p) x.note(mt + ": sliding_window_pattern not set; transformers' default 4 used (3 sliding : 1 full)");
    slots = pattern_slots(n, p.value_or(4));
  } else if (mt == "gpt_oss") {
    slots = pattern_slots(n, 2);
    x.note("gpt_oss: layer_types not set; transformers' default alternation (sliding, full, ...) used");
  } else if (mt == "llama4" || mt == "llama4_text") {
    slots.assign(n, Slot::full);
    if (c.has("attention_chunk_size")) {
      // Rope layers use chunked attention; NoPE layers (no_rope_layers[i] == 0) attend globally.
      auto nr = c.uint_list("no_rope_layers");
      std::vector<std::uint64_t> rope(n);
      if (nr && !nr->empty()) {
        if (nr->size() != n)
          c.fail_at(c.pointer("no_rope_layers"), "one entry per layer (" + std::to_string(n) + ")",
                    std::to_string(nr->size()) + " entries");
        rope = *nr;
      } else {
        const std::uint64_t interval = c.uint("no_rope_layer_interval").value_or(4);
        for (std::uint64_t i = 0; i < n; ++i) rope[i] = ((i + 1) % interval) != 0;
        x.note("llama4: no_rope_layers empty; transformers' default (every " + std::to_string(interval) +
               "th layer NoPE, global attention) used");
      }
      for (std::uint64_t i = 0; i < n; ++i) slots[i] = rope[i] ? Slot::chunked : Slot::full;
    }
  } else if (kNoWindowRule.count(mt) || x.assumed("dense")) {
    // These families have no windowed layers in transformers; a window field here is unmapped.
    reject_unmapped(x, {"sliding_window", "attention_chunk_size", "kv_lora_rank"});
    // --assume dense never covers a config that names recurrent or linear layers.
    reject_unmapped(x, {"mamba_d_state", "mamba_d_ssm", "ssm_state_size", "state_size", "mamba_n_heads",
                        "linear_attn_config", "attn_type_list", "hybrid_override_pattern", "full_attention_interval",
                        "linear_num_key_heads", "conv_L_cache", "layers_block_type", "attn_layer_period"});
    slots.assign(n, Slot::full);
  } else {
    throw UnsupportedArchitecture::model_type(c.source(), mt, "no mapping; pass --assume dense if it is plain attention");
  }

  const bool any_sliding = std::count(slots.begin(), slots.end(), Slot::sliding) > 0;
  const bool any_chunked = std::count(slots.begin(), slots.end(), Slot::chunked) > 0;
  if (any_sliding) {
    std::uint64_t fallback = 0;
    if (mt == "gemma2" || mt == "gemma3" || mt == "gemma3_text" || mt == "cohere2") fallback = 4096;
    if (mt == "gemma3n" || mt == "gemma3n_text") fallback = 512;
    if (mt == "gpt_oss") fallback = 128;
    window = require_window(x, fallback);
  }
  if (any_chunked) chunk = c.require_uint("attention_chunk_size");

  if (mt == "gemma4_text" || mt == "gemma4") {
    // Full (global) layers have their own KV head count and head dim.
    AttnShape g = a;
    g.kv = c.uint("num_global_key_value_heads").value_or(a.kv);
    g.k_dim = g.v_dim = c.uint("global_head_dim").value_or(a.k_dim);
    if (c.boolean("attention_k_eq_v").value_or(false))
      x.note(mt + ": attention_k_eq_v: global layers compute V from the K projection; kvplan counts K and V "
                  "as separate cache tensors, as the engines store them");
    for (std::size_t i = 0; i < slots.size(); ++i) {
      LayerCache cache;
      if (slots[i] == Slot::sliding) cache = SlidingAttention{a.kv, a.k_dim, a.v_dim, window};
      else if (slots[i] == Slot::full) cache = FullAttention{g.kv, g.k_dim, g.v_dim};
      else c.fail_at(c.pointer("layer_types") + "/" + std::to_string(i), "sliding_attention or full_attention", "other");
      x.m.layers.push_back({i, cache});
    }
    return;
  }
  build_attention_layers(x, slots, a, window, chunk);
}

// ---- MLA ------------------------------------------------------------------------------------

void map_mla(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const std::uint64_t heads = attention_heads(c);
  x.m.dims.mla_qk_nope_head_dim = c.require_uint("qk_nope_head_dim");
  const std::uint64_t rope = c.require_uint("qk_rope_head_dim");
  x.m.dims.mla_v_head_dim = c.require_uint("v_head_dim");
  x.m.dims.mla_q_lora_rank = c.uint("q_lora_rank").value_or(0);
  x.m.dims.q_head_dim = x.m.dims.mla_qk_nope_head_dim + rope;
  reject_unmapped(x, {"sliding_window"});
  if (!c.text().contains("kv_lora_rank"))
    // Absent is not null: transformers' DeepseekV2/V3Config then use their default (512, MLA);
    // reading it as MHA would be a silent 10x error, so the config must say which it is.
    c.fail("kv_lora_rank", "the MLA latent rank (or null for the MHA variant); transformers' default would be 512",
           nullptr);
  if (!c.has("kv_lora_rank")) {
    // DeepSeek MHA variants (kv_lora_rank null) cache full per-head K and V.
    std::uint64_t kv = kv_heads(x, heads);
    for (std::uint64_t i = 0; i < n; ++i)
      x.m.layers.push_back({i, FullAttention{kv, x.m.dims.q_head_dim, x.m.dims.mla_v_head_dim}});
    return;
  }
  Mla mla{c.require_uint("kv_lora_rank"), rope, 0};
  if (c.model_type() == "deepseek_v32" || c.has("index_topk")) mla.index_head_dim = c.require_uint("index_head_dim");
  for (std::uint64_t i = 0; i < n; ++i) x.m.layers.push_back({i, mla});
}

// ---- state-space and linear-attention hybrids ---------------------------------------------

Mamba mamba1(const Ctx& x, std::string_view d_state_key, std::string_view conv_key, std::string_view expand_key) {
  const auto& c = x.cfg;
  Mamba m;
  m.version = 1;
  const std::uint64_t hidden = hidden_size(c);
  if (c.model_type() == "mamba" && c.has("intermediate_size")) m.d_inner = c.require_uint("intermediate_size");
  else m.d_inner = checked_mul(c.require_uint(expand_key), hidden, "d_inner");
  m.d_state = c.require_uint(d_state_key);
  m.conv_kernel = c.require_uint(conv_key);
  return m;
}

Mamba mamba2(const Ctx& x, std::string_view heads_key, std::string_view head_dim_key, std::string_view groups_key,
             std::string_view state_key, std::string_view conv_key) {
  const auto& c = x.cfg;
  Mamba m;
  m.version = 2;
  m.n_heads = c.require_uint(heads_key);
  m.head_dim = c.require_uint(head_dim_key);
  m.n_groups = c.uint(groups_key).value_or(1);
  m.d_state = c.require_uint(state_key);
  m.conv_kernel = c.require_uint(conv_key);
  m.d_inner = checked_mul(m.n_heads, m.head_dim, "d_inner");
  if (m.n_heads % m.n_groups != 0)
    c.fail_at(c.pointer(groups_key), "a group count dividing the Mamba-2 heads (" + std::to_string(m.n_heads) + ")",
              std::to_string(m.n_groups));
  return m;
}

void map_mamba(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  Mamba m = mamba1(x, "state_size", "conv_kernel", "expand");
  for (std::uint64_t i = 0; i < n; ++i) x.m.layers.push_back({i, m});
}

void map_mamba2(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  Mamba m = mamba2(x, "num_heads", "head_dim", "n_groups", "state_size", "conv_kernel");
  for (std::uint64_t i = 0; i < n; ++i) x.m.layers.push_back({i, m});
}

void map_jamba(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  AttnShape a = attention_shape(x);
  Mamba m = mamba1(x, "mamba_d_state", "mamba_d_conv", "mamba_expand");
  reject_unmapped(x, {"sliding_window"});
  const std::uint64_t period = c.uint("attn_layer_period").value_or(8);
  const std::uint64_t offset = c.uint("attn_layer_offset", true).value_or(4);
  if (offset >= period) c.fail_at(c.pointer("attn_layer_offset"), "an offset below attn_layer_period", std::to_string(offset));
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i % period == offset) x.m.layers.push_back({i, FullAttention{a.kv, a.k_dim, a.v_dim}});
    else x.m.layers.push_back({i, m});
  }
}

void map_nemotron_h(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  auto pattern = c.string("hybrid_override_pattern");
  if (!pattern) c.fail("hybrid_override_pattern", "a string of M, *, - and E (one per layer)", nullptr);
  if (pattern->size() != n)
    c.fail_at(c.pointer("hybrid_override_pattern"), "one character per layer (" + std::to_string(n) + ")",
              std::to_string(pattern->size()) + " characters");
  AttnShape a = attention_shape(x);
  Mamba m = mamba2(x, "mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel");
  reject_unmapped(x, {"sliding_window"});
  for (std::uint64_t i = 0; i < n; ++i) {
    switch ((*pattern)[i]) {
      case 'M': x.m.layers.push_back({i, m}); break;
      case '*': x.m.layers.push_back({i, FullAttention{a.kv, a.k_dim, a.v_dim}}); break;
      case '-':
      case 'E': x.m.layers.push_back({i, NoCache{}}); break;
      default:
        c.fail_at(c.pointer("hybrid_override_pattern"), "only M (Mamba-2), * (attention), - (MLP) or E (MoE)",
                  std::string("'") + (*pattern)[i] + "' at layer " + std::to_string(i));
    }
  }
}

void map_granite_hybrid(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  auto types = c.string_list("layer_types");
  if (!types) c.fail("layer_types", "a list of \"mamba\" / \"attention\" per layer", nullptr);
  auto slots = layer_types_field(x, n);
  AttnShape a = attention_shape(x);
  Mamba m = mamba2(x, "mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv");
  for (std::uint64_t i = 0; i < n; ++i) {
    if (slots[i] == Slot::mamba) x.m.layers.push_back({i, m});
    else if (slots[i] == Slot::full) x.m.layers.push_back({i, FullAttention{a.kv, a.k_dim, a.v_dim}});
    else c.fail_at(c.pointer("layer_types") + "/" + std::to_string(i), "\"mamba\" or \"attention\"", "another type");
  }
}

void map_qwen_next(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  AttnShape a = attention_shape(x);
  LinearAttention gdn;
  gdn.variant = LinearAttention::Variant::gated_delta_net;
  gdn.num_k_heads = c.require_uint("linear_num_key_heads");
  gdn.num_v_heads = c.require_uint("linear_num_value_heads");
  gdn.k_head_dim = c.require_uint("linear_key_head_dim");
  gdn.v_head_dim = c.require_uint("linear_value_head_dim");
  gdn.conv_kernel = c.require_uint("linear_conv_kernel_dim");
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    auto interval = c.uint("full_attention_interval");
    if (!interval) c.fail("full_attention_interval", "a positive integer (or a layer_types list)", nullptr);
    for (std::uint64_t i = 0; i < n; ++i) slots.push_back(((i + 1) % *interval) == 0 ? Slot::full : Slot::linear);
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (slots[i] == Slot::full) x.m.layers.push_back({i, FullAttention{a.kv, a.k_dim, a.v_dim}});
    else if (slots[i] == Slot::linear) x.m.layers.push_back({i, gdn});
    else c.fail_at(c.pointer("layer_types") + "/" + std::to_string(i), "full_attention or linear_attention", "another type");
  }
}

void map_minimax(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  AttnShape a = attention_shape(x);
  auto types = c.uint_list("attn_type_list");
  if (!types) c.fail("attn_type_list", "a list of 0 (linear) / 1 (softmax) per layer", nullptr);
  if (types->size() != n)
    c.fail_at(c.pointer("attn_type_list"), "one entry per layer (" + std::to_string(n) + ")",
              std::to_string(types->size()) + " entries");
  reject_unmapped(x, {"sliding_window"});
  // Lightning attention keeps one (head_dim x head_dim) state per query head.
  const std::uint64_t heads = attention_heads(c);
  LinearAttention lin{LinearAttention::Variant::lightning, heads, heads, a.k_dim, a.k_dim, 0};
  for (std::uint64_t i = 0; i < n; ++i) {
    if ((*types)[i] == 1) x.m.layers.push_back({i, FullAttention{a.kv, a.k_dim, a.v_dim}});
    else if ((*types)[i] == 0) x.m.layers.push_back({i, lin});
    else c.fail_at(c.pointer("attn_type_list") + "/" + std::to_string(i), "0 or 1", std::to_string((*types)[i]));
  }
}

void map_lfm2(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  AttnShape a = attention_shape(x);
  ShortConv sc{c.uint("conv_dim").value_or(hidden_size(c)), c.require_uint("conv_L_cache")};
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    auto idxs = c.uint_list("full_attn_idxs");
    if (!idxs) c.fail("layer_types", "layer_types or full_attn_idxs", nullptr);
    slots.assign(n, Slot::conv);
    for (std::size_t k = 0; k < idxs->size(); ++k) {
      if ((*idxs)[k] >= n)
        c.fail_at(c.pointer("full_attn_idxs") + "/" + std::to_string(k), "a layer index below " + std::to_string(n),
                  std::to_string((*idxs)[k]));
      slots[(*idxs)[k]] = Slot::full;
    }
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (slots[i] == Slot::full) x.m.layers.push_back({i, FullAttention{a.kv, a.k_dim, a.v_dim}});
    else if (slots[i] == Slot::conv) x.m.layers.push_back({i, sc});
    else c.fail_at(c.pointer("layer_types") + "/" + std::to_string(i), "conv or full_attention", "another type");
  }
}

// Kimi Linear: 1-based kda_layers / full_attn_layers in linear_attn_config; full layers are MLA.
void map_kimi_linear(const Ctx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const std::string lac = c.pointer("linear_attn_config");
  if (!c.has("linear_attn_config") || !c.text()["linear_attn_config"].is_object())
    c.fail("linear_attn_config", "an object with kda_layers, full_attn_layers, num_heads, head_dim", nullptr);
  detail::ConfigView sub(c.text()["linear_attn_config"], c.source() + " " + lac);
  auto kda = sub.uint_list("kda_layers", false);
  auto full = sub.uint_list("full_attn_layers", false);
  if (!kda || !full) c.fail_at(lac, "kda_layers and full_attn_layers (1-based layer ids)", "a missing list");
  std::vector<Slot> slots(n, Slot::none);
  auto place = [&](const std::vector<std::uint64_t>& ids, Slot s, const char* key) {
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
  for (std::uint64_t i = 0; i < n; ++i)
    if (slots[i] == Slot::none)
      c.fail_at(lac, "every layer in kda_layers or full_attn_layers", "layer " + std::to_string(i + 1) + " in neither");
  const std::uint64_t heads = sub.require_uint("num_heads"), hd = sub.require_uint("head_dim");
  LinearAttention k{LinearAttention::Variant::kda, heads, heads, hd, hd, sub.require_uint("short_conv_kernel_size")};
  Mla mla{c.require_uint("kv_lora_rank"), c.require_uint("qk_rope_head_dim"), 0};
  x.m.dims.mla_qk_nope_head_dim = c.uint("qk_nope_head_dim").value_or(0);
  x.m.dims.mla_v_head_dim = c.uint("v_head_dim").value_or(0);
  x.m.dims.mla_q_lora_rank = c.uint("q_lora_rank").value_or(0);
  x.m.dims.q_head_dim = x.m.dims.mla_qk_nope_head_dim + mla.rope_dim;
  if (!x.m.ssm_state_dtype) {
    x.m.ssm_state_dtype = Dtype::fp32;
    x.note(c.model_type() + ": KDA recurrent state kept in float32 (as vLLM and the reference kernels keep it)");
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (slots[i] == Slot::full) x.m.layers.push_back({i, mla});
    else x.m.layers.push_back({i, k});
  }
}

// ---- dispatch ------------------------------------------------------------------------------

using Mapper = void (*)(const Ctx&);
const std::map<std::string, Mapper>& mappers() {
  static const std::map<std::string, Mapper> m = {
      {"deepseek_v2", map_mla},     {"deepseek_v3", map_mla},           {"deepseek_v32", map_mla},
      {"kimi_k2", map_mla},         {"mamba", map_mamba},               {"mamba2", map_mamba2},
      {"jamba", map_jamba},         {"nemotron_h", map_nemotron_h},     {"granitemoehybrid", map_granite_hybrid},
      {"qwen3_next", map_qwen_next}, {"qwen3_5", map_qwen_next},        {"qwen3_5_moe", map_qwen_next},
      {"qwen3_5_text", map_qwen_next}, {"qwen3_5_moe_text", map_qwen_next}, {"minimax", map_minimax},
      {"minimax_m1", map_minimax},  {"minimax_text_01", map_minimax},   {"lfm2", map_lfm2},
      {"kimi_linear", map_kimi_linear},
  };
  return m;
}

const std::set<std::string>& dense_types() {
  static const std::set<std::string> s = {
      "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi", "phi-msft", "phi3", "phimoe",
      "gpt2", "gpt_bigcode", "falcon", "RefinedWeb", "RefinedWebModel", "gemma", "gemma2", "gemma3", "gemma3_text",
      "gemma4", "gemma4_text", "cohere", "cohere2", "starcoder2", "gpt_oss", "llama4", "llama4_text", "gpt_neox",
      "olmo", "olmo2", "olmoe", "granite", "granitemoe", "internlm2", "stablelm", "exaone", "glm", "glm4", "glm4_moe",
      "ministral", "mistral3_text", "deepseek", "qwen", "baichuan", "mpt", "gptj", "opt", "gemma3n", "gemma3n_text"};
  return s;
}

// Gemma 3n-style sharing: the last num_kv_shared_layers layers reuse the cache of the last
// earlier layer of the same kind.
void apply_kv_sharing(const Ctx& x) {
  auto shared = x.cfg.uint("num_kv_shared_layers", true);
  if (!shared || *shared == 0) return;
  auto& layers = x.m.layers;
  if (*shared >= layers.size())
    x.cfg.fail_at(x.cfg.pointer("num_kv_shared_layers"), "fewer than the layer count (" + std::to_string(layers.size()) + ")",
                  std::to_string(*shared));
  const std::size_t first = layers.size() - *shared;
  for (std::size_t i = first; i < layers.size(); ++i) {
    auto kind = kind_name(layers[i].cache);
    std::optional<std::size_t> src;
    for (std::size_t j = first; j-- > 0;)
      if (kind_name(layers[j].cache) == kind) {
        src = j;
        break;
      }
    if (!src)
      x.cfg.fail_at(x.cfg.pointer("num_kv_shared_layers"), "an earlier layer of kind " + std::string(kind) + " to share",
                    std::to_string(*shared));
    layers[i].cache = SharedKv{*src};
  }
}

void read_dims(const Ctx& x) {
  const auto& c = x.cfg;
  auto& d = x.m.dims;
  d.hidden_size = c.uint_any({"hidden_size", "n_embd", "d_model"}).value_or(0);
  d.num_attention_heads = c.uint_any({"num_attention_heads", "n_head", "num_heads", "n_heads"}).value_or(0);
  d.vocab_size = c.uint_any({"vocab_size", "padded_vocab_size"}).value_or(0);
  d.intermediate_size = c.uint_any({"intermediate_size", "n_inner", "ffn_hidden_size"}).value_or(0);
  d.max_position_embeddings =
      c.uint_any({"max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "n_ctx"}).value_or(0);
  if (auto th = c.number("rope_theta")) d.rope_theta = *th;
  d.num_experts = c.uint_any({"num_local_experts", "num_experts", "n_routed_experts"}, true).value_or(0);
  d.experts_per_token = c.uint_any({"num_experts_per_tok", "experts_per_token", "top_k_experts"}, true).value_or(0);
  d.moe_intermediate_size = c.uint_any({"moe_intermediate_size"}, true).value_or(0);
  // PretrainedConfig defaults tie_word_embeddings to true; most decoder classes override it.
  static const std::set<std::string> kTiedByDefault = {"gpt2", "gpt_bigcode", "gemma", "gemma2", "gemma3",
                                                        "gemma3_text", "gemma4", "gemma4_text", "falcon", "mamba",
                                                        "cohere", "cohere2", "phi-msft", "starcoder2", "lfm2", "opt",
                                                        "RefinedWeb", "RefinedWebModel"};
  bool tie_default = kTiedByDefault.count(c.model_type()) > 0;
  auto tie = c.boolean("tie_word_embeddings");
  if (!tie && c.has_root("tie_word_embeddings") && c.root()["tie_word_embeddings"].is_boolean())
    tie = c.root()["tie_word_embeddings"].get<bool>();
  d.tie_word_embeddings = tie.value_or(tie_default);
}

void read_dtypes(const Ctx& x) {
  const auto& c = x.cfg;
  auto name = c.dtype_name();
  std::string assumed_dtype;
  for (const auto& a : x.opts.assume)
    if (a.starts_with("dtype=")) assumed_dtype = a.substr(6);
  if (name) {
    try {
      x.m.dtype = parse_dtype(*name, "dtype");
    } catch (const InputError&) {
      c.fail_at(c.pointer("torch_dtype"), "a dtype name such as bfloat16, float16 or float32", "\"" + *name + "\"");
    }
  } else if (!assumed_dtype.empty()) {
    x.m.dtype = parse_dtype(assumed_dtype, "--assume dtype");
    x.note("config names no torch_dtype/dtype; --assume dtype=" + assumed_dtype + " used");
  } else {
    x.m.dtype = Dtype::fp32;
    x.note("config names no torch_dtype/dtype; float32 used (transformers' default; pass --assume dtype=bf16 "
           "or --kv-dtype for a half-precision deployment)");
  }
  for (const char* key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"}) {
    if (auto s = c.string(key)) {
      if (*s == "auto") continue;
      try {
        x.m.ssm_state_dtype = parse_dtype(*s, key);
      } catch (const InputError&) {
        c.fail(key, "a dtype name", &c.text()[key]);
      }
    }
  }
}

std::string read_file(const std::filesystem::path& p) {
  return read_regular_file(p.string(), kMaxConfigFileBytes, "model config.json");
}

}  // namespace

std::size_t ModelSpec::count_kind(std::string_view kind) const {
  return static_cast<std::size_t>(
      std::count_if(layers.begin(), layers.end(), [&](const LayerSpec& l) { return kind_name(l.cache) == kind; }));
}

Dtype serving_dtype(const ModelSpec& m) { return m.dtype == Dtype::fp32 ? Dtype::bf16 : m.dtype; }

ModelSpec load_model_from_json(std::string_view json_text, std::string_view source, const LoadOptions& opts) {
  ConfigView cfg(detail::parse_config_text(json_text, source), std::string(source));
  ModelSpec m;
  m.name = std::string(source);
  m.source = std::string(source);
  m.model_type = cfg.model_type();
  if (m.model_type.empty()) cfg.fail("model_type", "a model_type string naming the architecture", nullptr);
  if (cfg.has_root("architectures") && cfg.root()["architectures"].is_array() && !cfg.root()["architectures"].empty() &&
      cfg.root()["architectures"][0].is_string())
    m.architecture = cfg.root()["architectures"][0].get<std::string>();
  Ctx x{cfg, m, opts};
  read_dtypes(x);
  read_dims(x);
  if (auto it = mappers().find(m.model_type); it != mappers().end()) {
    it->second(x);
  } else if (dense_types().count(m.model_type) || x.assumed("dense")) {
    if (!dense_types().count(m.model_type))
      x.note("model_type " + m.model_type + " is unknown; --assume dense: every layer read as plain attention");
    map_dense(x);
  } else if (m.model_type == "falcon_h1" || m.model_type == "zamba2" || m.model_type == "zamba") {
    throw UnsupportedArchitecture::model_type(
        cfg.source(), m.model_type,
        "its layers run attention and Mamba side by side (or share attention blocks), which kvplan does not map yet");
  } else {
    throw UnsupportedArchitecture::model_type(
        cfg.source(), m.model_type,
        "kvplan cannot map its layers with certainty (pass --assume dense if every layer is plain full attention)");
  }
  apply_kv_sharing(x);
  if (m.layers.empty()) cfg.fail("num_hidden_layers", "at least one layer", nullptr);
  detail::fill_parameters(cfg, m);
  return m;
}

ModelSpec load_model(std::string_view name_or_path, const LoadOptions& opts) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p{std::string(name_or_path)};
  if (fs::is_directory(p, ec)) p /= "config.json";
  if (fs::is_regular_file(p, ec)) {
    ModelSpec m = load_model_from_json(read_file(p), p.string(), opts);
    return m;
  }
  if (auto b = find_bundled(name_or_path)) {
    ModelSpec m = load_model_from_json(b->json, b->file_name, opts);
    m.name = b->id;
    return m;
  }
  std::string hint;
  for (const auto& s : suggest_bundled(name_or_path)) hint += (hint.empty() ? "" : ", ") + s;
  throw InputError::unknown("model (not a file, a directory with config.json, or a bundled id; see `kvplan models`)",
                            name_or_path, hint);
}

}  // namespace kvplan
