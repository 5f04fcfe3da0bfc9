// GGUF metadata -> the Hugging Face config.json fields kvplan's mapping reads. This file knows
// llama.cpp's key names every architecture shares (llama-arch.cpp LLM_KV_*, written by
// convert_hf_to_gguf.py); which architectures exist, the model_type each stands for and the keys
// only one family has live in that family's file (Family::gguf, model/families/*.cpp), so a
// family is added in one place. The layer specs then come from load_model_from_json like any
// config, so a GGUF file and its config.json give the same cache bytes by construction. An
// architecture no family owns is UnsupportedArchitecture naming it.
#include <algorithm>

#include "kvplan/error.h"
#include "kvplan/gguf.h"
#include "kvplan/model.h"
#include "model/family.h"
#include "util/config_view.h"
#include "model/gguf_meta.h"

namespace kvplan {

using u64 = std::uint64_t;
using nlohmann::json;
using detail::GgufMeta;

namespace {

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
  GgufMeta m{md, arch_it->get<std::string>(), std::string(source)};
  const detail::GgufArch* ga = detail::find_gguf_arch(m.arch);
  if (!ga)
    throw UnsupportedArchitecture::model_type(std::string(source) + " (general.architecture)", m.arch,
                                              "kvplan does not translate this GGUF architecture yet");
  json c = json::object();
  c["model_type"] = std::string(ga->model_type);
  c["torch_dtype"] = "float16";  // GGUF names no serving dtype; f16 is llama.cpp's default cache type
  const u64 n = m.require("block_count");
  // Checked before any per-layer vector is sized by it (the loader applies the same cap).
  if (n > kMaxLayers) m.bad("block_count", "a layer count of at most " + std::to_string(kMaxLayers));
  if (n == 0) m.bad("block_count", "at least one layer");
  m.n_layers = n;
  c["num_hidden_layers"] = n;
  if (auto v = m.uint("embedding_length")) c["hidden_size"] = *v;
  if (auto v = m.uint("context_length")) c["max_position_embeddings"] = *v;
  if (auto v = m.per_layer("feed_forward_length")) c["intermediate_size"] = first_nonzero(*v);
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

  const u64 heads = m.per_layer("attention.head_count") ? first_nonzero(*m.per_layer("attention.head_count")) : 0;
  if (heads) c["num_attention_heads"] = heads;
  std::vector<u64>& kv = m.kv_heads;
  if (auto v = m.per_layer("attention.head_count_kv")) kv = *v;
  const u64 kv_heads = first_nonzero(kv);
  if (kv_heads) c["num_key_value_heads"] = kv_heads;
  const auto k_len = m.uint("attention.key_length"), v_len = m.uint("attention.value_length");
  if (k_len) c["head_dim"] = *k_len;
  if (k_len && v_len && *k_len != *v_len && !ga->distinct_kv_lengths)
    m.bad("attention.value_length", "the same value as attention.key_length (" + std::to_string(*k_len) + ")");
  if (auto w = m.uint("attention.sliding_window"); w && *w) c["sliding_window"] = *w;

  // Per-layer KV head counts only where the family has them (zeros mark recurrent layers).
  const bool uniform_kv = std::all_of(kv.begin(), kv.end(), [&](u64 x) { return x == kv_heads; });
  if (!uniform_kv && !ga->per_layer_kv_heads)
    m.bad("attention.head_count_kv",
          "one KV head count for every layer (per-layer counts are not mapped for " + m.arch + ")");
  // llama.cpp's loaders for the other families read no window: they cache every token.
  if (!ga->reads_window) c.erase("sliding_window");
  if (ga->translate) ga->translate(m, c);
  return c;
}

}  // namespace kvplan

namespace kvplan::detail {
void gguf_mamba2_fields(const GgufMeta& m, nlohmann::json& c, const Mamba2Keys& k) {
  const u64 inner = m.require("ssm.inner_size");
  const u64 ssm_heads = m.require("ssm.time_step_rank");
  if (ssm_heads == 0 || inner % ssm_heads != 0) m.bad("ssm.time_step_rank", "a head count dividing ssm.inner_size");
  c[k.heads] = ssm_heads;
  c[k.head_dim] = inner / ssm_heads;
  c[k.groups] = m.uint("ssm.group_count").value_or(1);
  c[k.state] = m.require("ssm.state_size");
  c[k.conv] = m.require("ssm.conv_kernel");
}
}  // namespace kvplan::detail
