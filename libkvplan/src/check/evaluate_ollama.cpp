// The verdict for an Ollama deployment: the scheduler's own estimate (ollama_profile) on the GPUs'
// free memory at both ends of its band. Ollama starts whatever fits (the rest of the layers run on
// the CPU), so the question is whether every layer is offloaded; the context and the parallel
// slots are what Ollama chooses, not what memory allows. Rules: docs/engines.md section "Ollama".
#include "check/evaluate_ollama.h"
#include "check/check_result.h"

#include <algorithm>

#include "deploy/flags.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/text.h"
#include "kvplan/units.h"
#include "kvplan/weights.h"

namespace kvplan::detail {

namespace {

// envconfig.Var: spaces and quotes trimmed.
std::string ollama_var(const ParsedFlags& f, const std::string& k) {
  if (!f.has(k)) return "";
  std::string v = trim_space(f.get(k));
  while (!v.empty() && (v.front() == '"' || v.front() == '\'')) v.erase(v.begin());
  while (!v.empty() && (v.back() == '"' || v.back() == '\'')) v.pop_back();
  return v;
}

// envconfig.Uint / Uint64: strconv.ParseUint base 10; anything else keeps the default.
std::uint64_t ollama_uint(const ParsedFlags& f, const std::string& k, std::uint64_t def, std::vector<std::string>& notes) {
  const std::string v = ollama_var(f, k);
  if (v.empty()) return def;
  if (v.size() > 19 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    notes.push_back(k + "=" + v + " is not an unsigned integer: Ollama uses the default " + std::to_string(def));
    return def;
  }
  return std::stoull(v);
}

// envconfig.Bool: strconv.ParseBool; set but unparsable is true.
bool ollama_bool(const ParsedFlags& f, const std::string& k) {
  const std::string v = ollama_var(f, k);
  if (v.empty()) return false;
  static const char* const kFalse[] = {"0", "f", "F", "false", "FALSE", "False"};
  return std::none_of(std::begin(kFalse), std::end(kFalse), [&](const char* x) { return v == x; });
}

}  // namespace

OllamaLaunch read_ollama_launch(const Deployment& d) {
  const ParsedFlags f = parse_engine_flags(EngineKind::ollama, d.args, d.env, d.base_dir);
  OllamaLaunch l;
  OllamaOptions& x = l.options;
  x.num_ctx = ollama_uint(f, "OLLAMA_CONTEXT_LENGTH", 4096, l.notes);
  x.num_parallel = ollama_uint(f, "OLLAMA_NUM_PARALLEL", 1, l.notes);
  x.kv_cache_type = ollama_var(f, "OLLAMA_KV_CACHE_TYPE");
  x.flash_attention = ollama_bool(f, "OLLAMA_FLASH_ATTENTION");
  x.gpu_overhead_bytes = ollama_uint(f, "OLLAMA_GPU_OVERHEAD", 0, l.notes);
  x.new_engine = ollama_bool(f, "OLLAMA_NEW_ENGINE");
  return l;
}

CheckResult check_ollama(const Deployment& d, const CheckOptions& o) {
  CheckResult r = begin_check_result(d, o);
  r.engine_version = "ollama v0.11.4";
  const ParsedFlags f = parse_engine_flags(EngineKind::ollama, d.args, d.env, d.base_dir);
  r.ignored_flags = f.ignored;
  OllamaLaunch launch = read_ollama_launch(d);
  for (auto& n : launch.notes) r.notes.push_back(n);

  const std::string model = o.model.value_or(d.model);
  if (model.empty())
    throw InputError::value("model", "", "a model: ollama run MODEL, or kvplan check --model (ollama:NAME[:TAG], a GGUF file or a config)");
  const ModelSpec m = load_model(model);
  r.model = m.name;
  r.model_ref = model;
  WeightBytes wb = weight_bytes(m);
  if (o.weight_bytes) wb.total = *o.weight_bytes, wb.unknown.clear();
  if (!wb.unknown.empty()) throw InputError::unknown_weights(m.name, wb.unknown, "--weights");
  OllamaOptions x = launch.options;
  if (!(m.checkpoint_weights && m.checkpoint_weights->layer_bytes.size() >= m.num_layers()) || o.weight_bytes) {
    // No GGUF tensor infos: the total over the blocks and the output layer alike (an assumption:
    // the count of layers offloaded can differ by the output layer's share; a full fit hardly does).
    const std::uint64_t parts = m.num_layers() + 1;
    x.layer_bytes = {ceil_div(wb.total, parts)};
    x.output_bytes = ceil_div(wb.total, parts);
    r.notes.push_back("no GGUF tensor infos: the " + format_gib(wb.total) + " of weights (" + wb.source + ", " + wb.scheme +
                      ") are split evenly over the " + std::to_string(m.num_layers()) +
                      " blocks and the output layer; an Ollama library tag is usually Q4_K_M (give --weights, or the model as ollama:NAME:TAG)");
  }

  const Accelerator acc = o.device ? *o.device : find_accelerator(r.gpu);
  r.gpu = acc.name;
  r.gpu_memory_bytes = acc.memory_bytes;
  const std::uint64_t gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : 1);
  r.gpus = r.gpus_needed = gpus;
  r.pp = gpus;
  // Ollama places layers by the free memory its discovery reports: the runtime's total less what
  // the driver and other processes hold (0.4 GiB on idle RTX 4090s: total="23.6 GiB"
  // available="23.2 GiB", ollama/ollama PR #6279).
  const MemoryBand band = runtime_memory_band(acc);
  const MemoryBand others = others_on_device(acc, o, r);  // --gpu-used, else the card's band
  const std::uint64_t reserve = 512 * MiB;
  const std::uint64_t free_low = band.low > others.high + reserve ? band.low - others.high - reserve : 0;
  const std::uint64_t free_high = band.high > others.low ? band.high - others.low : 0;
  r.device_low_bytes = free_low;
  r.device_high_bytes = free_high;
  r.device_basis = band.basis + "; free memory as Ollama discovers it: less " + format_gib(others.low) + " to " +
                   format_gib(others.high + reserve) + " held by the driver and other processes";

