// kvplan check: the verdict. The memory each engine budgets on the named GPU (the engine math
// lives in engines/), mapped from the engine flags read by deploy/flags*.cpp, and compared with
// the requirements. check_deployment is a sequence of named steps over a CheckContext
// (check/check_context.h); each engine's evaluation is its own file (check/evaluate_<engine>.cpp).
// Reading deployments: deploy/; formatting: report/check_report.cpp.
#include "kvplan/check.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <variant>

#include "check/check_context.h"
#include "check/check_result.h"
#include "check/evaluate_ollama.h"
#include "deploy/flags.h"
#include "kvplan/budget.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/text.h"
#include "kvplan/units.h"
#include "kvplan/weights.h"

namespace kvplan {

namespace detail {

std::uint64_t int_flag(const ParsedFlags& f, const std::string& k, std::uint64_t def) {
  return f.has(k) ? plain_uint(f.get(k), k) : def;
}
std::uint64_t vllm_int_flag(const ParsedFlags& f, const std::string& k, std::uint64_t def) {
  return f.has(k) ? vllm_int(f.get(k), k) : def;
}
std::uint64_t positive(std::uint64_t v, const std::string& k) {
  if (v == 0) throw InputError::value(k, "0", "a positive integer");
  return v;
}
double fraction_flag(const ParsedFlags& f, const std::string& k, double def) {
  if (!f.has(k)) return def;
  const double v = plain_float(f.get(k), k);
  if (!(v > 0) || v > 1) throw InputError::value(k, f.get(k), "a fraction in (0, 1]");
  return v;
}
bool bool_flag(const ParsedFlags& f, const std::string& k) { return f.has(k) && flag_truthy(f.get(k), k); }
bool env_set(const Deployment& d, const std::string& name) {
  for (const auto& [k, v] : d.env)
    if (k == name) return v == "1" || v == "true" || v == "True";
  return false;
}

std::string command_model(std::string model, const Deployment& d, const ParsedFlags& f) {
  if (model.empty() && !f.positional.empty()) model = f.positional;
  if (model.empty() && d.engine != EngineKind::llamacpp && f.has("--model")) model = f.get("--model");
  if (model.empty() && f.has("--model-path")) model = f.get("--model-path");
  return model;
}

void apply_dtype_flag(ModelSpec& m, const ParsedFlags& f, EngineKind e) {
  if ((e == EngineKind::vllm || e == EngineKind::sglang) && f.has("--dtype") && f.get("--dtype") != "auto")
    m.dtype = parse_dtype(f.get("--dtype"), "--dtype");
}

std::uint64_t gpu_count(std::uint64_t tp, std::uint64_t pp, std::uint64_t dp) {
  return checked_mul(checked_mul(tp, pp, kTpPp), dp, "GPU count (tensor x pipeline x data parallel size)");
}

std::int64_t signed_of(std::uint64_t a, std::uint64_t b) {
  return a >= b ? static_cast<std::int64_t>(a - b) : -static_cast<std::int64_t>(b - a);
}

void cap_concurrency(BandOutcome& out, std::uint64_t cap, const char* flag) {
  if (static_cast<double>(cap) < out.max_concurrency) {
    out.notes.push_back(std::string(flag) + " " + std::to_string(cap) + " caps concurrency at " + std::to_string(cap) +
                        " (the KV cache holds " + format_fixed(out.max_concurrency, 2) + "x)");
    out.max_concurrency = static_cast<double>(cap);
  }
}

}  // namespace detail

namespace {

using detail::BandOutcome;
using detail::ParsedFlags;
using detail::CheckContext;
using detail::env_set;
using detail::gpu_count;

std::string fmt_ctx(std::uint64_t n) { return format_count(n); }

// Bytes per element of the model dtype above fp8's one (bf16/fp16: 1, fp32: 3).
std::uint64_t dtype_bytes_minus_fp8(Dtype d) {
  const std::uint64_t b = row_bytes(d, 1024) / 1024;
  return b > 1 ? b - 1 : 0;
}

// The engines' start-up validation that kvplan's profiles do not repeat.
std::string engine_refusal(const Deployment& d, const ModelSpec& m, std::uint64_t tp, std::uint64_t context,
                           const Accelerator& acc, std::string_view dtype_flag) {
  const std::string e = d.engine == EngineKind::vllm ? "vLLM" : d.engine == EngineKind::sglang ? "SGLang" : "TensorRT-LLM";
  // vLLM's CUDA platform (check_if_supports_dtype) refuses an explicit bfloat16 below compute
  // capability 8.0; with "auto" it falls back to float16 (same size), so only the flag is refused.
  if (d.engine == EngineKind::vllm && !acc.bf16 && (dtype_flag == "bfloat16" || dtype_flag == "bf16"))
    return "vLLM refuses to start: --dtype " + std::string(dtype_flag) + " needs bfloat16 support (compute capability 8.0), which " +
           acc.name + " lacks; use --dtype float16";
  if (d.engine != EngineKind::llamacpp && m.dims.num_attention_heads && m.dims.num_attention_heads % tp != 0)
    return e + " refuses to start: the tensor-parallel size " + std::to_string(tp) + " does not divide the model's " +
           std::to_string(m.dims.num_attention_heads) + " attention heads";
  // vLLM's QKVParallelLinear (vllm/model_executor/layers/linear.py, copied by SGLang's
  // python/sglang/srt/layers/linear.py) splits the KV heads over tp with divide(): kv heads
  // divisible by tp, or tp divisible by kv heads when each head is replicated (tp > kv heads).
  // TensorRT-LLM's PyTorch backend asserts the same when it loads the K/V weights
  // (duplicate_kv_weight in tensorrt_llm/_torch/models/modeling_utils.py).
  if (d.engine == EngineKind::vllm || d.engine == EngineKind::sglang || d.engine == EngineKind::trtllm) {
    for (const auto& l : m.layers) {
      for (const auto& mixer : l.mixers) {
      std::uint64_t kv = 0;
      if (const auto* a = std::get_if<Attention>(&mixer)) kv = a->kv_heads;
      if (kv && (tp >= kv ? tp % kv : kv % tp) != 0)
        return e + " refuses to start: the tensor-parallel size " + std::to_string(tp) + " and the model's " +
               std::to_string(kv) + " KV heads (layer " + std::to_string(l.index) +
               ") do not divide one another";
      }
    }
  }
  const std::uint64_t mpe = m.dims.max_position_embeddings;
  if (mpe && context > mpe) {
    if (d.engine == EngineKind::vllm && !env_set(d, "VLLM_ALLOW_LONG_MAX_MODEL_LEN"))
      return "vLLM refuses to start: --max-model-len " + std::to_string(context) + " is above the model's max_position_embeddings " +
             std::to_string(mpe) + " (vLLM allows it only with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)";
    if (d.engine == EngineKind::sglang && !env_set(d, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"))
      return "SGLang refuses to start: --context-length " + std::to_string(context) + " is above the model's max_position_embeddings " +
             std::to_string(mpe) + " (SGLang allows it only with SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1)";
  }
  return "";
}

}  // namespace

namespace detail {
CheckResult begin_check_result(const Deployment& d, const CheckOptions& o) {
  CheckResult r;
  r.source = d.source;
  r.name = d.name;
  r.where = d.where();
  r.line = d.line;
  r.strict = o.strict;
  r.engine = std::string(engine_name(d.engine));
  r.gpu = o.gpu.empty() ? d.gpu : o.gpu;
  if (r.gpu.empty() && !o.device)
    throw InputError::value("--gpu", "", "a GPU name (e.g. H100, A100-80GB; see kvplan gpus), --gpu-memory, --gpu-file, or a "
                                         "nvidia.com/gpu.product node selector");
  return r;
}

void add_check(CheckResult& r, std::string name, bool ok_worst, bool ok_best, std::string required, std::string actual,
               std::string message) {
  const Verdict v = ok_worst ? Verdict::pass : (ok_best ? Verdict::uncertain : Verdict::fail);
  r.checks.push_back({std::move(name), ok_worst, std::move(required), std::move(actual), message, v});
  if (v == Verdict::fail) r.verdict = Verdict::fail;
  else if (v == Verdict::uncertain && r.verdict == Verdict::pass) r.verdict = Verdict::uncertain;
  if (v != Verdict::pass) r.reasons.push_back(std::move(message));
  r.passed = r.verdict == Verdict::pass;
}

MemoryBand others_on_device(const Accelerator& acc, const CheckOptions& o, CheckResult& r) {
  if (!o.gpu_used) return other_processes_band(acc);
  const GpuUsed& g = *o.gpu_used;
  if (g.total_bytes && acc.memory_bytes) {
    // nvidia-smi's memory.total is the runtime's total in MiB (81,559 MiB on an H100-SXM-80GB):
    // a file from another kind of GPU would judge this one with the wrong neighbours.
    const double ratio = static_cast<double>(*g.total_bytes) / static_cast<double>(acc.memory_bytes);
    if (ratio < 0.97 || ratio > 1.03)
      throw InputError::value("--gpu-used", g.basis,
                              "an nvidia-smi file from the GPU checked: its memory.total is " + format_gib(*g.total_bytes) + " but " +
                                  acc.name + " has " + format_gib(acc.memory_bytes) + " (give --gpu, or --gpu-used SIZE)");
  }
  if (g.used_bytes >= acc.memory_bytes && acc.memory_bytes)
    throw InputError::value("--gpu-used", format_gib(g.used_bytes), "less than the GPU's " + format_gib(acc.memory_bytes));
  r.notes.push_back("other processes hold " + format_gib(g.used_bytes) + " on each GPU (" + g.basis + ")");
  return {g.used_bytes, g.used_bytes, "other processes: " + format_gib(g.used_bytes) + " (" + g.basis + ")", g.used_bytes};
}

CheckContext::CheckContext(const Deployment& d_, const CheckOptions& o_, CheckResult& r_)
    : d(d_), o(o_), r(r_), f(parse_engine_flags(d_.engine, d_.args, d_.env, d_.base_dir)) {
  r.ignored_flags = f.ignored;
  if (!f.ignored.empty()) {
    std::string s;
    for (const auto& x : f.ignored) s += (s.empty() ? "" : ", ") + x;
    r.notes.push_back("flags that do not change GPU memory were ignored: " + s);
  }
  if (!f.abbreviations.empty()) {
    std::string s;
    for (const auto& x : f.abbreviations) s += (s.empty() ? "" : ", ") + x;
    r.notes.push_back("abbreviated flags read as the engine's parser reads them (a unique prefix, argparse): " + s);
  }
  unmodelled = f.unmodelled;
  unmodelled_why = f.unmodelled_why;
}

void CheckContext::add_check(std::string name, bool ok_worst, bool ok_best, std::string required, std::string actual,
                             std::string message) {
  detail::add_check(r, std::move(name), ok_worst, ok_best, std::move(required), std::move(actual), std::move(message));
}

bool CheckContext::refused(std::uint64_t context) {
  const std::string why = engine_refusal(d, m, tp, context, acc, f.has("--dtype") ? std::string_view(f.get("--dtype")) : std::string_view());
  if (why.empty()) return false;
  r.starts = false;
  r.tp = tp;
  r.pp = pp;
  r.gpus_needed = gpu_count(tp, pp, dp);
  r.gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : r.gpus_needed);
  add_check("starts", false, false, "the engine's start-up validation", "refused", why);
  return true;
}

void CheckContext::push_others(const std::string& source) {
  if (o.gpu_used) budget.terms.push_back({"other processes", others.low, others.high, "given (--gpu-used)", source});
}

std::uint64_t CheckContext::device_at(bool fav) const {
  return typical_point ? typical_of(budget.device) : fav ? budget.device.high : budget.device.low;
}

std::uint64_t CheckContext::term_at(std::string_view name, bool fav) {
  if (BudgetTerm* t = budget.find(name)) return typical_point ? typical_of(*t) : fav ? t->low : t->high;
  return 0;
}

void CheckContext::measured(std::string_view name, const std::optional<ByteBand>& b) {
  if (!b) return;
  if (BudgetTerm* t = budget.find(name)) *t = {t->name, b->low, b->high, "measured (engine log)", t->source};
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The verdict: check_deployment's steps
// ---------------------------------------------------------------------------------------------
namespace {

// The model kvplan reads (the command's, --model, or llama-server's GGUF file) with --dtype
// applied, and the GPU it is judged on.
void read_model(CheckContext& c) {
  const Deployment& d = c.d;
  const ParsedFlags& f = c.f;
  std::string model = detail::command_model(c.o.model.value_or(d.model), d, f);
  std::error_code gguf_ec;  // llama-server -m FILE.gguf: the file's header gives the config
  if (model.empty() && d.engine == EngineKind::llamacpp && f.has("--model") &&
      std::filesystem::is_regular_file(f.get("--model"), gguf_ec))
    model = f.get("--model");
  if (model.empty())
    throw InputError::value("model", "", d.engine == EngineKind::llamacpp
                                             ? "a Hugging Face config for the GGUF (kvplan check --model ID, or `model:` in the deployment file)"
                                             : "a model in the command (or --model)");
  c.m = load_model(model);
  c.r.model = c.m.name;
  c.r.model_ref = model;
  detail::apply_dtype_flag(c.m, f, d.engine);

  c.acc = c.o.device ? *c.o.device : find_accelerator(c.r.gpu);
  c.r.gpu = c.acc.name;
  c.r.gpu_memory_bytes = c.acc.memory_bytes;
}

// The checkpoint's weights. --quantization: fp8 quantizes a 16-bit checkpoint's weights when it
// loads (vLLM Fp8LinearMethod, SGLang the same); other methods name the checkpoint's own format,
// which weight_bytes reads from its quantization_config. --weights replaces the count.
void count_weights(CheckContext& c) {
  const ModelSpec& m = c.m;
  if ((c.d.engine == EngineKind::vllm || c.d.engine == EngineKind::sglang) && c.f.has("--quantization")) {
    const std::string q = c.f.get("--quantization");
    if (q == "fp8") {
      c.weight_override = Dtype::fp8_e4m3;
      c.r.notes.push_back("--quantization fp8: weights stored in fp8 when loaded");
    } else if (!m.quantization) {
      throw InputError::value("--quantization", q, "fp8, or a method the checkpoint's quantization_config names (" + m.name +
                                                       " has none, so its weights are not " + q + ")");
    }
  }
  WeightBytes& wb = c.wb;
  wb = weight_bytes(m, c.weight_override);
  if (c.weight_override) {
    // The embedding and the LM head stay in the model dtype (vLLM's Fp8LinearMethod quantizes
    // linear layers only): add back what the fp8 count took off them.
    const std::uint64_t tables = m.dims.tie_word_embeddings ? 1 : 2;
    const std::uint64_t extra = checked_product({tables, m.dims.vocab_size, m.dims.hidden_size, dtype_bytes_minus_fp8(m.dtype)});
    wb.total = checked_add(wb.total, extra);
    wb.non_experts = checked_add(wb.non_experts, extra);
  }
  if (c.o.weight_bytes) {  // --weights: the user's figure for the whole checkpoint
    wb.total = wb.non_experts = wb.active = *c.o.weight_bytes;
    wb.experts = 0;
    wb.scheme = wb.source = "given (--weights)";
    wb.unknown.clear();
  }
  if (!wb.unknown.empty()) throw InputError::unknown_weights(m.name, wb.unknown, "--weights");
}

// Other processes on the device, the engine's own measurements when a start-up log is given,
// and the budget's device total as the runtime sees it (kvplan/budget.h).
void read_budget_inputs(CheckContext& c) {
  c.others = detail::others_on_device(c.acc, c.o, c.r);
  if (c.o.engine_log) {
    c.logf = read_engine_log(*c.o.engine_log, c.d.engine, c.o.engine_log_source);
    c.r.calibrated = true;
    for (const auto& l : c.logf->lines_used) c.r.notes.push_back("engine log: " + l);
  }
  c.band = runtime_memory_band(c.acc);
  c.bin.engine = c.d.engine;
  c.bin.device = {c.band.low, c.band.high, c.band.typical};
  c.bin.vllm_version = c.d.engine == EngineKind::vllm ? parse_vllm_version(c.o.engine_version) : VllmBudgetVersion::v1_graphs;
}

// The engine's evaluation (check/evaluate_<engine>.cpp); false when the engine refuses to start.
bool evaluate_engine(CheckContext& c) {
  switch (c.d.engine) {
    case EngineKind::vllm: return detail::evaluate_vllm(c);
    case EngineKind::sglang: return detail::evaluate_sglang(c);
    case EngineKind::llamacpp: return detail::evaluate_llamacpp(c);
    case EngineKind::trtllm: return detail::evaluate_trtllm(c);
    case EngineKind::ollama: break;  // check_ollama, before any step
  }
  throw Error("kvplan check: internal error: no evaluation for " + std::string(engine_name(c.d.engine)));
}

// The engine at both ends of the band and at kvplan's point estimate.
struct BandEnds {
  BandOutcome worst, best, typical;
};

BandEnds evaluate_band(CheckContext& c) {
  if (c.budget.device_basis.empty()) c.budget.device_basis = c.band.basis;
  if (BudgetTerm* t = c.budget.find("weights"); t && c.o.weight_bytes && t->basis == "counted") t->basis = "given (--weights)";
  BandEnds x;
  x.worst = c.evaluate(false);
  x.best = c.evaluate(true);
  c.typical_point = true;
  x.typical = c.evaluate(true);
  c.typical_point = false;
  if (c.logf && c.logf->failure) {
    // The engine said it did not start: no end of any band makes it start.
    for (BandOutcome* o : {&x.worst, &x.best}) {
      o->starts = false;
      o->error = "the engine log says it did not start: " + *c.logf->failure;
    }
  }
  return x;
}

// The result's figures: the unfavourable end, with the favourable end and the estimate beside it.
void fill_result(CheckContext& c, BandEnds& x) {
  CheckResult& r = c.r;
  const BandOutcome &worst = x.worst, &best = x.best, &typical = x.typical;
  r.tp = c.tp;
  r.pp = c.pp;
  r.gpus_needed = gpu_count(c.tp, c.pp, c.dp);
  r.gpus = c.o.gpus ? c.o.gpus : (c.d.gpus ? c.d.gpus : r.gpus_needed);
  r.weights_bytes_per_gpu = c.weights_per_gpu;
  r.starts = worst.starts;
  r.kv_memory_bytes = worst.kv_memory;
  r.kv_memory_favourable_bytes = best.kv_memory;
  r.kv_memory_estimate_bytes = std::clamp(typical.kv_memory, std::min(worst.kv_memory, best.kv_memory), std::max(worst.kv_memory, best.kv_memory));
  r.kv_cache_tokens_estimate = std::clamp(typical.kv_tokens, std::min(worst.kv_tokens, best.kv_tokens), std::max(worst.kv_tokens, best.kv_tokens));
  r.kv_budget_bytes = worst.kv_memory > 0 ? static_cast<std::uint64_t>(worst.kv_memory) : 0;
  r.kv_cache_tokens = worst.kv_tokens;
  r.kv_cache_tokens_favourable = best.kv_tokens;
  r.context = worst.context;
  r.max_concurrency = worst.max_concurrency;
  r.max_concurrency_favourable = best.max_concurrency;
  r.max_fitting_context = worst.max_fitting_context;
  r.log_lines = worst.log_lines;
  for (const auto& n : worst.notes) r.notes.push_back(n);
  for (const auto& n : c.budget.notes) r.notes.push_back(n);
  r.engine_result = std::move(x.worst.engine_result);
  r.device_low_bytes = c.budget.device.low;
  r.device_high_bytes = c.budget.device.high;
  r.device_basis = c.budget.device_basis;
  r.budget = c.budget.terms;
  r.engine_version = c.d.engine == EngineKind::vllm ? std::string(vllm_version_name(c.bin.vllm_version)) : r.engine;
}

// Whether the engine starts, and if not, why (the weights alone, the engine's own error, or the
// widest terms of the band where it starts only at the favourable end).
void check_starts(CheckContext& c, const BandOutcome& worst, const BandOutcome& best) {
  const EngineKind e = c.d.engine;
  const std::string eng = e == EngineKind::vllm ? "vLLM" : e == EngineKind::sglang ? "SGLang"
                          : e == EngineKind::trtllm ? "TensorRT-LLM" : "llama-server";
  std::string msg;
  if (worst.starts) {
    msg = eng + " starts";
  } else if (best.weights_exceed) {
    // Weights alone exceed what the engine may use: more memory fraction cannot help.
    // Room for weights per GPU at the favourable end: what the KV cache got plus the weights.
    const std::int64_t room = best.kv_memory + static_cast<std::int64_t>(c.weights_per_gpu);
    const std::uint64_t per_gpu_room = room > 0 ? static_cast<std::uint64_t>(room) : 0;
    const std::uint64_t need_shards = per_gpu_room ? ceil_div(c.wb.total, per_gpu_room) : 0;
    std::uint64_t shards = 1;
    while (shards < need_shards) shards *= 2;
    msg = eng + " cannot start: the weights alone (" + format_gib(c.weights_per_gpu) + " per GPU) exceed the memory it may use on " +
          c.acc.name + " (KV memory " + format_signed_gib(best.kv_memory) + " per GPU); use more GPUs (about " +
          std::to_string(shards) + "-way tensor/pipeline parallel) or quantized weights (fp8, int4)";
  } else if (!best.starts) {
    msg = eng + " fails at start-up: " + best.error;
  } else {
    msg = eng + " may fail at start-up (it starts at the favourable end of the memory band only): " + worst.error;
    // Name the terms whose bands decide it (the widest first), so the user knows what to pin
    // (--weights, --engine-log).
    std::vector<const BudgetTerm*> wide;
    for (const auto& t : c.budget.terms)
      if (t.high > t.low) wide.push_back(&t);
    std::stable_sort(wide.begin(), wide.end(), [](const BudgetTerm* a, const BudgetTerm* b) { return a->high - a->low > b->high - b->low; });
    std::string terms;
    for (std::size_t i = 0; i < wide.size() && i < 2; ++i)
      terms += (i ? ", " : "") + wide[i]->name + " " + format_gib(wide[i]->low) + " to " + format_gib(wide[i]->high) + " (" + wide[i]->source + ")";
    if (!terms.empty()) msg += " [widest terms of the band: " + terms + "]";
  }
  c.add_check("starts", worst.starts, best.starts, "starts",
              worst.starts ? "starts" : best.starts ? "uncertain" : "does not start", msg);
}

// The GPU count the command needs (tp x pp x dp) against the deployment's (llama.cpp splits its
// layers over whatever it is given).
void check_gpus(CheckContext& c) {
  if (c.d.engine == EngineKind::llamacpp) return;
  const CheckResult& r = c.r;
  const bool ok = r.gpus >= r.gpus_needed;
  c.add_check("gpus", ok, ok, std::to_string(r.gpus_needed), std::to_string(r.gpus),
              ok ? "GPU count suffices"
                 : "the command needs " + std::to_string(r.gpus_needed) + " GPUs (tp x pp" + std::string(c.dp > 1 ? " x dp" : "") + ") but " +
                       (c.o.gpus ? "--gpus is " : c.d.gpus ? "the deployment gives " : "--gpus is ") + std::to_string(r.gpus));
}

// Memory kvplan cannot count: the verdict cannot pass, nor can it fail on that alone (the other
// checks still fail it where the memory kvplan counts does not hold) -- UNCERTAIN, naming each
// flag and what it changes.
void check_modelled(CheckContext& c) {
  if (c.unmodelled.empty()) return;
  std::string names, why;
  for (const auto& x : c.unmodelled) {
    names += (names.empty() ? "" : ", ") + x;
    const auto it = c.unmodelled_why.find(x);
    why += (why.empty() ? "" : "; ") + x + ": " + (it != c.unmodelled_why.end() ? it->second : std::string("not modelled"));
  }
  c.add_check("modelled", false, true, "every flag that may change GPU memory modelled", names,
              "UNCERTAIN because kvplan does not model what " + names + " may change in GPU memory (" + why +
                  "); the memory kvplan counts holds, so check without it, or measure on the GPU");
}

// The required context (--require-context, or the deployment's).
void check_context(CheckContext& c, const BandOutcome& worst, const BandOutcome& best) {
  const auto require_context = c.o.require_context ? c.o.require_context : c.d.require_context;
  if (!require_context) return;
  auto holds = [&](const BandOutcome& x) {
    return x.starts && x.context >= *require_context && x.max_fitting_context >= *require_context;
  };
  const bool ok = holds(worst);
  c.add_check("context", ok, holds(best), fmt_ctx(*require_context), fmt_ctx(std::min(worst.context, worst.max_fitting_context)),
              ok ? "context " + fmt_ctx(worst.context) + " >= " + fmt_ctx(*require_context)
                 : "required context " + fmt_ctx(*require_context) + " tokens, but the deployment serves at most " +
                       fmt_ctx(worst.starts ? std::min(worst.context, worst.max_fitting_context) : worst.max_fitting_context) +
                       " tokens per request" + (holds(best) ? " at the unfavourable end of the memory band" : ""));
}

// The required concurrency (--require-concurrency, or the deployment's), and the KV memory per
// GPU that would make it hold.
void check_concurrency(CheckContext& c, const BandOutcome& worst, const BandOutcome& best) {
  const auto require_concurrency = c.o.require_concurrency ? c.o.require_concurrency : c.d.require_concurrency;
  if (!require_concurrency) return;
  auto holds = [&](const BandOutcome& x) { return x.starts && x.max_concurrency + 1e-9 >= static_cast<double>(*require_concurrency); };
  const bool ok = holds(worst);
  c.add_check("concurrency", ok, holds(best), std::to_string(*require_concurrency), format_fixed(worst.max_concurrency, 2),
              ok ? "concurrency " + format_fixed(worst.max_concurrency, 2) + "x >= " + std::to_string(*require_concurrency)
                 : "required concurrency " + std::to_string(*require_concurrency) + " at " + fmt_ctx(worst.context) +
                       " tokens, but the deployment holds " + format_fixed(worst.max_concurrency, 2) + "x" +
                       (holds(best) ? " at the unfavourable end (" + format_fixed(best.max_concurrency, 2) + "x at the favourable end)" : ""));
  if (!ok && worst.starts && worst.max_concurrency > 0 && worst.kv_memory > 0) {
    const double need = static_cast<double>(worst.kv_memory) * (static_cast<double>(*require_concurrency) / worst.max_concurrency);
    c.r.margin_bytes = std::max(c.r.margin_bytes, static_cast<std::uint64_t>(std::ceil(need)) - static_cast<std::uint64_t>(worst.kv_memory));
  }
}

// What would make an UNCERTAIN verdict certain: measuring (or dropping) the unmodelled flags, the
// utilization that leaves the headroom, or more KV memory at the unfavourable end.
void state_margin(CheckContext& c, const BandOutcome& worst, const BandOutcome& best) {
  CheckResult& r = c.r;
  if (!worst.starts && best.starts && worst.request_bytes && c.d.engine == EngineKind::vllm)
    r.margin_bytes = std::max(r.margin_bytes, worst.kv_memory < 0 ? worst.request_bytes + static_cast<std::uint64_t>(-worst.kv_memory)
                                                                   : worst.request_bytes - std::min<std::uint64_t>(worst.request_bytes, static_cast<std::uint64_t>(worst.kv_memory)));
  const bool only_unmodelled = std::all_of(r.checks.begin(), r.checks.end(), [](const CheckRequirement& x) {
    return x.status == Verdict::pass || x.name == "modelled";
  });
  if (r.verdict == Verdict::uncertain && only_unmodelled) {
    r.margin = "certain only without the flags kvplan does not model (or measured on the GPU): every check of the memory it counts passes";
    r.notes.push_back(r.margin);
  } else if (r.verdict == Verdict::uncertain && r.margin_bytes == 0 && !c.headroom_fix.empty()) {
    r.margin = "certain to pass when " + c.headroom_fix + " (if the KV cache still holds what is required)";
    r.notes.push_back(r.margin);
  } else if (r.verdict == Verdict::uncertain) {
    const EngineBudget& b = c.budget;
    r.margin = "certain to pass with " + (r.margin_bytes ? format_gib(r.margin_bytes) + " more" : std::string("more")) +
               " KV memory per GPU at the unfavourable end of the band (the band spans " +
               format_gib(b.high() - b.low() + (b.device.high - b.device.low)) +
               " per GPU); give --engine-log with the engine's start-up log to measure it, or fix the KV memory in the command";
    r.notes.push_back(r.margin);
  }
  r.passed = r.verdict == Verdict::pass;
}

}  // namespace

CheckResult check_deployment(const Deployment& d, const CheckOptions& o) {
  if (d.engine == EngineKind::ollama) return detail::check_ollama(d, o);  // check/evaluate_ollama.cpp
  CheckResult r = detail::begin_check_result(d, o);
  CheckContext c(d, o, r);  // the engine flags, read as the engine reads them (deploy/flags*.cpp)
  read_model(c);
  count_weights(c);
  read_budget_inputs(c);
  if (!evaluate_engine(c)) return r;  // the engine refuses to start
  BandEnds x = evaluate_band(c);
  fill_result(c, x);
  check_starts(c, x.worst, x.best);
  if (d.engine == EngineKind::vllm) detail::check_vllm_headroom(c, x.best);
  check_gpus(c);
  check_modelled(c);
  check_context(c, x.worst, x.best);
  check_concurrency(c, x.worst, x.best);
  state_margin(c, x.worst, x.best);
  return r;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::uncertain: return "UNCERTAIN";
    case Verdict::fail: return "FAIL";
  }
  return "FAIL";
}

// ---------------------------------------------------------------------------------------------
// Outcomes: every deployment of an input checked, errors kept with where they are
// ---------------------------------------------------------------------------------------------
namespace {

CheckOutcome error_outcome(const Error& e, std::string file, std::uint64_t line, std::string label) {
  CheckOutcome out;
  out.error = e.what();
  if (const auto* de = dynamic_cast<const DeploymentError*>(&e)) {
    if (!de->file().empty()) file = de->file();
    if (de->line()) line = de->line();
  }
  out.file = std::move(file);
  out.line = line;
  out.label = std::move(label);
  return out;
}

std::vector<CheckOutcome> check_each(const std::vector<Deployment>& ds, const CheckOptions& o) {
  std::vector<CheckOutcome> out;
  for (const auto& d : ds) {
    try {
      CheckOutcome c;
      c.result = check_deployment(d, o);
      c.label = d.where();
      out.push_back(std::move(c));
    } catch (const Error& e) {
      const bool cli = d.source == "command line" || d.source.empty();
      const bool located = dynamic_cast<const DeploymentError*>(&e) != nullptr;
      if (cli || located) {
        out.push_back(error_outcome(e, cli ? "" : d.source, d.line, d.where()));
      } else {
        // Name the deployment (file, document, resource, container) before the message.
        out.push_back(error_outcome(DeploymentError::in(d, e.what()), d.source, d.line, d.where()));
      }
    }
  }
  return out;
}

}  // namespace

std::vector<CheckOutcome> check_file(const std::string& path, const CheckOptions& o) {
  std::vector<Deployment> ds;
  try {
    ds = load_deployment_files(path);
  } catch (const Error& e) {
    return {error_outcome(e, path, 0, path)};
  }
  return check_each(ds, o);
}

std::vector<CheckOutcome> check_command(const std::vector<std::string>& argv, const CheckOptions& o) {
  Deployment d;
  try {
    d = parse_launch_command(argv);
  } catch (const Error& e) {
    return {error_outcome(e, "", 0, "command line")};
  }
  return check_each({d}, o);
}

int check_exit_code(const std::vector<CheckOutcome>& outcomes) {
  // Not the largest code: UNCERTAIN (3) is weaker than FAIL (1), which is weaker than an error (2).
  bool error = false, fail = false, uncertain = false;
  for (const auto& c : outcomes) {
    const int code = c.exit_code();
    error = error || code == 2;
    fail = fail || code == 1;
    uncertain = uncertain || code == kExitUncertain;
  }
  return error ? 2 : fail ? 1 : uncertain ? kExitUncertain : 0;
}

}  // namespace kvplan
