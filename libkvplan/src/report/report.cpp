#include "kvplan/report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "kvplan/checked.h"
#include "kvplan/units.h"
#include "kvplan/text.h"

namespace kvplan {

namespace {

const char* variant_name(LinearAttention::Variant v) {
  switch (v) {
    case LinearAttention::Variant::gated_delta_net: return "gated_delta_net";
    case LinearAttention::Variant::lightning: return "lightning";
    case LinearAttention::Variant::kda: return "kda";
  }
  return "?";
}
}  // namespace

nlohmann::json layer_to_json(const LayerCache& c) {
  nlohmann::json j;
  j["kind"] = std::string(kind_name(c));
  std::visit(overloaded{
                 [&](const Attention& a) {
                   j["kv_heads"] = a.kv_heads, j["k_head_dim"] = a.k_head_dim, j["v_head_dim"] = a.v_head_dim;
                   std::visit(overloaded{
                                  [](const Attention::All&) {},
                                  [&](const Attention::Window& w) { j["window"] = w.tokens; },
                                  [&](const Attention::Chunk& c) { j["chunk"] = c.tokens; },
                              },
                              a.span);
                 },
                 [&](const Mla& a) {
                   j["kv_lora_rank"] = a.kv_lora_rank, j["rope_dim"] = a.rope_dim;
                   j["index_head_dim"] = a.index_head_dim;
                 },
                 [&](const Mamba1& a) {
                   j["version"] = 1, j["d_inner"] = a.d_inner, j["d_state"] = a.d_state;
                   j["n_groups"] = 0, j["n_heads"] = 0, j["head_dim"] = 0;
                   j["conv_kernel"] = a.conv_kernel;
                 },
                 [&](const Mamba2& a) {
                   j["version"] = 2, j["d_inner"] = a.d_inner(), j["d_state"] = a.d_state;
                   j["n_groups"] = a.n_groups, j["n_heads"] = a.n_heads, j["head_dim"] = a.head_dim;
                   j["conv_kernel"] = a.conv_kernel;
                 },
                 [&](const LinearAttention& a) {
                   j["variant"] = variant_name(a.variant);
                   j["num_k_heads"] = a.num_k_heads, j["num_v_heads"] = a.num_v_heads;
                   j["k_head_dim"] = a.k_head_dim, j["v_head_dim"] = a.v_head_dim, j["conv_kernel"] = a.conv_kernel;
                 },
                 [&](const ShortConv& a) { j["channels"] = a.channels, j["conv_kernel"] = a.conv_kernel; },
                 [&](const SharedKv& a) { j["source_layer"] = a.source_layer; },
                 [&](const NoCache&) {},
             },
             c);
  return j;
}

nlohmann::json layer_to_json(const LayerSpec& l) {
  nlohmann::json j;
  if (l.mixers.size() == 1) {
    j = layer_to_json(l.mixers.front());
  } else {
    j["kind"] = std::string(kind_name(l));
    auto mixers = nlohmann::json::array();
    for (const auto& c : l.mixers) mixers.push_back(layer_to_json(c));
    j["mixers"] = std::move(mixers);
  }
  j["index"] = l.index;
  return j;
}

std::string describe_layer(const LayerSpec& l) {
  std::string s;
  for (const auto& c : l.mixers) s += (s.empty() ? "" : " + ") + describe_layer(c);
  return s;
}

std::string layer_kinds(const LayerSpec& l) {
  std::string s;
  for (const auto& c : l.mixers) s += (s.empty() ? "" : "+") + std::string(kind_name(c));
  return s;
}

std::string describe_layer(const LayerCache& c) {
  auto heads = [](std::uint64_t kv, std::uint64_t k, std::uint64_t v) {
    std::string s = std::to_string(kv) + " KV head" + (kv == 1 ? "" : "s") + " x " + std::to_string(k);
    if (v != k) s += "/" + std::to_string(v);
    return s;
  };
  return std::visit(
      overloaded{
          [&](const Attention& a) {
            return heads(a.kv_heads, a.k_head_dim, a.v_head_dim) +
                   std::visit(overloaded{
                                  [](const Attention::All&) { return std::string(); },
                                  [](const Attention::Window& w) { return ", window " + std::to_string(w.tokens); },
                                  [](const Attention::Chunk& c) { return ", chunk " + std::to_string(c.tokens); },
                              },
                              a.span);
          },
          [&](const Mla& a) {
            std::string s = "latent " + std::to_string(a.kv_lora_rank) + " + rope " + std::to_string(a.rope_dim);
            if (a.index_head_dim) s += " + indexer " + std::to_string(a.index_head_dim);
            return s;
          },
          [&](const Mamba1& a) {
            return "mamba1 d_inner " + std::to_string(a.d_inner) + ", d_state " + std::to_string(a.d_state) +
                   ", conv " + std::to_string(a.conv_kernel);
          },
          [&](const Mamba2& a) {
            return "mamba2 " + std::to_string(a.n_heads) + " heads x " + std::to_string(a.head_dim) + ", d_state " +
                   std::to_string(a.d_state) + ", groups " + std::to_string(a.n_groups) + ", conv " +
                   std::to_string(a.conv_kernel);
          },
          [&](const LinearAttention& a) {
            return std::string(variant_name(a.variant)) + " " + std::to_string(a.num_k_heads) + "k/" +
                   std::to_string(a.num_v_heads) + "v heads x " + std::to_string(a.k_head_dim) + "/" +
                   std::to_string(a.v_head_dim) + (a.conv_kernel ? ", conv " + std::to_string(a.conv_kernel) : "");
          },
          [&](const ShortConv& a) {
            return std::to_string(a.channels) + " channels, kernel " + std::to_string(a.conv_kernel);
          },
          [&](const SharedKv& a) { return "reads layer " + std::to_string(a.source_layer); },
          [&](const NoCache&) { return std::string("no cache (MLP block)"); },
      },
      c);
}

nlohmann::json to_json(const ParameterCounts& p) {
  return {{"embedding", p.embedding}, {"lm_head", p.lm_head},       {"attention", p.attention},
          {"mlp_dense", p.mlp_dense}, {"moe_routed", p.moe_routed}, {"moe_shared", p.moe_shared},
          {"moe_router", p.moe_router}, {"mixer", p.mixer},         {"norms", p.norms},
          {"other", p.other},         {"mtp", p.mtp},               {"total", p.total},
          {"active", p.active},       {"notes", p.notes}};
}

nlohmann::json to_json(const CacheSize& s) {
  nlohmann::json j;
  j["model"] = s.model;
  j["tokens"] = s.workload.tokens;
  j["context_default"] = s.workload.context_default;
  j["batch"] = s.workload.batch;
  j["tp"] = s.workload.tp;
  j["k_dtype"] = std::string(name(s.dtypes.k));
  j["v_dtype"] = std::string(name(s.dtypes.v));
  j["conv_state_dtype"] = std::string(name(s.dtypes.conv));
  j["ssm_state_dtype"] = std::string(name(s.dtypes.ssm));
  j["total_bytes"] = s.total_bytes;
  j["kv_bytes"] = s.kv_bytes;
  j["k_bytes"] = s.k_bytes;
  j["v_bytes"] = s.v_bytes;
  j["state_bytes"] = s.state_bytes;
  j["bytes_per_token"] = s.bytes_per_token;
  auto layers = nlohmann::json::array();
  for (const auto& l : s.layers) {
    layers.push_back({{"index", l.index},
                      {"kind", l.kind},
                      {"bytes", l.bytes},
                      {"kv_bytes", l.kv_bytes},
                      {"state_bytes", l.state_bytes},
                      {"tokens_held", l.per_sequence.tokens_held}});
    if (l.mixer_kinds.size() > 1) layers.back()["mixers"] = l.mixer_kinds;
  }
  j["layers"] = std::move(layers);
  return j;
}

nlohmann::json to_json(const ModelSpec& m) {
  nlohmann::json j;
  j["model"] = m.name;
  j["source"] = m.source;
  j["model_type"] = m.model_type;
  j["architecture"] = m.architecture;
  j["dtype"] = std::string(name(m.dtype));
  j["num_layers"] = m.layers.size();
  j["max_position_embeddings"] = m.dims.max_position_embeddings;
  j["hidden_size"] = m.dims.hidden_size;
  j["num_attention_heads"] = m.dims.num_attention_heads;
  j["vocab_size"] = m.dims.vocab_size;
  std::map<std::string, std::uint64_t> counts;  // one pass: deep configs made a per-layer count quadratic
  for (const auto& l : m.layers)
    for (const auto& c : l.mixers) ++counts[std::string(kind_name(c))];
  j["layer_counts"] = counts;
  auto layers = nlohmann::json::array();
  for (const auto& l : m.layers) layers.push_back(layer_to_json(l));
  j["layers"] = std::move(layers);
  j["parameters"] = to_json(m.params);
  j["assumptions"] = m.assumptions;
  return j;
}

namespace {
std::string exact(std::uint64_t b) { return b >= MB ? format_count(b) + " B = " + format_bytes(b) : format_bytes(b); }
}  // namespace

std::string format_size_text(const CacheSize& s) {
  std::string out;
  out += "model        " + s.model + "\n";
  out += "workload     " + format_count(s.workload.batch, "sequence") + " x " + format_count(s.workload.tokens, "token");
  if (s.workload.context_default) out += " (default)";
  if (s.workload.tp > 1) out += ", per rank of TP " + std::to_string(s.workload.tp);
  out += "\n";
  out += "dtypes       K " + std::string(name(s.dtypes.k)) + ", V " + std::string(name(s.dtypes.v));
  if (s.state_bytes) out += ", conv state " + std::string(name(s.dtypes.conv)) + ", SSM state " + std::string(name(s.dtypes.ssm));
  out += "\n";
  // With windowed layers (or recurrent state) the marginal figure is not what a token costs on
  // average at this length: state both, each named.
  const std::uint64_t held_avg = s.workload.tokens ? s.total_bytes / s.workload.batch / s.workload.tokens : 0;
  if (s.workload.tokens && held_avg != s.bytes_per_token) {
    out += "per token    " + exact(held_avg) + " on average over " + format_count(s.workload.tokens) +
           " tokens (total / tokens, per sequence)\n";
    out += "marginal     " + exact(s.bytes_per_token) + " for one more token while no window is full\n";
  } else {
    out += "per token    " + exact(s.bytes_per_token) + "\n";
  }
  out += "KV cache     " + exact(s.kv_bytes) + "\n";
  if (s.state_bytes) out += "state        " + exact(s.state_bytes) + "\n";
  out += "total        " + exact(s.total_bytes) + "\n";
  // Per-kind summary: layers of each kind and their bytes.
  std::vector<std::pair<std::string, std::pair<std::size_t, std::uint64_t>>> kinds;
  for (const auto& l : s.layers) {
    std::string kind;  // "full_attention", or "full_attention+mamba" for a layer with several mixers
    for (const auto& k : l.mixer_kinds) kind += (kind.empty() ? "" : "+") + k;
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](auto& k) { return k.first == kind; });
    if (it == kinds.end()) kinds.push_back({kind, {1, l.bytes}});
    else it->second.first++, it->second.second += l.bytes;
  }
  out += "by kind\n";
  for (const auto& [k, v] : kinds)
    out += "  " + pad_to(k, 18) + pad_to(std::to_string(v.first), 4, true) + " layers  " + pad_to(format_count(v.second), 20, true) +
           " B\n";
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_size_csv(const CacheSize& s) {
  std::string out = "layer,kind,tokens_held,k_bytes,v_bytes,state_bytes,bytes\n";
  for (const auto& l : s.layers) {
    std::string kind;
    for (const auto& k : l.mixer_kinds) kind += (kind.empty() ? "" : "+") + k;
    // per_sequence holds one sequence; the byte columns are all B sequences, as `bytes` is.
    const std::uint64_t b = s.workload.batch;
    out += std::to_string(l.index) + "," + csv_field(kind) + "," + std::to_string(l.per_sequence.tokens_held) + "," +
           std::to_string(checked_mul(l.per_sequence.k_bytes, b, "K bytes")) + "," +
           std::to_string(checked_mul(l.per_sequence.v_bytes, b, "V bytes")) + "," + std::to_string(l.state_bytes) + "," +
           std::to_string(l.bytes) + "\n";
  }
  return out;
}

