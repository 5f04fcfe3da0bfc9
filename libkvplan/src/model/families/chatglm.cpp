// ChatGLM2/3 and GLM-4-9B (remote code configuration_chatglm.ChatGLMConfig, model_type chatglm;
// vLLM chatglm.py GLMAttention): every one of the num_layers layers is full causal attention.
// The KV heads are multi_query_group_num when multi_query_attention is true, else every query
// head has its own K/V (modeling_chatglm.SelfAttention; vLLM's total_num_kv_heads reads the same
// two fields). num_key_value_heads is not a ChatGLM field: a transformers re-save of chatglm3-6b
// (refs/pr/28) writes num_key_value_heads 32 beside multi_query_group_num 2 and the model still
// caches 2 heads, so it is ignored here. The head width is kv_channels (modeling_chatglm), which
// vLLM derives as hidden_size / num_attention_heads; the two must agree, else the engines
// disagree on the cache and the config is refused.
//
// Weights: not counted (query_key_value fused with biases, dense_h_to_4h SwiGLU, padded_vocab_size
// embeddings; no rule proven against a published count under these names).
#include <string>

#include "kvplan/error.h"
#include "model/gguf_meta.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {

std::uint64_t chatglm_kv_heads(const LoadCtx& x, std::uint64_t heads) {
  const auto& c = x.cfg;
  if (!c.boolean("multi_query_attention").value_or(false)) return heads;
  const std::uint64_t g = c.require_uint("multi_query_group_num");
  if (c.has("num_key_value_heads") && c.uint("num_key_value_heads") != g)
    x.note("chatglm: num_key_value_heads (" + std::to_string(*c.uint("num_key_value_heads")) +
           ") is not a ChatGLM field; modeling_chatglm and vLLM read multi_query_group_num (" + std::to_string(g) + ")");
  return g;
}

void map_chatglm(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t hidden = hidden_size(c), heads = attention_heads(c);
  if (const auto kvc = c.uint("kv_channels"); kvc && heads && hidden % heads == 0 && *kvc != hidden / heads)
    c.fail("kv_channels",
           "hidden_size / num_attention_heads (" + std::to_string(hidden / heads) +
               "): vLLM's GLMAttention sizes its cache by that quotient, modeling_chatglm by kv_channels",
           &c.text()["kv_channels"]);
  map_plain_attention(x);
}

// GGUF (llama.cpp's chatglm loader; convert_hf_to_gguf ChatGLMModel writes
// attention.head_count_kv = multi_query_group_num): the KV heads are the group count.
void gguf_chatglm(const GgufMeta&, nlohmann::json& c) {
  if (c.contains("num_key_value_heads")) {
    c["multi_query_attention"] = true;
    c["multi_query_group_num"] = c["num_key_value_heads"];
  }
}

}  // namespace

std::vector<Family> chatglm() {
  return {Family{.name = "chatglm",
                 .model_types = {"chatglm"},
                 .gguf = {{.arch = "chatglm", .model_type = "chatglm", .translate = gguf_chatglm}},
                 .map_layers = map_chatglm,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "ChatGLM: fused query_key_value with biases and padded_vocab_size "
                                         "embeddings, not proven against a published count under these names");
                     },
                 .kv_heads = chatglm_kv_heads}};
}

}  // namespace kvplan::detail::families
