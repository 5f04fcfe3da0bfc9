// Weight bytes: the parameter inventory (ModelSpec::params.tensors) priced in a storage format.
#include "kvplan/weights.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "model/quantization_internal.h"

namespace kvplan {

namespace {

using u64 = std::uint64_t;

// quantization_config's modules_to_not_convert: a module name (with "*" for any index, as the
// inventory writes it) covers every tensor under it. A name that is not a full path ("self_attn",
// "vision_tower", "q_proj") covers every module of that name at any depth, as transformers'
// writers match them (bitsandbytes `key + "." in name or key == name`, should_convert_module's
// `name.endswith(key)`): matched at name boundaries, so "gate" is the router, not "gate_proj".
bool not_converted(const WeightQuantization& q, const std::string& tensor) {
  const std::string dotted = "." + tensor + ".";
  for (const auto& mod : q.modules_not_converted) {
    if (detail::is_module_regex(mod) || mod.empty()) continue;  // ModuleRegexes
    if (tensor.size() >= mod.size() && tensor.compare(0, mod.size(), mod) == 0 &&
        (tensor.size() == mod.size() || tensor[mod.size()] == '.' || mod.back() == '.'))
      return true;
    // A layer-indexed name ("model.layers.0.mlp") binds its layer (excluded_copies), never all.
    if (std::any_of(mod.begin(), mod.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }) &&
        mod.find('.') != std::string::npos)
      continue;
    const std::string inner = (mod.front() == '.' ? "" : ".") + mod + (mod.back() == '.' ? "" : ".");
    if (dotted.find(inner) != std::string::npos) return true;
  }
  return false;
}

// A module named for one layer ("model.layers.0.self_attn", unsloth's dynamic 4-bit skips; a
// per-layer modelopt exclude_modules or compressed-tensors ignore list) against an inventory
// tensor that stands for every layer ("model.layers.*.self_attn.q_proj", count = one per layer):
// the layer indices each module binds, or nothing when it does not name this tensor's copies.
std::optional<std::vector<u64>> bound_indices(const std::string& mod, const std::string& pattern) {
  if (detail::is_module_regex(mod)) return std::nullopt;  // ModuleRegexes
  std::vector<u64> idx;
  std::size_t i = 0, j = 0;
  while (i < mod.size() && j < pattern.size()) {
    if (pattern[j] == '*' && std::isdigit(static_cast<unsigned char>(mod[i]))) {
      u64 v = 0;
      std::size_t digits = 0;
      for (; i < mod.size() && std::isdigit(static_cast<unsigned char>(mod[i])) && digits < 9; ++i, ++digits)
        v = v * 10 + static_cast<u64>(mod[i] - '0');
      if (i < mod.size() && std::isdigit(static_cast<unsigned char>(mod[i]))) return std::nullopt;  // absurd index
      idx.push_back(v);
      ++j;
    } else if (mod[i] == pattern[j]) {
      ++i, ++j;
    } else {
      return std::nullopt;
    }
  }
  if (i < mod.size() || idx.empty()) return std::nullopt;
  if (j < pattern.size() && pattern[j] != '.' && mod.back() != '.') return std::nullopt;  // "layers.1" is not "layers.10"
  return idx;
}

// The "re:" entries of a module list (compressed-tensors `ignore`, which llm-compressor writes for
// MoE routers and vision towers: "re:.*mlp.gate$", "re:visual.*"). Both compressed-tensors
// (utils/match.py `_match_name`) and vLLM (compressed_tensors/utils.py `_is_equal_or_regex_match`)
// test them with Python's re.match against a module's name: anchored at the start, not at the
// end ("$" in the pattern anchors it). std::regex_search with match_continuous is that. Patterns
// were checked when the config was read (detail::check_module_regex).
class ModuleRegexes {
 public:
  explicit ModuleRegexes(const WeightQuantization& q) {
    for (const auto& mod : q.modules_not_converted)
      if (detail::is_module_regex(mod)) res_.push_back(detail::module_regex(mod));
  }
  bool empty() const { return res_.empty(); }
  bool match(const std::string& module) const {
    for (const auto& re : res_)
      if (std::regex_search(module, re, std::regex_constants::match_continuous)) return true;
    return false;
  }

