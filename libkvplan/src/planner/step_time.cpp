// One step's time (kvplan/step_time.h): the function `plan` and every simulator call.
#include "kvplan/step_time.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/model.h"

namespace kvplan {

namespace detail {
std::string_view step_time_json();  // generated from data/step_time.json (libkvplan/CMakeLists.txt)
}

namespace {

double fraction_field(const nlohmann::json& j, std::string_view source, const char* key, double lo, double hi) {
  const std::string what = std::string(source) + ": field \"" + key + "\"";
  if (!j.contains(key)) throw InputError::value(what, "nothing (field missing)", "a number");
  const auto& v = j.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
    throw InputError::value(what, v.dump(), "a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v.get<double>();
}

}  // namespace

StepCalibration step_calibration_from_json(std::string_view json_text, std::string_view source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError::value(std::string(source), "invalid JSON", std::string("a JSON object (") + e.what() + ")");
  }
  if (!j.is_object()) throw InputError::value(std::string(source), j.dump(), "a JSON object");
  StepCalibration c;
  c.bandwidth_fraction = fraction_field(j, source, "bandwidth_fraction", 1e-3, 1);
  c.compute_fraction = fraction_field(j, source, "compute_fraction", 1e-3, 1);
  c.compute_fraction_fp4 = fraction_field(j, source, "compute_fraction_fp4", 1e-3, 1);
  c.step_overhead_s = fraction_field(j, source, "step_overhead_s", 0, 1);
  c.layer_overhead_s = fraction_field(j, source, "layer_overhead_s", 0, 1);
  c.token_overhead_s = fraction_field(j, source, "token_overhead_s", 0, 1);
  c.seq_overhead_s = fraction_field(j, source, "seq_overhead_s", 0, 1);
  c.moe_token_overhead_s = fraction_field(j, source, "moe_token_overhead_s", 0, 1);
  c.allreduce_latency_s = fraction_field(j, source, "allreduce_latency_s", 0, 1);
  c.fast_factor = fraction_field(j, source, "fast_factor", 1e-3, 1);
  c.slow_factor = fraction_field(j, source, "slow_factor", 1, 1e3);
  c.source = j.contains("source") && j.at("source").is_string() ? j.at("source").get<std::string>() : std::string(source);
  return c;
}

const StepCalibration& default_step_calibration() {
  static const StepCalibration c = step_calibration_from_json(detail::step_time_json(), "data/step_time.json");
  return c;
}

StepCalibration with_compute_fraction(StepCalibration c, double fraction) {
  if (fraction > 0) c.compute_fraction = c.compute_fraction_fp4 = fraction;
  return c;
}

StepDevice step_device(const ModelSpec& m, const Accelerator& gpu, std::uint64_t tp, std::optional<Dtype> weights) {
  StepDevice d;
  d.bandwidth_bytes_per_s = gpu.bandwidth_bytes_per_s;
  d.tp = std::max<std::uint64_t>(1, tp);
  d.layers = m.layers.size();
  d.hidden_size = static_cast<double>(m.dims.hidden_size);
  d.link_bytes_per_s = gpu.interconnect_bytes_per_s / 2;  // the catalog states both directions
  const std::optional<Dtype> q = weights ? weights : m.quantization ? m.quantization->dtype : std::nullopt;
  const bool fp8 = q && (*q == Dtype::fp8_e4m3 || *q == Dtype::fp8_e5m2);
  const bool fp4 = q && (*q == Dtype::nvfp4 || *q == Dtype::mxfp4);
  d.moe = m.dims.num_experts > 0;
  if (fp4 && gpu.fp4_flops > 0) d.peak_flops = gpu.fp4_flops, d.peak_name = "FP4", d.peak_field = "fp4_flops", d.fp4 = true;
  else if (fp8 && gpu.fp8_flops > 0) d.peak_flops = gpu.fp8_flops, d.peak_name = "FP8", d.peak_field = "fp8_flops";
  else d.peak_flops = gpu.bf16_flops, d.peak_name = "BF16", d.peak_field = "bf16_flops";
  return d;
}

void set_batch(StepWork& w, const StepDevice& d, std::uint64_t tokens, std::uint64_t sequences) {
  w.tokens = tokens;
  w.sequences = sequences;
  if (d.tp <= 1 || tokens == 0) return;
  // Megatron-style TP: one all-reduce after attention's output projection and one after the MLP
  // (or MoE) down projection, per layer, of the step's activations in bf16.
  w.allreduces = 2 * d.layers;
  w.allreduce_bytes = static_cast<double>(tokens) * d.hidden_size * 2.0;
}

StepTime step_time(const StepWork& w, const StepDevice& d, const StepCalibration& c) {
  StepTime t;
  const double bw = c.bandwidth_fraction * d.bandwidth_bytes_per_s;
  t.weights_s = w.weight_bytes / bw;
  t.kv_s = w.kv_bytes / bw;
  t.memory_s = (w.weight_bytes + w.kv_bytes) / bw;  // one division: the roofline's bits at fraction 1
  if (w.flops > 0) {
    if (!(d.peak_flops > 0))
      throw InputError::value("GPU peak FLOP/s (" + d.peak_field + ")", "unknown",
                              "a dense " + d.peak_name + " peak for the compute term (give --gpu-flops or a --gpu-file with " +
                                  d.peak_field + ")");
    t.compute_s = w.flops / ((d.fp4 ? c.compute_fraction_fp4 : c.compute_fraction) * d.peak_flops);
  }
  t.overhead_s = c.step_overhead_s + static_cast<double>(d.layers) * c.layer_overhead_s + static_cast<double>(w.tokens) * (c.token_overhead_s + (d.moe ? c.moe_token_overhead_s : 0.0)) +
                 static_cast<double>(w.sequences) * c.seq_overhead_s;
  if (w.allreduces) {
    const double ring = 2.0 * static_cast<double>(d.tp - 1) / static_cast<double>(d.tp);
    const double per = w.allreduce_bytes * ring / (d.link_bytes_per_s > 0 ? d.link_bytes_per_s : INFINITY);
    t.comm_s = static_cast<double>(w.allreduces) * (c.allreduce_latency_s + per);
  }
  t.seconds = t.overhead_s + std::max(t.memory_s, t.compute_s) + t.comm_s;
  return t;
}

std::string describe_step_time(const StepDevice& d, const StepCalibration& c) {
  std::ostringstream os;
  const double per_token = c.token_overhead_s + (d.moe ? c.moe_token_overhead_s : 0.0);
  os << "step = " << (c.step_overhead_s + static_cast<double>(d.layers) * c.layer_overhead_s) * 1e3 << " ms + " << per_token * 1e6 << " us x tokens + " << c.seq_overhead_s * 1e6 << " us x sequences + max((weights + KV bytes read) / ("
     << std::lround(c.bandwidth_fraction * 100) << "% of bandwidth), FLOPs / ("
     << std::lround((d.fp4 ? c.compute_fraction_fp4 : c.compute_fraction) * 100) << "% of the " << d.peak_name << " dense peak))";
  if (d.tp > 1)
    os << " + 2 all-reduces a layer x (" << c.allreduce_latency_s * 1e6 << " us + ring bytes / "
       << d.link_bytes_per_s / 1e9 << " GB/s)";
  os << " per GPU (" << c.source << ")";
  return os.str();
}

}  // namespace kvplan
