// Weight bytes: the parameter inventory (ModelSpec::params.tensors) priced in a storage format.
#include "kvplan/weights.h"

#include <algorithm>
#include <string>

#include "kvplan/checked.h"
#include "model/quantization_internal.h"

namespace kvplan {

namespace {

using u64 = std::uint64_t;

// quantization_config's modules_to_not_convert: a module name (with "*" for any index, as the
// inventory writes it) covers every tensor under it.
bool not_converted(const WeightQuantization& q, const std::string& tensor) {
  for (const auto& mod : q.modules_not_converted) {
    if (tensor.size() < mod.size() || tensor.compare(0, mod.size(), mod) != 0) continue;
    if (tensor.size() == mod.size() || tensor[mod.size()] == '.' || mod.back() == '.') return true;
  }
  return false;
}

// Does the checkpoint store this tensor in its quantised format? Projection matrices only; the
// output head, the routers (DeepSeek's gate is a bare parameter; gpt-oss lists its router) and
// listed modules stay in the model dtype. gpt-oss (mxfp4) quantises only the routed experts.
bool checkpoint_quantised(const WeightQuantization& q, const WeightTensor& t) {
  if (t.kind == WeightKind::vector) return false;
  if (q.quantises_embeddings && !not_converted(q, t.name) &&
      (t.kind == WeightKind::embedding || t.component == WeightComponent::lm_head))
    return true;  // MLX
  if (t.kind != WeightKind::linear) return false;
  if (t.component == WeightComponent::lm_head || t.component == WeightComponent::moe_router) return false;
  if (t.name.find("shared_head.head") != std::string::npos) return false;  // DeepSeek MTP head copy
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

WeightBytes rule_weight_bytes(const ModelSpec& m, std::optional<Dtype> override_dtype);

}  // namespace

WeightBytes weight_bytes(const ModelSpec& m, std::optional<Dtype> override_dtype) {
  WeightBytes w = rule_weight_bytes(m, override_dtype);
  // The config rule cannot price them: no inventory, or (in the checkpoint's own format) a
  // quantization_config kvplan could not read. A dtype override needs only the inventory.
  std::string unknown;
  if (m.params.tensors.empty())
    unknown = m.params.unknown_reason.empty() ? "no parameter count for model_type " + m.model_type : m.params.unknown_reason;
  else if (!override_dtype && !m.params.unknown_reason.empty())
    unknown = m.params.unknown_reason;
  if (!unknown.empty() && (override_dtype || !m.checkpoint_weights)) {
    WeightBytes none;
    none.unknown = std::move(unknown);
    none.scheme = "unknown";
    return none;
  }
  if (override_dtype || !m.checkpoint_weights) return w;
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

WeightBytes rule_weight_bytes(const ModelSpec& m, std::optional<Dtype> override_dtype) {
  WeightBytes w;
  const Dtype base = (m.quantization && m.quantization->unquantised_dtype) ? *m.quantization->unquantised_dtype : m.dtype;
  const WeightQuantization* q =
      (!override_dtype && m.quantization && (m.quantization->dtype || m.quantization->bits)) ? &*m.quantization : nullptr;
  bool any_quantised = false;

  for (const auto& t : m.params.tensors) {
    u64 one = 0;  // bytes of one copy
    Dtype row_dtype = base;
    if (t.kind == WeightKind::vector) {
      one = plain_bytes(base, t);
    } else if (override_dtype) {
      row_dtype = *override_dtype;
      one = plain_bytes(*override_dtype, t);
    } else if (q && checkpoint_quantised(*q, t)) {
      any_quantised = true;
      row_dtype = q->dtype.value_or(row_dtype);
      one = detail::quantised_matrix_bytes(*q, t.rows, t.cols);
    } else {
      one = plain_bytes(base, t);
    }
    const u64 all = checked_mul(one, t.count, "weight bytes");
    if (t.mtp) {
      w.mtp = checked_add(w.mtp, all, "weight bytes");
      continue;
    }
    w.total = checked_add(w.total, all, "weight bytes");
    if (t.component == WeightComponent::moe_routed) w.experts = checked_add(w.experts, all, "weight bytes");
    // Per token at batch 1: a lookup table gives one row (unless it is also the output head),
    // routed experts only their top-k copies, everything else is read whole.
    u64 read = 0;
    if (t.kind == WeightKind::embedding && !t.tied_head) read = checked_mul(row_bytes(row_dtype, t.cols), t.active_count, "weight bytes");
    else read = checked_mul(one, t.active_count, "weight bytes");
    w.active = checked_add(w.active, read, "weight bytes");
  }
  w.non_experts = w.total - w.experts;

  const std::string base_name(name(base));
  if (override_dtype) {
    w.scheme = *override_dtype == base ? base_name
                                       : std::string(name(*override_dtype)) + " (norms and biases " + base_name + ")";
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
