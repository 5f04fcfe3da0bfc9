#include "kvplan/runtime/measure.h"

#include <cstdio>
#include <sstream>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/units.h"

namespace kvplan::runtime {

bool LayerMeasurement::matches() const {
  return formula.k_bytes == measured_k && formula.v_bytes == measured_v && formula.conv_bytes == measured_conv &&
         formula.ssm_bytes == measured_ssm && formula_bytes == measured_bytes;
}

bool Measurement::matches() const {
  if (formula_total_bytes != measured_total_bytes) return false;
  for (const auto& l : layers)
    if (!l.matches()) return false;
  return true;
}

Measurement measure_cache(const Model& model, const Cache& cache) {
  const ModelSpec& spec = model.spec();
  Measurement r;
  r.model = spec.name;
  r.tokens = cache.capacity();
  r.tokens_run = cache.position();
  r.dtypes = cache.dtypes();
  r.scaled = model.options().scaled;
  r.dims = model.dims();
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    LayerMeasurement l;
    l.index = spec.layers[i].index;
    l.kind = std::string(kind_name(spec.layers[i]));
    l.formula = layer_bytes(spec.layers[i], cache.capacity(), cache.dtypes(), 1);
    l.formula_bytes = l.formula.total_bytes();
    for (const auto& t : cache.layers()[i]) {
      TensorInfo ti = t.info();
      std::uint64_t* slot = &l.measured_k;
      if (ti.name == "v") slot = &l.measured_v;
      else if (ti.name == "conv_state") slot = &l.measured_conv;
      else if (ti.name == "ssm_state") slot = &l.measured_ssm;
      *slot = checked_add(*slot, ti.bytes, "measured bytes");
      l.measured_bytes = checked_add(l.measured_bytes, ti.bytes, "measured bytes");
      l.scale_bytes += ti.scale_bytes;
      r.numbers = checked_add(r.numbers, ti.numbers, "numbers");
      if (ti.name == "k" || ti.name == "v") r.kv_numbers = checked_add(r.kv_numbers, ti.numbers, "numbers");
      l.tensors.push_back(std::move(ti));
    }
    r.formula_total_bytes = checked_add(r.formula_total_bytes, l.formula_bytes, "formula bytes");
    r.measured_total_bytes = checked_add(r.measured_total_bytes, l.measured_bytes, "measured bytes");
    r.scale_bytes += l.scale_bytes;
    r.layers.push_back(std::move(l));
  }
  return r;
}

Measurement measure(const Model& model, const Workload& w, std::uint64_t run_tokens) {
  if (w.batch != 1) throw InputError::value("batch", std::to_string(w.batch), "1 (the reference runtime runs one sequence)");
  if (w.tp != 1) throw InputError::value("tensor parallel size", std::to_string(w.tp), "1 (the reference runtime runs on one rank)");
  const CacheDtypes dt = resolve_dtypes(model.spec(), w);
  Cache cache = model.allocate(w.tokens, dt);
  std::vector<const void*> before;
  for (const auto& l : cache.layers())
    for (const auto& t : l) before.push_back(t.buffer_address());
  const std::uint64_t bytes_before = cache.bytes();
  const std::uint64_t run = std::min(run_tokens, w.tokens);
  if (run > 0) {
    auto toks = sample_tokens(run, model.dims().vocab);
    if (run > 1) model.forward(std::span(toks).first(run - 1), cache);  // prefill
    model.forward(std::span(toks).last(1), cache);                      // one decode step
  }
  Measurement r = measure_cache(model, cache);
  std::size_t i = 0;
  for (const auto& l : cache.layers())
    for (const auto& t : l) r.buffers_stable = r.buffers_stable && t.buffer_address() == before[i++];
  r.buffers_stable = r.buffers_stable && cache.bytes() == bytes_before;
  return r;
}