 private:
  std::vector<std::regex> res_;
};

// The module an inventory tensor belongs to (its name less the parameter: "q_proj.weight" ->
// "q_proj", gpt-oss's "experts.gate_up_proj" -> "experts"), with its "*"s replaced by `idx` in
// order (layer, then expert).
std::string module_of(const std::string& tensor, std::initializer_list<u64> idx) {
  std::string out;
  auto it = idx.begin();
  for (char ch : tensor) {
    if (ch == '*' && it != idx.end()) out += std::to_string(*it++);
    else out += ch;
  }
  if (const auto dot = out.rfind('.'); dot != std::string::npos) out.erase(dot);
  return out;
}

// Does a regex entry cover every copy of the tensor (each layer's, each expert's)? For a tensor
// without "*" that is the one module; for one held by only some layers (indices unknown), every
// layer index must match.
bool regex_covers_all(const ModuleRegexes& rx, const WeightTensor& t, u64 layers, u64 experts) {
  if (rx.empty()) return false;
  const auto wild = std::count(t.name.begin(), t.name.end(), '*');
  if (wild == 0) return rx.match(module_of(t.name, {}));
  if (layers == 0 || wild > 2 || (wild == 2 && experts == 0)) return false;
  for (u64 l = 0; l < layers; ++l) {
    if (wild == 1 && !rx.match(module_of(t.name, {l}))) return false;
    for (u64 e = 0; wild == 2 && e < experts; ++e)
      if (!rx.match(module_of(t.name, {l, e}))) return false;
  }
  return true;
}

// How many of a wildcard tensor's copies the checkpoint leaves unquantised because a listed
// module names their layer. Counted only where the copies per layer are known: one per layer
// (count = number of layers), or one per routed expert per layer (count = layers x experts, the
// module naming a layer or a layer and an expert). A tensor held by only some layers (DeepSeek's
// dense first layers, Jamba's attention) cannot map an index to its copies: such a module is not
// counted, and the tensor stays priced as quantised.
u64 excluded_copies(const WeightQuantization& q, const ModuleRegexes& rx, const WeightTensor& t, u64 layers,
                    u64 experts) {
  const auto wild = static_cast<u64>(std::count(t.name.begin(), t.name.end(), '*'));
  if (wild == 0 || layers == 0) return 0;
  const bool per_layer = wild == 1 && t.count == layers;
  const bool per_expert = wild == 2 && experts > 0 && t.count == checked_mul(layers, experts, "tensor count");
  if (!per_layer && !per_expert) return 0;
  std::set<u64> whole_layers;                 // every copy of the layer
  std::set<std::pair<u64, u64>> one_experts;  // (layer, expert)
  for (const auto& mod : q.modules_not_converted) {
    auto idx = bound_indices(mod, t.name);
    if (!idx || (*idx)[0] >= layers) continue;
    if (idx->size() == 1) whole_layers.insert((*idx)[0]);
    else if (per_expert && (*idx)[1] < experts) one_experts.insert({(*idx)[0], (*idx)[1]});
  }
  // Regex entries: each copy's own module name.
  for (u64 l = 0; !rx.empty() && l < layers; ++l) {
    if (per_layer && rx.match(module_of(t.name, {l}))) whole_layers.insert(l);
    for (u64 e = 0; per_expert && e < experts; ++e)
      if (rx.match(module_of(t.name, {l, e}))) one_experts.insert({l, e});
  }
  u64 skip = checked_mul(whole_layers.size(), per_layer ? 1 : experts, "tensor count");
  for (const auto& [layer, expert] : one_experts)
    if (!whole_layers.count(layer)) skip = checked_add(skip, 1, "tensor count");
  return std::min(skip, t.count);
}

// A tensor of a vision or audio tower (or its projector). mlx-vlm, which writes MLX checkpoints of
// multimodal models, never quantises these (mlx_vlm/convert.py `base_quant_predicate` returns
// false for every path `skip_multimodal_module` names: vision_tower, vision_model, audio_tower,
// multi_modal_projector, ...); Qwen's HF "model.visual.*" is its "vision_tower.*"
// (models/qwen3_5/qwen3_5.py sanitize). mlx-community/Qwen3.5-9B-MLX-8bit keeps all 456 M
// vision parameters in bf16 (tests/test_checkpoints.cpp).
bool mlx_multimodal(const std::string& tensor) {
  static constexpr std::array<std::string_view, 11> kTowers{
      "vision_model", "vision_tower", "vl_connector", "sam_model", "audio_model", "audio_tower",
      "code_predictor", "img_projector", "multi_modal_projector", "patch_merge_mlp", "model.visual."};
  return std::any_of(kTowers.begin(), kTowers.end(),
                     [&tensor](std::string_view t) { return tensor.find(t) != std::string::npos; });
}

// Does the checkpoint store this tensor in its quantised format? Projection matrices only; the
// output head, the routers (DeepSeek's gate is a bare parameter; gpt-oss lists its router) and
// listed modules stay in the model dtype. gpt-oss (mxfp4) quantises only the routed experts.
bool checkpoint_quantised(const WeightQuantization& q, const ModuleRegexes& rx, const WeightTensor& t, u64 layers,
                          u64 experts) {
  if (t.kind == WeightKind::vector) return false;
  if (regex_covers_all(rx, t, layers, experts)) return false;
  if (q.method == "mlx" && mlx_multimodal(t.name)) return false;
  if (q.quantises_embeddings && !not_converted(q, t.name) &&
      (t.kind == WeightKind::embedding || t.component == WeightComponent::lm_head))
    return true;  // MLX
  if (t.kind != WeightKind::linear) return false;
  if (t.component == WeightComponent::lm_head || t.component == WeightComponent::moe_router) return false;
  if (t.name.find("shared_head.head") != std::string::npos) return false;  // DeepSeek MTP head copy
  // The MTP layer's input projection (h x 2h) is a plain nn.Linear in vLLM's deepseek_mtp.py (no
  // quant_config, no weight_scale_inv to load): the checkpoint keeps it unquantised. Pricing it in
  // fp8 put DeepSeek-V3 102.7 MB under its published size.
  if (t.name.find("eh_proj") != std::string::npos) return false;
  if (t.name.find("indexer.weights_proj") != std::string::npos) return false;  // DSV3.2: kept unquantised
  if (not_converted(q, t.name)) return false;
  if (q.dtype == Dtype::mxfp4 && q.method == "mxfp4") return t.component == WeightComponent::moe_routed;
  return true;
}

// Bytes of one copy of a rows x cols tensor stored in `d` (block formats along the input dim).
u64 plain_bytes(Dtype d, const WeightTensor& t) { return checked_mul(t.rows, row_bytes(d, t.cols), "weight bytes"); }

std::string dims(const WeightQuantization& q) {
  return std::to_string(q.block_rows) + "x" + std::to_string(q.block_cols);
}

WeightBytes rule_weight_bytes(const ModelSpec& m, std::optional<Dtype> override_dtype,
                              const WeightQuantization* preset);

}  // namespace