std::string format_inspect_csv(const ModelSpec& m, const CacheDtypes& dt) {
  std::string out = "layer,kind,shape,bytes_per_token,state_bytes\n";
  for (const auto& l : m.layers)
    out += std::to_string(l.index) + "," + csv_field(layer_kinds(l)) + "," + csv_field(describe_layer(l)) + "," +
           std::to_string(bytes_per_token(l, dt)) + "," + std::to_string(layer_bytes(l, 0, dt).state_bytes()) + "\n";
  return out;
}

std::string format_inspect_text(const ModelSpec& m, const CacheDtypes& dt) {
  std::string out;
  out += m.name + "  (model_type " + m.model_type + ", " + std::to_string(m.layers.size()) + " layers, dtype " +
         std::string(name(m.dtype)) + ")\n";
  out += "cache dtypes: K " + std::string(name(dt.k)) + ", V " + std::string(name(dt.v)) + ", conv " +
         std::string(name(dt.conv)) + ", SSM " + std::string(name(dt.ssm)) + "\n\n";
  out += pad_to("layer", 6) + pad_to("kind", 19) + pad_to("shape", 52) + pad_to("B/token", 10, true) + pad_to("state B", 14, true) + "\n";
  for (const auto& l : m.layers) {
    auto bytes = layer_bytes(l, 0, dt);
    out += pad_to(std::to_string(l.index), 6) + pad_to(layer_kinds(l) + " ", 19) + pad_to(describe_layer(l), 52) +
           pad_to(format_count(bytes_per_token(l, dt)), 10, true) + pad_to(format_count(bytes.state_bytes()), 14, true) + "\n";
  }
  if (!m.assumptions.empty()) {
    out += "\nassumptions:\n";
    for (const auto& a : m.assumptions) out += "  - " + a + "\n";
  }
  return out;
}

}  // namespace kvplan
