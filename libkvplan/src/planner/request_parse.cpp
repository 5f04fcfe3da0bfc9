// The one request parser (kvplan/request.h): a JSON object of request-table fields -> PlanInput
// or Workload. Each value is read by its field's type, so the CLI's flags, the Python keywords
// and the page's form fields reach the library through the same code.
#include <string>

#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/request.h"
#include "kvplan/units.h"
#include "kvplan/weights.h"

namespace kvplan {

namespace {
using json = nlohmann::json;

// Reads one request object; `naming` picks the name messages use (the CLI flag or the keyword).
class Reader {
 public:
  Reader(const json& req, std::span<const RequestField> table, FieldNaming naming, std::string_view what)
      : req_(req), table_(table), naming_(naming) {
    if (!req.is_object()) throw InputError::value(what, req.dump(), "an object of option names and values");
    for (const auto& [k, v] : req.items()) field(k);  // an unknown option is an error, never ignored
  }

  const RequestField& field(std::string_view name) const {
    for (const auto& f : table_)
      if (f.name == name) return f;
    std::string known;
    for (const auto& f : table_) known += (known.empty() ? "" : ", ") + std::string(label(f));
    throw InputError(std::string(InputError::unknown("option", name, "").what()) + "; the options are " + known);
  }
  std::string_view label(const RequestField& f) const { return naming_ == FieldNaming::cli_flag ? f.cli_flag : f.name; }
  std::string label(std::string_view name) const { return std::string(label(field(name))); }

  // The value given for `name`, or nullptr when it is absent, null, "" or an empty list (unset).
  const json* given(std::string_view name) const {
    const std::string key(name);
    if (!req_.contains(key)) return nullptr;
    const json& v = req_[key];
    return field_unset(v) ? nullptr : &v;
  }

  std::optional<std::uint64_t> get_uint(std::string_view name) const {
    const json* v = given(name);
    if (!v) return std::nullopt;
    return field_uint(*v, field(name).type, label(name));
  }
  std::optional<double> get_number(std::string_view name) const {
    const json* v = given(name);
    if (!v) return std::nullopt;
    return field_number(*v, field(name).type, label(name));
  }
  std::optional<std::string> get_text(std::string_view name) const {
    const json* v = given(name);
    if (!v) return std::nullopt;
    return field_text(*v, field(name).type, label(name));
  }
  std::optional<Dtype> get_dtype(std::string_view name) const {
    const auto s = get_text(name);
    if (!s || *s == "auto") return std::nullopt;
    return parse_dtype(*s, label(name));
  }
  std::vector<std::uint64_t> get_list(std::string_view name) const {
    const json* v = given(name);
    if (!v) return {};
    return field_uint_list(*v, field(name).type, label(name));
  }

 private:
  const json& req_;
  std::span<const RequestField> table_;
  FieldNaming naming_;
};

// --kv-dtype, then --k-dtype / --v-dtype over it; --state-dtype.
template <class T>
void read_dtypes(const Reader& r, T& out) {
  const auto both = r.get_dtype("kv_dtype");
  out.k_dtype = r.given("k_dtype") ? r.get_dtype("k_dtype") : both;
  out.v_dtype = r.given("v_dtype") ? r.get_dtype("v_dtype") : both;
  out.state_dtype = r.get_dtype("state_dtype");
}
}  // namespace

PlanInput plan_input_from_request(const nlohmann::json& request, FieldNaming naming, const Accelerator* device) {
  const Reader r(request, plan_request_fields(), naming, "plan request");
  PlanInput in;
  const auto gpu_memory = r.get_uint("gpu_memory");
  if (device) {
    in.gpu = *device;
  } else if (const json* g = r.given("gpu"); g && g->is_object()) {
    in.gpu = accelerator_from_json(g->dump(), r.label("gpu"));
  } else if (const auto name = r.get_text("gpu")) {
    in.gpu = find_accelerator(*name);
  } else if (gpu_memory) {
    in.gpu.name = "custom";
  } else {
    throw InputError::value(r.label("gpu"), "nothing",
                            naming == FieldNaming::cli_flag
                                ? "an accelerator name (kvplan gpus), --gpu-file or --gpu-memory"
                                : "an accelerator name (kvplan gpus), a device object with the catalog's keys, or gpu_memory");
  }
  if (gpu_memory) {
    in.gpu.memory_bytes = *gpu_memory;
    in.gpu.memory_basis = "given by " + r.label("gpu_memory");
    in.gpu.memory_marketing_bytes = in.gpu.memory_bytes;
    in.gpu.memory_marketing = format_gb(in.gpu.memory_bytes, 0);
  }
  // Absent keeps the device's figure; a rate given as 0 is an error, not "keep the catalog's".
  for (const char* key : {"gpu_bandwidth", "gpu_flops"})
    if (const auto v = r.get_number(key); v && *v == 0)
      throw InputError::value(r.label(key), "0", "a positive rate (leave it out to use the catalog's figure)");
  if (const auto bw = r.get_number("gpu_bandwidth")) in.gpu.bandwidth_bytes_per_s = *bw;
  if (const auto fl = r.get_number("gpu_flops")) in.gpu.bf16_flops = *fl;

  const EnginePreset preset = engine_preset(r.get_text("engine").value_or("none"));
  in.gpus = r.get_uint("gpus");
  in.tp = r.get_uint("tp");
  in.pp = r.get_uint("pp").value_or(in.pp);
  in.pp_layers = r.get_list("pp_layers");
  in.dp = r.get_uint("dp").value_or(in.dp);
  in.context = r.get_uint("context").value_or(in.context);
  in.context_default = !r.given("context");
  in.concurrency = r.get_uint("concurrency").value_or(in.concurrency);
  read_dtypes(r, in);
  if (const auto w = r.get_text("weight_dtype"); w && *w != "auto") in.weight_dtype = parse_weight_format(*w, r.label("weight_dtype"));
  in.weight_bytes = r.get_uint("weights");
  in.utilization = r.get_number("utilization").value_or(preset.utilization);
  in.block_tokens = r.get_uint("block_tokens").value_or(preset.block_tokens);
  in.kv_dtypes = preset.kv_dtypes;
  in.reserved.override_bytes = r.get_uint("reserved");
  in.reserved.runtime_bytes = r.get_uint("runtime_overhead").value_or(in.reserved.runtime_bytes);
  if (const auto chunk = r.get_uint("prefill_chunk"); chunk && *chunk == 0)
    throw InputError::value(r.label("prefill_chunk"), "0", "a positive number of tokens (the prefill chunk the activations are sized for)");
  in.reserved.prefill_chunk_tokens = r.get_uint("prefill_chunk").value_or(in.reserved.prefill_chunk_tokens);
  in.shared_prefix_tokens = r.get_uint("shared_prefix").value_or(in.shared_prefix_tokens);
  in.offload_bytes = r.get_uint("offload").value_or(in.offload_bytes);
  in.offload_bytes_per_s = r.get_number("offload_bandwidth").value_or(in.offload_bytes_per_s);
  in.prefill_efficiency = r.get_number("prefill_efficiency").value_or(in.prefill_efficiency);
  return in;
}

Workload workload_from_request(const nlohmann::json& request, FieldNaming naming) {
  const Reader r(request, size_request_fields(), naming, "size request");
  Workload w;
  w.tokens = r.get_uint("tokens").value_or(w.tokens);
  w.context_default = !r.given("tokens");
  w.batch = r.get_uint("batch").value_or(w.batch);
  w.tp = r.get_uint("tp").value_or(w.tp);
  read_dtypes(r, w);
  return w;
}

}  // namespace kvplan