WeightFormat parse_weight_format(std::string_view text, std::string_view what) {
  if (std::string p = detail::weight_preset_name(text); !p.empty()) {
    WeightFormat f;
    f.preset = p;
    if (p == "fp8") f.dtype = Dtype::fp8_e4m3;
    else if (p == "w8a8") f.dtype = Dtype::int8;
    else if (p == "mxfp4") f.dtype = Dtype::mxfp4;
    return f;
  }
  try {
    return WeightFormat(parse_dtype(text, what));
  } catch (const InputError&) {
    std::string names;
    for (const auto& p : detail::weight_presets()) names += (names.empty() ? "" : " ") + std::string(p.name);
    std::string dtypes;
    for (const auto& d : all_dtypes()) dtypes += " " + std::string(d.name);
    throw InputError::value(what, text, "a preset (" + names + ") or a dtype (" + dtypes.substr(1) + ")");
  }
}

std::vector<std::string> weight_preset_names() {
  std::vector<std::string> out;
  for (const auto& p : detail::weight_presets()) out.emplace_back(p.name);
  return out;
}

WeightBytes weight_bytes(const ModelSpec& m, std::optional<WeightFormat> override_format) {
  std::optional<WeightQuantization> preset;
  std::optional<Dtype> override_dtype;
  // The config rule cannot price them: no inventory, or (in the checkpoint's own format) a
  // quantization_config kvplan could not read. A dtype or preset override needs only the inventory.
  std::string unknown;
  if (m.params.tensors.empty())
    unknown = m.params.unknown_reason.empty() ? "no parameter count for model_type " + m.model_type : m.params.unknown_reason;
  else if (!override_format && !m.params.unknown_reason.empty())
    unknown = m.params.unknown_reason;
  if (!unknown.empty() && (override_format || !m.checkpoint_weights)) {
    WeightBytes none;
    none.unknown = std::move(unknown);
    none.scheme = "unknown";
    return none;
  }
  if (override_format && !override_format->preset.empty()) preset = detail::weight_preset(override_format->preset, m);
  else if (override_format) override_dtype = override_format->dtype;
  WeightBytes w = rule_weight_bytes(m, override_dtype, preset ? &*preset : nullptr);
  if (preset) w.scheme += " (preset --weight-dtype " + override_format->preset + ")";
  if (override_format || !m.checkpoint_weights) return w;
  const CheckpointWeights& cw = *m.checkpoint_weights;
  // The rule's active share, applied to the exact total (the headers say what is stored, not
  // what one token reads).
  const long double share = w.total ? static_cast<long double>(w.active) / static_cast<long double>(w.total) : 1.0L;
  w.source = cw.source;
  w.total = cw.total_bytes;
  w.active = static_cast<u64>(share * static_cast<long double>(cw.total_bytes));
  if (w.active > w.total) w.active = w.total;
  if (cw.exact) {
    w.experts = cw.expert_bytes;
    w.mtp = cw.mtp_bytes;
    w.layer_bytes = cw.layer_bytes;
    w.layer_experts = cw.layer_expert_bytes;
    w.outside_layers = cw.non_layer_bytes;
    std::string dtypes;
    for (const auto& [d, b] : cw.bytes_by_dtype) dtypes += (dtypes.empty() ? "" : " + ") + d;
    w.scheme = dtypes + " (" + cw.source + ")";
  } else {
    w.experts = std::min(w.experts, w.total);
    w.scheme = "as stored (" + cw.source + "; " + w.scheme + " by the config rule)";
  }
  w.non_experts = w.total - w.experts;
  return w;
}

