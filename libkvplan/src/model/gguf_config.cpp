// GGUF metadata -> the Hugging Face config.json fields kvplan's mapping reads. This is the one
// place that knows llama.cpp's key names (llama-arch.cpp LLM_KV_*, written by
// convert_hf_to_gguf.py); the layer specs then come from load_model_from_json like any config,
// so a GGUF file and its config.json give the same cache bytes by construction.
//
// Architectures (general.architecture -> model_type): llama, mistral, qwen2, qwen2moe, qwen3,
// qwen3moe, gemma, gemma2, gemma3, gpt-oss, deepseek2, mamba, mamba2, qwen3next, granitehybrid,
// phi3, starcoder2, olmo2, granite. Anything else is UnsupportedArchitecture naming it.
#include <algorithm>
#include <map>

#include "kvplan/error.h"
#include "kvplan/gguf.h"
#include "kvplan/model.h"
#include "util/config_view.h"

namespace kvplan {

using u64 = std::uint64_t;
using nlohmann::json;

namespace {

struct Meta {
  const json& md;
  std::string arch;
  std::string source;

  const json* get(const std::string& key) const {
    auto it = md.find(arch + "." + key);
    return it == md.end() ? nullptr : &*it;
  }
  [[noreturn]] void bad(const std::string& key, const std::string& expected) const {
    throw ConfigError::field(source, arch + "." + key, expected, get(key) ? detail::describe_json(*get(key)) : "nothing",
                             "gguf:" + arch);
  }
  std::optional<u64> uint(const std::string& key) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (v->is_number_unsigned()) return v->get<u64>();
    if (v->is_number_integer() && v->get<std::int64_t>() >= 0) return static_cast<u64>(v->get<std::int64_t>());
    bad(key, "a non-negative integer");
  }
  u64 require(const std::string& key) const {
    if (auto v = uint(key)) return *v;
    bad(key, "a non-negative integer");
  }
  // A key that is "a scalar or one value per layer" (llama.cpp's get_key_or_arr).
  std::optional<std::vector<u64>> per_layer(const std::string& key, u64 n_layers) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (v->is_array()) {
      if (v->size() != n_layers) bad(key, "one value per layer (" + std::to_string(n_layers) + ")");
      std::vector<u64> out;
      for (const auto& e : *v) {
        if (!e.is_number_integer() || e.get<std::int64_t>() < 0) bad(key, "non-negative integers");
        out.push_back(e.get<u64>());
      }
      return out;
    }
    return std::vector<u64>(n_layers, require(key));
  }
  std::optional<double> number(const std::string& key) const {
    const json* v = get(key);
    return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
  }
};

const std::map<std::string, std::string>& model_types() {
  static const std::map<std::string, std::string> m = {
      {"llama", "llama"},       {"mistral", "mistral"},     {"qwen2", "qwen2"},         {"qwen2moe", "qwen2_moe"},
      {"qwen3", "qwen3"},       {"qwen3moe", "qwen3_moe"},  {"gemma", "gemma"},         {"gemma2", "gemma2"},
      {"gemma3", "gemma3_text"}, {"gpt-oss", "gpt_oss"},    {"deepseek2", "deepseek_v3"}, {"mamba", "mamba"},
      {"mamba2", "mamba2"},     {"qwen3next", "qwen3_next"}, {"granitehybrid", "granitemoehybrid"},
      {"phi3", "phi3"},         {"starcoder2", "starcoder2"}, {"olmo2", "olmo2"},       {"granite", "granite"},
  };
  return m;
}

u64 first_nonzero(const std::vector<u64>& v) {
  for (u64 x : v)
    if (x) return x;
  return 0;
}

}  // namespace

