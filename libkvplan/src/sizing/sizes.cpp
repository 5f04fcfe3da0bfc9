#include "kvplan/sizes.h"

#include "kvplan/checked.h"
#include "kvplan/error.h"

namespace kvplan {

CacheDtypes resolve_dtypes(const ModelSpec& m, const Workload& w) {
  CacheDtypes d;
  d.k = w.k_dtype.value_or(m.dtype);
  d.v = w.v_dtype.value_or(m.dtype);
  // Recurrent state: the dtype the config names, else the model dtype (vLLM's "auto").
  d.conv = w.state_dtype.value_or(m.conv_state_dtype.value_or(m.dtype));
  d.ssm = w.state_dtype.value_or(m.ssm_state_dtype.value_or(d.conv));
  return d;
}

namespace {
CacheSize compute(const ModelSpec& m, const Workload& w);
}

CacheSize cache_size(const ModelSpec& m, const Workload& w) {
  try {
    return compute(m, w);
  } catch (const OverflowError& e) {
    // Name the model's file so the user knows which input is absurd.
    throw OverflowError(m.source + ": " + e.what());
  }
}

namespace {
CacheSize compute(const ModelSpec& m, const Workload& w) {
  if (w.batch == 0) throw InputError::value("batch", "0", "a positive number of sequences");
  if (w.tp == 0) throw InputError::value("tensor parallel size", "0", "a positive integer");
  CacheSize s;
  s.model = m.name;
  s.workload = w;
  s.dtypes = resolve_dtypes(m, w);
  for (const auto& l : m.layers) {
    LayerSize ls;
    ls.index = l.index;
    ls.kind = std::string(kind_name(l));
    for (const auto& c : l.mixers) ls.mixer_kinds.emplace_back(kind_name(c));
    ls.per_sequence = layer_bytes(l, w.tokens, s.dtypes, w.tp);
    ls.kv_bytes = checked_mul(ls.per_sequence.kv_bytes(), w.batch, "KV bytes");
    ls.state_bytes = checked_mul(ls.per_sequence.state_bytes(), w.batch, "state bytes");
    ls.bytes = checked_add(ls.kv_bytes, ls.state_bytes, "layer bytes");
    s.k_bytes = checked_add(s.k_bytes, checked_mul(ls.per_sequence.k_bytes, w.batch, "K bytes"), "K bytes");
    s.v_bytes = checked_add(s.v_bytes, checked_mul(ls.per_sequence.v_bytes, w.batch, "V bytes"), "V bytes");
    s.kv_bytes = checked_add(s.kv_bytes, ls.kv_bytes, "KV bytes");
    s.state_bytes = checked_add(s.state_bytes, ls.state_bytes, "state bytes");
    s.bytes_per_token = checked_add(s.bytes_per_token, bytes_per_token(l, s.dtypes, w.tp), "bytes per token");
    s.layers.push_back(std::move(ls));
  }
  s.total_bytes = checked_add(s.kv_bytes, s.state_bytes, "total cache bytes");
  return s;
}
}  // namespace

std::uint64_t total_cache_bytes(const ModelSpec& m, const Workload& w) { return cache_size(m, w).total_bytes; }

}  // namespace kvplan