  auto run = [&](std::uint64_t free) {
    OllamaOptions y = x;
    y.gpu_free_bytes.assign(gpus, free);
    return ollama_profile(m, y);
  };
  const OllamaResult worst = run(free_low), best = run(free_high);
  for (const auto& n : worst.notes) r.notes.push_back(n);
  r.log_lines = worst.log_lines;
  r.context = worst.num_ctx;
  r.max_fitting_context = worst.num_ctx;
  r.max_concurrency = r.max_concurrency_favourable = static_cast<double>(worst.num_parallel);
  r.kv_cache_tokens = r.kv_cache_tokens_favourable = r.kv_cache_tokens_estimate = worst.kv_size;
  r.weights_bytes_per_gpu = ceil_div(checked_add(worst.weights_repeating_bytes, worst.weights_nonrepeating_bytes), gpus);
  auto kv_room = [&](std::uint64_t free, const OllamaResult& e) {
    // What the GPUs hold beyond weights, graph and the per-GPU minimum and overhead.
    const std::uint64_t fixed = e.required_full_bytes - std::min(e.kv_bytes, e.required_full_bytes);
    const std::uint64_t have = checked_mul(free, gpus);
    return have >= fixed ? static_cast<std::int64_t>((have - fixed) / gpus) : -static_cast<std::int64_t>((fixed - have) / gpus);
  };
  r.kv_memory_bytes = kv_room(free_low, worst);
  r.kv_memory_favourable_bytes = kv_room(free_high, best);
  r.kv_memory_estimate_bytes = r.kv_memory_bytes;
  r.kv_budget_bytes = r.kv_memory_bytes > 0 ? static_cast<std::uint64_t>(r.kv_memory_bytes) : 0;

  add_check(r, "starts", true, true, "starts", "starts",
            "Ollama starts: layers that do not fit on the GPU run on the CPU (system memory is not checked)");
  const std::string layers = std::to_string(worst.layers_offload) + "/" + std::to_string(worst.layers_model);
  add_check(r, "gpu layers", worst.fully_offloaded, best.fully_offloaded, std::to_string(worst.layers_model) + " layers on the GPU", layers,
            worst.fully_offloaded ? "every layer is offloaded (" + layers + ", " + ollama_format_bytes(worst.required_full_bytes) + " required)"
            : best.fully_offloaded
                ? "Ollama may offload only " + layers + " layers at the unfavourable end of the free memory (all " +
                      std::to_string(best.layers_model) + " at the favourable end)"
                : "Ollama offloads " + layers + " layers to the GPU: memory.required.full " +
                      ollama_format_bytes(worst.required_full_bytes) + " does not fit, the rest runs on the CPU (lower num_ctx / "
                      "OLLAMA_NUM_PARALLEL, OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1, or a smaller quantisation)");
  if (!f.unmodelled.empty()) {
    std::string s;
    for (const auto& u : f.unmodelled) s += (s.empty() ? "" : ", ") + u;
    // Memory kvplan cannot count: never PASS; never FAIL on its account alone.
    add_check(r, "modelled", false, true, "every setting that may change memory modelled", s,
              s + " may change where Ollama places the model in a way kvplan does not model");
  }
  const auto require_context = o.require_context ? o.require_context : d.require_context;
  const auto require_concurrency = o.require_concurrency ? o.require_concurrency : d.require_concurrency;
  if (require_context) {
    const bool ok = worst.num_ctx >= *require_context;
    add_check(r, "context", ok, ok, format_count(*require_context), format_count(worst.num_ctx),
              ok ? "num_ctx " + format_count(worst.num_ctx) + " >= " + format_count(*require_context)
                 : "Ollama gives each request num_ctx " + format_count(worst.num_ctx) + " tokens (OLLAMA_CONTEXT_LENGTH or num_ctx), "
                   "below the required " + format_count(*require_context));
  }
  if (require_concurrency) {
    const bool ok = worst.num_parallel >= *require_concurrency;
    add_check(r, "concurrency", ok, ok, std::to_string(*require_concurrency), std::to_string(worst.num_parallel),
              ok ? "OLLAMA_NUM_PARALLEL " + std::to_string(worst.num_parallel) + " >= " + std::to_string(*require_concurrency)
                 : "Ollama serves " + std::to_string(worst.num_parallel) + " request(s) at once (OLLAMA_NUM_PARALLEL), below the required " +
                       std::to_string(*require_concurrency));
  }
  r.passed = r.verdict == Verdict::pass;
  r.engine_result = worst;
  return r;
}

}  // namespace kvplan::detail