json gguf_to_config(const GgufHeader& h, std::string_view source) {
  const json& md = h.metadata;
  auto arch_it = md.find("general.architecture");
  if (arch_it == md.end() || !arch_it->is_string())
    throw ConfigError::field(source, "general.architecture", "a string naming the architecture",
                             arch_it == md.end() ? "nothing" : detail::describe_json(*arch_it), "");
  Meta m{md, arch_it->get<std::string>(), std::string(source)};
  auto mt = model_types().find(m.arch);
  if (mt == model_types().end())
    throw UnsupportedArchitecture::model_type(std::string(source) + " (general.architecture)", m.arch,
                                              "kvplan does not translate this GGUF architecture yet");
  json c = json::object();
  c["model_type"] = mt->second;
  c["torch_dtype"] = "float16";  // GGUF names no serving dtype; f16 is llama.cpp's default cache type
  const u64 n = m.require("block_count");
  // Checked before any per-layer vector is sized by it (the loader applies the same cap).
  if (n > kMaxLayers) m.bad("block_count", "a layer count of at most " + std::to_string(kMaxLayers));
  if (n == 0) m.bad("block_count", "at least one layer");
  c["num_hidden_layers"] = n;
  if (auto v = m.uint("embedding_length")) c["hidden_size"] = *v;
  if (auto v = m.uint("context_length")) c["max_position_embeddings"] = *v;
  if (auto v = m.per_layer("feed_forward_length", n)) c["intermediate_size"] = first_nonzero(*v);
  if (auto v = m.number("rope.freq_base")) c["rope_theta"] = *v;
  if (auto v = m.uint("vocab_size")) c["vocab_size"] = *v;
  else if (auto t = md.find("tokenizer.ggml.tokens"); t != md.end() && (t->is_array() || t->is_object()))
    c["vocab_size"] = t->is_array() ? t->size() : t->value("length", u64{0});
  if (auto v = m.uint("expert_count"); v && *v) c["num_experts"] = c["num_local_experts"] = *v;
  if (auto v = m.uint("expert_used_count"); v && *v) c["num_experts_per_tok"] = *v;
  if (auto v = m.uint("expert_feed_forward_length")) c["moe_intermediate_size"] = *v;
  // The output head: absent in the file when it is the token embedding.
  const bool has_output = std::any_of(h.tensors.begin(), h.tensors.end(), [](const GgufTensorInfo& t) {
    return t.name == "output.weight";
  });
  c["tie_word_embeddings"] = !has_output;

  const u64 heads = m.per_layer("attention.head_count", n) ? first_nonzero(*m.per_layer("attention.head_count", n)) : 0;
  if (heads) c["num_attention_heads"] = heads;
  std::vector<u64> kv;
  if (auto v = m.per_layer("attention.head_count_kv", n)) kv = *v;
  const u64 kv_heads = first_nonzero(kv);
  if (kv_heads) c["num_key_value_heads"] = kv_heads;
  const auto k_len = m.uint("attention.key_length"), v_len = m.uint("attention.value_length");
  if (k_len) c["head_dim"] = *k_len;
  if (k_len && v_len && *k_len != *v_len && m.arch != "deepseek2")
    m.bad("attention.value_length", "the same value as attention.key_length (" + std::to_string(*k_len) + ")");
  if (auto w = m.uint("attention.sliding_window"); w && *w) c["sliding_window"] = *w;

  const std::string& a = m.arch;
  // Per-layer KV head counts only where the family has them (zeros mark recurrent layers).
  const bool uniform_kv = std::all_of(kv.begin(), kv.end(), [&](u64 x) { return x == kv_heads; });
  if (!uniform_kv && a != "granitehybrid")
    m.bad("attention.head_count_kv", "one KV head count for every layer (per-layer counts are not mapped for " + a + ")");

  if (a != "gemma2" && a != "gemma3" && a != "gpt-oss" && a != "mistral" && a != "phi3" && a != "starcoder2") {
    // llama.cpp's loaders for the other families read no window: they cache every token.
    c.erase("sliding_window");
  }
  if (a == "gemma3") {
    if (auto p = m.uint("attention.sliding_window_pattern")) c["sliding_window_pattern"] = *p;
    else c["sliding_window_pattern"] = 6;  // llama.cpp's gemma3 loader: hparams.set_swa_pattern(6)
  } else if (a == "gpt-oss") {
    json types = json::array();
    for (u64 i = 0; i < n; ++i) types.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
    c["layer_types"] = types;  // llama.cpp: set_swa_pattern(2), even layers sliding
  } else if (a == "deepseek2") {
    const u64 rope = m.require("rope.dimension_count");
    c["qk_rope_head_dim"] = rope;
    if (auto r = m.uint("attention.kv_lora_rank")) c["kv_lora_rank"] = *r;
    if (auto r = m.uint("attention.q_lora_rank"); r && *r) c["q_lora_rank"] = *r;
    // Files converted with MLA absorbed carry the per-head dims as key_length_mla/value_length_mla
    // (key_length is then kv_lora_rank + rope); older files only key_length/value_length.
    const u64 k_head = m.uint("attention.key_length_mla").value_or(k_len.value_or(0));
    const u64 v_head = m.uint("attention.value_length_mla").value_or(v_len.value_or(0));
    if (k_head <= rope) m.bad("attention.key_length", "a per-head K dim above rope.dimension_count");
    c["qk_nope_head_dim"] = k_head - rope;
    c["v_head_dim"] = v_head;
    c.erase("head_dim");
    c["num_key_value_heads"] = heads;
    if (auto v = m.uint("expert_count"); v && *v) c["n_routed_experts"] = *v;
    if (auto v = m.uint("expert_shared_count")) c["n_shared_experts"] = *v;
    if (auto v = m.uint("leading_dense_block_count")) c["first_k_dense_replace"] = *v;
  } else if (a == "mamba") {
    const u64 inner = m.require("ssm.inner_size");
    c["intermediate_size"] = inner;
    c["state_size"] = m.require("ssm.state_size");
    c["conv_kernel"] = m.require("ssm.conv_kernel");
    if (auto hs = m.uint("embedding_length"); hs && *hs && inner % *hs == 0) c["expand"] = inner / *hs;
    if (auto r = m.uint("ssm.time_step_rank")) c["time_step_rank"] = *r;
  } else if (a == "mamba2" || a == "granitehybrid") {
    const u64 inner = m.require("ssm.inner_size");
    const u64 ssm_heads = m.require("ssm.time_step_rank");
    if (ssm_heads == 0 || inner % ssm_heads != 0) m.bad("ssm.time_step_rank", "a head count dividing ssm.inner_size");
    const std::string p = a == "mamba2" ? "" : "mamba_";
    c[a == "mamba2" ? "num_heads" : "mamba_n_heads"] = ssm_heads;
    c[a == "mamba2" ? "head_dim" : "mamba_d_head"] = inner / ssm_heads;
    c[a == "mamba2" ? "n_groups" : "mamba_n_groups"] = m.uint("ssm.group_count").value_or(1);
    c[a == "mamba2" ? "state_size" : "mamba_d_state"] = m.require("ssm.state_size");
    c[a == "mamba2" ? "conv_kernel" : "mamba_d_conv"] = m.require("ssm.conv_kernel");
    if (a == "mamba2") {
      c.erase("num_attention_heads");
      if (auto hs = m.uint("embedding_length"); hs && *hs && inner % *hs == 0) c["expand"] = inner / *hs;
    } else {
      // llama.cpp's granitehybrid: a layer is recurrent where head_count_kv(il) == 0.
      if (kv.empty()) m.bad("attention.head_count_kv", "one KV head count per layer (0 = Mamba-2 layer)");
      json types = json::array();
      for (u64 x : kv) types.push_back(x == 0 ? "mamba" : "attention");
      c["layer_types"] = types;
    }
  } else if (a == "qwen3next") {
    const u64 v_heads = m.require("ssm.time_step_rank");
    const u64 inner = m.require("ssm.inner_size");
    if (v_heads == 0 || inner % v_heads != 0) m.bad("ssm.time_step_rank", "a head count dividing ssm.inner_size");
    c["linear_conv_kernel_dim"] = m.require("ssm.conv_kernel");
    c["linear_key_head_dim"] = m.require("ssm.state_size");
    c["linear_num_key_heads"] = m.require("ssm.group_count");
    c["linear_num_value_heads"] = v_heads;
    c["linear_value_head_dim"] = inner / v_heads;
    c["full_attention_interval"] = m.uint("full_attention_interval").value_or(4);  // llama.cpp's default
  }
  return c;
}

}  // namespace kvplan
