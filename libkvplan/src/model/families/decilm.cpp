// DeciLM / Llama-Nemotron NAS (Llama-3.3-Nemotron-Super-49B; vLLM nemotron_nas.py
// DeciLMDecoderLayer): block_configs[i].attention is either no_op (no self_attn, no cache) or GQA
// with num_attention_heads / n_heads_in_group KV heads; block_configs[i].ffn a SwiGLU MLP unless
// no_op. Blocks with other attention variants (linear replacement, windows, sinks) have no rule.
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;

void map_decilm(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const u64 hidden = hidden_size(c), heads = attention_heads(c);
  const u64 hd = head_dim(c, hidden, heads);
  x.m.dims.q_head_dim = hd;
  if (!c.has("block_configs") || !c.text()["block_configs"].is_array())
    c.fail("block_configs", "a list of per-layer block configs", c.has("block_configs") ? &c.text()["block_configs"] : nullptr);
  const auto& blocks = c.text()["block_configs"];
  if (blocks.size() != n)
    c.fail_at(c.pointer("block_configs"), "one entry per layer (" + std::to_string(n) + ")",
              std::to_string(blocks.size()) + " entries");
  for (u64 i = 0; i < n; ++i) {
    const std::string at = slot_pointer(x, "block_configs", i) + "/attention";
    if (!blocks[i].is_object() || !blocks[i].contains("attention") || !blocks[i]["attention"].is_object())
      c.fail_at(at, "an attention block config object", "nothing");
    const auto& att = blocks[i]["attention"];
    auto flag = [&](const char* k) {
      if (!att.contains(k) || att[k].is_null()) return false;
      if (!att[k].is_boolean()) c.fail_at(at + "/" + k, "true or false", describe_json(att[k]));
      return att[k].get<bool>();
    };
    for (const char* k : {"window_length", "num_sink_tokens", "sparsify"})
      if (att.contains(k) && !att[k].is_null())
        throw UnsupportedArchitecture::field(c.source(), c.model_type(), at + "/" + k,
                                             std::string("attention.") + k +
                                                 " changes the cache layout but kvplan has no rule for it in this "
                                                 "model type");
    if (flag("replace_with_linear"))
      throw UnsupportedArchitecture::field(c.source(), c.model_type(), at,
                                           "attention.replace_with_linear (a linear layer in place of attention) has "
                                           "no rule in kvplan");
    if (flag("no_op")) {
      x.add(i, build::none());
      continue;
    }
    const auto* group = att.contains("n_heads_in_group") ? &att["n_heads_in_group"] : nullptr;
    if (!group || !group->is_number_unsigned() || group->get<u64>() == 0 || heads % group->get<u64>() != 0)
      c.fail_at(at + "/n_heads_in_group", "a positive divisor of num_attention_heads (" + std::to_string(heads) + ")",
                group ? describe_json(*group) : "nothing");
    x.add(i, build::full_attention(heads / group->get<u64>(), hd, hd));
  }
}

// Per block: attention (and its input_layernorm) unless no_op, and a SwiGLU MLP of
// _find_multiple(int(2 * ffn_mult * hidden / 3), 256) (or intermediate_size) unless ffn.no_op.
void count_decilm(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const auto& blocks = c.text()["block_configs"];
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    if (x.is_attention(i)) {
      attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), AttnStyle{});
      x.inv.norm(C::norms, p + "input_layernorm", h);
    }
    const auto& ffn = blocks[i].value("ffn", nlohmann::json::object());
    const std::string ffn_at = c.pointer("block_configs") + "/" + std::to_string(i) + "/ffn";
    if (!ffn.is_object()) c.fail_at(ffn_at, "an ffn block config object", describe_json(ffn));
    if (ffn.contains("no_op") && !ffn["no_op"].is_null()) {
      if (!ffn["no_op"].is_boolean()) c.fail_at(ffn_at + "/no_op", "true or false", describe_json(ffn["no_op"]));
      if (ffn["no_op"].get<bool>()) continue;
    }
    u64 inter = 0;
    if (ffn.contains("ffn_mult") && ffn["ffn_mult"].is_number()) {
      const double width = 2.0 * ffn["ffn_mult"].get<double>() * static_cast<double>(h) / 3.0;
      if (!(width >= 1.0 && width <= static_cast<double>(kMaxDimension)))
        c.fail_at(ffn_at + "/ffn_mult", "a positive FFN multiplier", describe_json(ffn["ffn_mult"]));
      inter = static_cast<u64>(width);  // int(2 * ffn_mult * hidden / 3), as vLLM computes it
      inter = 256 * ceil_div(inter, 256);
    } else if (ffn.contains("intermediate_size") && ffn["intermediate_size"].is_number_unsigned()) {
      inter = ffn["intermediate_size"].get<u64>();
    } else {
      c.fail_at(ffn_at, "ffn_mult or intermediate_size", describe_json(ffn));
    }
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inter);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
}

}  // namespace

std::vector<Family> decilm() {
  return {Family{.name = "decilm", .model_types = {"nemotron-nas"}, .map_layers = map_decilm, .count_params = count_decilm}};
}

}  // namespace kvplan::detail::families