Measurement measure(const ModelSpec& spec, const Workload& w, const MeasureOptions& opt) {
  Model model(spec, opt.runtime);
  return measure(model, w, opt.run_tokens);
}

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json j;
  j["model"] = m.model;
  j["tokens"] = m.tokens;
  j["tokens_run"] = m.tokens_run;
  j["scaled"] = m.scaled;
  j["k_dtype"] = std::string(name(m.dtypes.k));
  j["v_dtype"] = std::string(name(m.dtypes.v));
  j["conv_dtype"] = std::string(name(m.dtypes.conv));
  j["ssm_dtype"] = std::string(name(m.dtypes.ssm));
  j["run_dims"] = {{"hidden_size", m.dims.hidden}, {"vocab_size", m.dims.vocab}, {"ffn", m.dims.ffn}};
  j["formula_total_bytes"] = m.formula_total_bytes;
  j["measured_total_bytes"] = m.measured_total_bytes;
  j["difference_bytes"] = static_cast<std::int64_t>(m.measured_total_bytes) - static_cast<std::int64_t>(m.formula_total_bytes);
  j["numbers"] = m.numbers;
  j["kv_numbers"] = m.kv_numbers;
  j["scale_bytes"] = m.scale_bytes;
  j["buffers_stable"] = m.buffers_stable;
  j["matches"] = m.matches();
  auto& layers = j["layers"] = nlohmann::json::array();
  for (const auto& l : m.layers) {
    nlohmann::json lj;
    lj["index"] = l.index;
    lj["kind"] = l.kind;
    lj["formula_bytes"] = l.formula_bytes;
    lj["measured_bytes"] = l.measured_bytes;
    lj["difference_bytes"] = static_cast<std::int64_t>(l.measured_bytes) - static_cast<std::int64_t>(l.formula_bytes);
    lj["formula"] = {{"k_bytes", l.formula.k_bytes}, {"v_bytes", l.formula.v_bytes},
                     {"conv_bytes", l.formula.conv_bytes}, {"ssm_bytes", l.formula.ssm_bytes}};
    lj["measured"] = {{"k_bytes", l.measured_k}, {"v_bytes", l.measured_v},
                      {"conv_bytes", l.measured_conv}, {"ssm_bytes", l.measured_ssm}};
    lj["scale_bytes"] = l.scale_bytes;
    lj["shapes"] = nlohmann::json::object();
    lj["tensors"] = nlohmann::json::array();
    for (const auto& t : l.tensors) {
      lj["shapes"][t.name] = t.shape;
      lj["tensors"].push_back({{"name", t.name}, {"dtype", std::string(name(t.dtype))}, {"shape", t.shape},
                               {"numbers", t.numbers}, {"element_type", t.element_type},
                               {"element_count", t.element_count}, {"element_size", t.element_size},
                               {"bytes", t.bytes}, {"scale_bytes", t.scale_bytes}});
    }
    lj["matches"] = l.matches();
    layers.push_back(std::move(lj));
  }
  return j;
}

namespace {
std::string shape_text(const std::vector<std::uint64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
}  // namespace

std::string format_measurement_text(const Measurement& m) {
  std::ostringstream o;
  o << m.model << ": " << format_count(m.tokens) << " tokens allocated, " << m.tokens_run << " run"
    << (m.scaled ? " (scaled mode: hidden " : " (full size: hidden ") << m.dims.hidden << ", vocab " << m.dims.vocab
    << ")\n";
  o << "cache dtypes: K " << name(m.dtypes.k) << ", V " << name(m.dtypes.v) << ", conv " << name(m.dtypes.conv)
    << ", ssm " << name(m.dtypes.ssm) << "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%5s  %-18s %16s %16s %8s  %s\n", "layer", "kind", "formula B", "measured B", "diff",
                "tensors");
  o << line;
  for (const auto& l : m.layers) {
    std::string ts;
    for (const auto& t : l.tensors) ts += (ts.empty() ? "" : " ") + t.name + shape_text(t.shape);
    if (ts.empty()) ts = "-";
    std::snprintf(line, sizeof line, "%5llu  %-18s %16s %16s %8lld  ", static_cast<unsigned long long>(l.index),
                  l.kind.c_str(), format_count(l.formula_bytes).c_str(), format_count(l.measured_bytes).c_str(),
                  static_cast<long long>(l.measured_bytes) - static_cast<long long>(l.formula_bytes));
    o << line << ts << "\n";
  }
  o << "\ntotal: formula " << format_count(m.formula_total_bytes) << " B (" << format_bytes(m.formula_total_bytes)
    << "), measured " << format_count(m.measured_total_bytes) << " B; "
    << (m.matches() ? "equal, every layer" : "DIFFERENT") << "\n";
  o << "numbers held: " << format_count(m.numbers) << " (K and V: " << format_count(m.kv_numbers) << ")";
  if (m.scale_bytes) o << "; per-tensor scales kept beside the buffers: " << m.scale_bytes << " B (not cache bytes)";
  o << "\n";
  return o.str();
}

}  // namespace kvplan::runtime