namespace {

// llama-quantize's model facts for a GGUF preset (GgufQuantContext).
detail::GgufQuantContext gguf_context(const ModelSpec& m) {
  detail::GgufQuantContext ctx;
  ctx.n_layer = m.num_layers();
  ctx.n_expert = m.dims.num_experts;
  for (const auto& l : m.layers) {
    std::uint64_t kv = 0;
    for (const auto& c : l.mixers)
      if (const auto* a = std::get_if<Attention>(&c)) kv = a->kv_heads;
    if (kv > 0) {
      ctx.n_gqa = m.dims.num_attention_heads / kv;
      break;
    }
  }
  for (const auto& t : m.params.tensors)
    if (!t.mtp && detail::gguf_attn_v_like(t)) ctx.n_attention_wv = checked_add(ctx.n_attention_wv, t.count, "tensor count");
  return ctx;
}

WeightBytes rule_weight_bytes(const ModelSpec& m, std::optional<Dtype> override_dtype,
                              const WeightQuantization* preset) {
  WeightBytes w;
  // A preset keeps its unquantised tensors in the dtype the model is served in (a float32 config
  // is quantised from and saved in bf16).
  const Dtype base = preset ? serving_dtype(m)
                     : (m.quantization && m.quantization->unquantised_dtype) ? *m.quantization->unquantised_dtype
                                                                             : m.dtype;
  const WeightQuantization* q =
      preset ? preset
             : (!override_dtype && m.quantization && (m.quantization->dtype || m.quantization->bits)) ? &*m.quantization
                                                                                                       : nullptr;
  const bool gguf = q && q->method == "gguf";
  detail::GgufQuantContext ctx;
  if (gguf) ctx = gguf_context(m);
  std::set<std::string> gguf_types;
  bool any_quantised = false;
  const ModuleRegexes regexes = q && !gguf ? ModuleRegexes(*q) : ModuleRegexes(WeightQuantization{});

  for (const auto& t : m.params.tensors) {
    u64 one = 0;  // bytes of one copy
    u64 all_copies = 0;  // all copies when they differ (GGUF per-layer types, layer-named exclusions)
    Dtype row_dtype = base;
    if (gguf && (t.kind == WeightKind::vector || t.component == WeightComponent::moe_router)) {
      // GGUF files keep norms, biases, conv kernels and routers in F32 (convert_hf_to_gguf).
      row_dtype = Dtype::fp32;
      one = plain_bytes(Dtype::fp32, t);
      gguf_types.insert("F32");
    } else if (gguf) {
      any_quantised = true;
      all_copies = detail::gguf_preset_tensor_bytes(*q, t, ctx, gguf_types);
      one = t.count ? all_copies / t.count : 0;
    } else if (t.kind == WeightKind::vector) {
      one = plain_bytes(base, t);
    } else if (override_dtype) {
      row_dtype = *override_dtype;
      one = plain_bytes(*override_dtype, t);
    } else if (q && checkpoint_quantised(*q, regexes, t, m.num_layers(), m.dims.num_experts)) {
      any_quantised = true;
      row_dtype = q->dtype.value_or(row_dtype);
      one = detail::quantised_matrix_bytes(*q, t.rows, t.cols);
      // Copies a listed module keeps in the model dtype (their layer named); the per-copy
      // figure for `active` becomes the average.
      if (const u64 skip = excluded_copies(*q, regexes, t, m.num_layers(), m.dims.num_experts); skip > 0) {
        all_copies = checked_add(checked_mul(one, t.count - skip, "weight bytes"),
                               checked_mul(plain_bytes(base, t), skip, "weight bytes"), "weight bytes");
        one = all_copies / t.count;
      }
    } else {
      one = plain_bytes(base, t);
    }
    const u64 all = all_copies ? all_copies : checked_mul(one, t.count, "weight bytes");
    if (t.mtp) {
      w.mtp = checked_add(w.mtp, all, "weight bytes");
      continue;
    }
    w.total = checked_add(w.total, all, "weight bytes");
    if (t.component == WeightComponent::moe_routed) w.experts = checked_add(w.experts, all, "weight bytes");
    // Per token at batch 1: a lookup table gives one row (unless it is also the output head),
    // routed experts only their top-k copies, everything else is read whole.
    u64 read = 0;
    if (t.kind == WeightKind::embedding && !t.tied_head)
      read = checked_mul(gguf ? ceil_div(one, t.rows) : row_bytes(row_dtype, t.cols), t.active_count, "weight bytes");
    else read = checked_mul(one, t.active_count, "weight bytes");
    w.active = checked_add(w.active, read, "weight bytes");
  }
  w.non_experts = w.total - w.experts;

  const std::string base_name(name(base));
  if (override_dtype) {
    w.scheme = *override_dtype == base ? base_name
                                       : std::string(name(*override_dtype)) + " (norms and biases " + base_name + ")";
  } else if (gguf) {
    std::string types;
    for (const auto& g : gguf_types) types += (types.empty() ? "" : " + ") + g;
    w.scheme = q->describe + " (llama-quantize per-tensor types: " + types + ")";
  } else if (q && any_quantised && !q->describe.empty()) {
    w.scheme = q->describe + " + " + base_name;
  } else if (q && any_quantised) {
    if (q->method == "fp8")
      w.scheme = q->block_rows ? "fp8 (" + dims(*q) + " blocks) + " + base_name : "fp8 + " + base_name;
    else if (q->dtype == Dtype::mxfp4)
      w.scheme = "mxfp4 experts + " + base_name;
    else
      w.scheme = std::string(name(*q->dtype)) + " + " + base_name;
  } else {
    w.scheme = base_name;
  }
  return w;
}

}  // namespace

}  // namespace kvplan
