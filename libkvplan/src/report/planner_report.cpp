// JSON and text for plans, the GPU catalog, compare and sweep. Formatting only: every figure
// printed here was computed by planner.cpp / hardware.cpp.
#include <cstdio>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>

#include "kvplan/checked.h"
#include "kvplan/planner.h"
#include "kvplan/report.h"
#include "kvplan/request.h"
#include "kvplan/units.h"
#include "kvplan/text.h"

namespace kvplan {

namespace {

using nlohmann::json;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Seconds as "12.3 ms" / "1.23 s".
std::string seconds(double s) {
  if (s <= 0) return "-";
  if (s < 1e-3) return fixed(s * 1e6, 1) + " us";
  if (s < 1) return fixed(s * 1e3, 2) + " ms";
  return fixed(s, 2) + " s";
}

std::string rate(double bytes_per_s) { return fixed(bytes_per_s / 1e12, bytes_per_s < 1e12 ? 3 : 2) + " TB/s"; }
std::string tflops(double f) { return f > 0 ? fixed(f / 1e12, 1) : std::string("-"); }

json count_or_null(std::uint64_t v) { return v == 0 ? json(nullptr) : json(v); }

constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();
// "1 sequence", "unbounded sequences".
std::string count_of(std::uint64_t v, std::string_view noun) { return v == kUnbounded ? "unbounded " + std::string(noun) + "s" : format_count(v, noun); }

}  // namespace

json to_json(const Accelerator& a) {
  return json{{"name", a.name},
              {"aliases", a.aliases},
              {"vendor", a.vendor},
              {"memory_bytes", a.memory_bytes},
              {"memory_basis", a.memory_basis},
              {"memory_marketing", a.memory_marketing},
              {"memory_marketing_bytes", a.memory_marketing_bytes},
              {"bandwidth_bytes_per_s", a.bandwidth_bytes_per_s},
              {"bf16_flops", a.bf16_flops},
              {"fp8_flops", a.fp8_flops},
              {"fp4_flops", a.fp4_flops},
              {"interconnect", a.interconnect},
              {"interconnect_bytes_per_s", a.interconnect_bytes_per_s},
              {"source", a.source}};
}

json to_json(const Plan& p) {
  json j;
  j["model"] = p.model;
  j["gpu"] = p.gpu;
  j["fits"] = p.fits;
  j["gpus"] = p.gpus;
  j["tp"] = p.tp;
  j["pp"] = p.pp;
  j["dp"] = p.dp;
  j["pp_layers"] = p.pp_layers;
  j["busiest_stage"] = p.busiest_stage;
  j["context"] = p.context;
  j["context_default"] = p.context_default;
  j["concurrency"] = p.concurrency;
  j["shared_prefix_tokens"] = p.shared_prefix_tokens;
  j["k_dtype"] = std::string(name(p.dtypes.k));
  j["v_dtype"] = std::string(name(p.dtypes.v));
  j["per_gpu"] = json{{"memory_bytes", p.per_gpu.memory_bytes},     {"usable_bytes", p.per_gpu.usable_bytes},
                      {"weights_bytes", p.per_gpu.weights_bytes},   {"kv_bytes", p.per_gpu.kv_bytes},
                      {"state_bytes", p.per_gpu.state_bytes},       {"reserved_bytes", p.per_gpu.reserved_bytes},
                      {"free_bytes", p.per_gpu.free_bytes},         {"shortfall_bytes", p.per_gpu.shortfall_bytes},
                      {"offloaded_bytes", p.per_gpu.offloaded_bytes}};
  j["weights_total_bytes"] = p.weights_total_bytes;
  j["cache_bytes_per_token"] = p.cache_bytes_per_token;
  j["max_concurrency"] = p.max_concurrency;
  j["max_context"] = p.max_context;
  j["max_context_unbounded"] = p.max_context_unbounded;
  j["kv_capacity_tokens"] = p.kv_capacity_tokens;
  j["min_gpus"] = count_or_null(p.min_gpus);
  j["min_gpus_tp"] = count_or_null(p.min_gpus_tp);
  j["min_gpus_pp"] = count_or_null(p.min_gpus_pp);
  j["min_gpus_reason"] = p.min_gpus ? json(p.min_gpus_reason) : json(nullptr);
  j["kv_dtype_to_fit"] = p.kv_dtype_to_fit ? json(std::string(name(*p.kv_dtype_to_fit))) : json(nullptr);
  j["cache_total_bytes"] = p.cache_total_bytes;
  j["cache_only_gpus"] = p.cache_only_gpus_marketing;
  j["cache_only_gpus_device"] = p.cache_only_gpus_device;
  j["weight_bytes_read_per_step"] = p.weight_bytes_read_per_step;
  j["kv_bytes_read_per_step"] = p.kv_bytes_read_per_step;
  j["decode_step_seconds"] = p.decode_step_seconds;
  j["decode_weight_seconds"] = p.decode_weight_seconds;
  j["decode_kv_seconds"] = p.decode_kv_seconds;
  j["decode_offload_seconds"] = p.decode_offload_seconds;
  j["decode_tokens_per_second"] = p.decode_tokens_per_second;
  j["decode_tokens_per_second_aggregate"] = p.decode_tokens_per_second_aggregate;
  j["prefill_flops"] = p.prefill_flops;
  // null when the GPU has no FLOP/s figure (notes name the missing one), never a 0 that reads as instant.
  j["ttft_seconds"] = p.ttft_known ? json(p.ttft_seconds) : json(nullptr);
  j["ttft_seconds_band"] = p.ttft_known ? json{{"fast", p.ttft_seconds_fast}, {"typical", p.ttft_seconds}, {"slow", p.ttft_seconds_slow}}
                                        : json(nullptr);
  j["decode_step_seconds_band"] = {{"fast", p.decode_step_seconds_fast}, {"typical", p.decode_step_seconds}, {"slow", p.decode_step_seconds_slow}};
  j["decode_compute_seconds"] = p.decode_compute_seconds;
  j["decode_overhead_seconds"] = p.decode_overhead_seconds;
  j["step_time_model"] = p.step_time_model;
  j["crossover_tokens"] = p.crossover_tokens;
  j["crossover_concurrency"] = p.crossover_concurrency;
  j["reason"] = p.fits ? json(nullptr) : json(p.reason);
  j["notes"] = p.notes;
  return j;
}

json to_json(const RequestField& f) {
  return json{{"name", f.name},
              {"cli_flag", f.cli_flag},
              {"type", field_type_name(f.type)},
              {"unit", f.unit},
              {"default", f.default_value.empty() ? json(nullptr) : json(f.default_value)},
              {"help", f.help}};
}

json request_json(const PlanInput& in) {
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  auto dtype = [](const std::optional<Dtype>& d) { return d ? json(std::string(name(*d))) : json(nullptr); };
  json j;
  j["gpu"] = in.gpu.name;
  j["gpu_memory"] = in.gpu.memory_bytes;
  j["gpu_bandwidth"] = in.gpu.bandwidth_bytes_per_s;
  j["gpu_flops"] = in.gpu.bf16_flops;
  j["gpus"] = opt(in.gpus);
  j["tp"] = opt(in.tp);
  j["pp"] = in.pp;
  j["pp_layers"] = in.pp_layers;
  j["dp"] = in.dp;
  j["context"] = in.context;
  j["concurrency"] = in.concurrency;
  j["k_dtype"] = dtype(in.k_dtype);
  j["v_dtype"] = dtype(in.v_dtype);
  j["state_dtype"] = dtype(in.state_dtype);
  j["weight_dtype"] = in.weight_dtype ? json(in.weight_dtype->preset.empty() && in.weight_dtype->dtype
                                                 ? std::string(name(*in.weight_dtype->dtype))
                                                 : in.weight_dtype->preset)
                                      : json(nullptr);
  j["weights"] = opt(in.weight_bytes);
  j["utilization"] = in.utilization;
  j["reserved"] = opt(in.reserved.override_bytes);
  j["runtime_overhead"] = in.reserved.runtime_bytes;
  j["prefill_chunk"] = in.reserved.prefill_chunk_tokens;
  j["block_tokens"] = in.block_tokens;
  j["shared_prefix"] = in.shared_prefix_tokens;
  j["offload"] = in.offload_bytes;
  j["offload_bandwidth"] = in.offload_bytes_per_s;
  j["prefill_efficiency"] = in.prefill_efficiency;
  json kv = json::array();
  for (Dtype d : in.kv_dtypes) kv.push_back(std::string(name(d)));
  j["engine_kv_dtypes"] = kv;  // the --engine preset's KV dtypes (empty: any)
  return j;
}

json sweep_request_json(const PlanInput& in) {
  json j = request_json(in);
  j.erase("context");
  j.erase("concurrency");
  return j;
}

std::string format_plan_text(const Plan& p) {
  std::string o;
  auto line = [&](const std::string& k, const std::string& v) { o += pad_to(k, 22) + v + "\n"; };
  line("model", p.model);
  line("deployment", std::to_string(p.gpus) + " x " + p.gpu + " (tp " + std::to_string(p.tp) + ", pp " +
                         std::to_string(p.pp) + ", dp " + std::to_string(p.dp) + ")");
  if (p.pp > 1) {
    std::string split;
    for (auto n : p.pp_layers) {
      if (!split.empty()) split += '/';
      split += std::to_string(n);
    }
    line("pipeline layers", split + " (busiest stage " + std::to_string(p.busiest_stage) + ")");
  }
  line("load", format_count(p.concurrency, "sequence") + " x " + format_count(p.context, "token") +
                   (p.context_default ? " (default)" : "") +
                   (p.shared_prefix_tokens ? " (" + format_count(p.shared_prefix_tokens) + " shared prefix)" : "") +
                   ", KV " + std::string(name(p.dtypes.k)) +
                   (p.dtypes.k == p.dtypes.v ? std::string() : std::string("/").append(name(p.dtypes.v))));
  line("fits", p.fits ? "yes" : "NO");
  if (!p.fits) line("reason", p.reason);
  o += "per GPU\n";
  const auto& g = p.per_gpu;
  line("  memory", format_bytes(g.memory_bytes) + ", usable " + format_bytes(g.usable_bytes));
  line("  weights", format_bytes(g.weights_bytes));
  line("  reserved", format_bytes(g.reserved_bytes));
  line("  kv cache", format_bytes(g.kv_bytes));
  line("  state", format_bytes(g.state_bytes));
  if (g.offloaded_bytes) line("  offloaded to host", format_bytes(g.offloaded_bytes));
  if (g.shortfall_bytes) line("  short by", format_bytes(g.shortfall_bytes));
  else line("  free", format_bytes(g.free_bytes));
  o += "capacity\n";
  line("  max concurrency", count_of(p.max_concurrency, "sequence") + " of " + format_count(p.context, "token"));
  line("  max context", p.max_context_unbounded ? "not memory-bound (model max " + format_count(p.max_context) + ")"
                                                : format_count(p.max_context, "token") + " at " +
                                                      format_count(p.concurrency, "sequence"));
  line("  kv capacity", format_count(p.kv_capacity_tokens, "token") + " (" + format_count(p.cache_bytes_per_token) +
                            " B/token per GPU)");
  line("  min GPUs", p.min_gpus ? std::to_string(p.min_gpus) + " (tp " + std::to_string(p.min_gpus_tp) + ", pp " +
                                      std::to_string(p.min_gpus_pp) + "): " + p.min_gpus_reason
                                : std::string("none found"));
  line("  KV dtype to fit", p.kv_dtype_to_fit ? std::string(name(*p.kv_dtype_to_fit)) : std::string("none"));
  line("  cache alone", format_bytes(p.cache_total_bytes) + " = " + std::to_string(p.cache_only_gpus_marketing) + " x " +
                            p.gpu + " at the datasheet figure, " + std::to_string(p.cache_only_gpus_device) +
                            " at reported capacity");
  o += "speed (calibrated step model; band = held-out error)\n";
  if (p.decode_step_seconds > 0) {  // 0: no bandwidth known (the notes say so)
    line("  decode step", seconds(p.decode_step_seconds) + " [" + seconds(p.decode_step_seconds_fast) + " .. " +
                              seconds(p.decode_step_seconds_slow) + "] (weights " + format_bytes(p.weight_bytes_read_per_step) +
                              " + cache " + format_bytes(p.kv_bytes_read_per_step) + " read per GPU)");
    line("  decode speed", fixed(p.decode_tokens_per_second, 1) + " tok/s per sequence, " +
                               fixed(p.decode_tokens_per_second_aggregate, 1) + " tok/s total");
  } else {
    line("  decode", std::string("not computed: no memory bandwidth (--gpu-bandwidth)"));
  }
  line("  cache > weights at", format_count(p.crossover_tokens, "token") + " in the batch (" +
                                   format_count(p.crossover_concurrency, "sequence") + " of " + format_count(p.context) + ")");
  if (p.ttft_known)
    line("  TTFT", seconds(p.ttft_seconds) + " [" + seconds(p.ttft_seconds_fast) + " .. " + seconds(p.ttft_seconds_slow) +
                       "] (" + fixed(p.prefill_flops / 1e12, 2) + " TFLOP prefill)");
  else
    line("  TTFT", "unknown: no FLOP/s figure for " + p.gpu + " (give --gpu-flops); " + fixed(p.prefill_flops / 1e12, 2) +
                       " TFLOP prefill");
  for (const auto& n : p.notes) o += "note: " + n + "\n";
  return o;
}

std::string format_gpus_text(const std::vector<Accelerator>& gpus) {
  std::string o = pad_to("name", 30) + pad_to("vendor", 8) + pad_to("memory (reported)", 26) + pad_to("marketing", 12) +
                  pad_to("bandwidth", 12) + pad_to("BF16 TF", 9, true) + pad_to("FP8 TF", 9, true) + "  interconnect\n";
  for (const auto& a : gpus) {
    o += pad_to(a.name, 30) + pad_to(a.vendor, 8) + pad_to(format_count(a.memory_bytes) + " B", 26) + pad_to(a.memory_marketing, 12) +
         pad_to(rate(a.bandwidth_bytes_per_s), 12) + pad_to(tflops(a.bf16_flops), 9, true) + pad_to(tflops(a.fp8_flops), 9, true) +
         "  " + a.interconnect + (a.memory_basis.rfind("estimate", 0) == 0 ? "  [memory estimated]" : "") + "\n";
  }
  return o;
}

json to_json(const CompareRow& r) {
  return json{{"model", r.model},
              {"layers", r.layers},
              {"kinds", r.kinds},
              {"bytes_per_token", r.bytes_per_token},
              {"tokens", r.tokens},
              {"cache_bytes", r.cache_bytes},
              {"weights_bytes", r.weights_bytes},
              {"share_of_weights", r.weights_bytes ? json(r.share_of_weights) : json(nullptr)}};
}

std::string format_compare_text(const std::vector<CompareRow>& rows) {
  std::string o = pad_to("model", 44) + pad_to("B/token", 12, true) + pad_to("cache", 24, true) + pad_to("weights", 12, true) +
                  pad_to("cache/weights", 15, true) + "  layers\n";
  for (const auto& r : rows) {
    o += pad_to(r.model, 44) + pad_to(format_count(r.bytes_per_token), 12, true) + pad_to(format_bytes(r.cache_bytes), 24, true) +
         pad_to(r.weights_bytes ? format_gb(r.weights_bytes) : std::string("-"), 12, true) +
         pad_to(r.weights_bytes ? fixed(100.0 * r.share_of_weights, 1) + "%" : std::string("-"), 15, true) + "  " + r.kinds +
         "\n";
  }
  if (!rows.empty()) o += "cache = one sequence of " + format_count(rows.front().tokens, "token") + "\n";
  return o;
}

std::string format_compare_csv(const std::vector<CompareRow>& rows) {
  std::string o = "model,layers,kinds,bytes_per_token,tokens,cache_bytes,weights_bytes,cache_share_of_weights\n";
  for (const auto& r : rows) {
    char share[32] = "";
    if (r.weights_bytes) std::snprintf(share, sizeof share, "%.6g", r.share_of_weights);
    o += csv_field(r.model) + "," + std::to_string(r.layers) + "," + csv_field(r.kinds) + "," + std::to_string(r.bytes_per_token) +
         "," + std::to_string(r.tokens) + "," + std::to_string(r.cache_bytes) + "," +
         (r.weights_bytes ? std::to_string(r.weights_bytes) : std::string()) + "," + share + "\n";
  }
  return o;
}

json to_json(const SweepResult& s) {
  json cells = json::array();
  for (std::size_t i = 0; i < s.contexts.size(); ++i)
    for (std::size_t j = 0; j < s.concurrency.size(); ++j) {
      const std::size_t k = i * s.concurrency.size() + j;
      cells.push_back(json{{"context", s.contexts[i]},
                           {"concurrency", s.concurrency[j]},
                           {"cache_bytes", s.cache_bytes[k]},
                           {"memory_bytes", s.memory_bytes(k)},
                           {"fits", s.fits[k] != 0},
                           {"decode_step_seconds", s.decode_step_seconds[k]}});
    }
  return json{{"contexts", s.contexts},         {"concurrency", s.concurrency},       {"weights_bytes", s.weights_bytes},
              {"reserved_bytes", s.reserved_bytes}, {"usable_bytes", s.usable_bytes}, {"cells", cells}};
}

void write_sweep_csv(std::ostream& out, const SweepResult& s) {
  out << "context,concurrency,cache_bytes,memory_bytes,fits,decode_step_seconds\n";
  std::string o;
  for (std::size_t i = 0; i < s.contexts.size(); ++i) {
    o.clear();
    for (std::size_t j = 0; j < s.concurrency.size(); ++j) {
      const std::size_t k = i * s.concurrency.size() + j;
      char step[32];
      std::snprintf(step, sizeof step, "%.6g", s.decode_step_seconds[k]);
      o += std::to_string(s.contexts[i]) + "," + std::to_string(s.concurrency[j]) + "," + std::to_string(s.cache_bytes[k]) +
           "," + std::to_string(s.memory_bytes(k)) + "," + (s.fits[k] ? "1" : "0") +
           "," + step + "\n";
    }
    out << o;  // one row of the grid at a time
  }
}

std::string format_sweep_csv(const SweepResult& s) {
  std::ostringstream o;
  write_sweep_csv(o, s);
  return o.str();
}

void write_sweep_json(std::ostream& out, const SweepResult& s, const nlohmann::json& extra) {
  // Byte for byte what to_json(s) (plus `extra`) dumps with indent 2, but the cells are dumped
  // one at a time into their place: "cells" sorts first among the keys.
  constexpr auto replace = json::error_handler_t::replace;
  json head{{"contexts", s.contexts},         {"concurrency", s.concurrency},       {"weights_bytes", s.weights_bytes},
            {"reserved_bytes", s.reserved_bytes}, {"usable_bytes", s.usable_bytes}, {"cells", json::array()}};
  for (const auto& [k, v] : extra.items()) head[k] = v;
  const std::string text = head.dump(2, ' ', false, replace);
  const std::string marker = "\"cells\": []";
  const auto at = text.find(marker);
  out << text.substr(0, at) << "\"cells\": [";
  const std::size_t n = s.contexts.size() * s.concurrency.size();
  for (std::size_t i = 0; i < s.contexts.size(); ++i)
    for (std::size_t j = 0; j < s.concurrency.size(); ++j) {
      const std::size_t k = i * s.concurrency.size() + j;
      const json cell{{"context", s.contexts[i]},
                      {"concurrency", s.concurrency[j]},
                      {"cache_bytes", s.cache_bytes[k]},
                      {"memory_bytes", s.memory_bytes(k)},
                      {"fits", s.fits[k] != 0},
                      {"decode_step_seconds", s.decode_step_seconds[k]}};
      std::string c = cell.dump(2, ' ', false, replace);
      std::string indented = "\n    ";
      for (const char ch : c) {
        indented += ch;
        if (ch == '\n') indented += "    ";
      }
      out << (k ? "," : "") << indented;
    }
  out << (n ? "\n  ]" : "]") << text.substr(at + marker.size()) << "\n";
}

}  // namespace kvplan
