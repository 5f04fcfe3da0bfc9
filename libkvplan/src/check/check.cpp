// kvplan check: the verdict. The memory each engine budgets on the named GPU (the engine math
// lives in engines/), mapped from the engine flags read by check/flags*.cpp, and compared with
// the requirements. Reading deployments: check/launch.cpp, check/manifest.cpp; formatting:
// report/check_report.cpp.
#include "kvplan/check.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <variant>

#include "check/check_result.h"
#include "check/evaluate_ollama.h"
#include "deploy/flags.h"
#include "deploy/yaml.h"
#include "kvplan/budget.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/units.h"
#include "kvplan/vllm_weights.h"
#include "kvplan/weights.h"
#include "kvplan/text.h"
#include "util/config_view.h"

namespace kvplan {

namespace {

using detail::ParsedFlags;

// Flag values as each engine's parser reads them.
std::uint64_t int_flag(const ParsedFlags& f, const std::string& k, std::uint64_t def) {
  return f.has(k) ? detail::plain_uint(f.get(k), k) : def;
}
std::uint64_t vllm_int_flag(const ParsedFlags& f, const std::string& k, std::uint64_t def) {
  return f.has(k) ? detail::vllm_int(f.get(k), k) : def;
}
std::uint64_t positive(std::uint64_t v, const std::string& k) {
  if (v == 0) throw InputError::value(k, "0", "a positive integer");
  return v;
}
double fraction_flag(const ParsedFlags& f, const std::string& k, double def) {
  if (!f.has(k)) return def;
  const double v = detail::plain_float(f.get(k), k);
  if (!(v > 0) || v > 1) throw InputError::value(k, f.get(k), "a fraction in (0, 1]");
  return v;
}
bool bool_flag(const ParsedFlags& f, const std::string& k) { return f.has(k) && detail::flag_truthy(f.get(k), k); }
bool env_set(const Deployment& d, const std::string& name) {
  for (const auto& [k, v] : d.env)
    if (k == name) return v == "1" || v == "true" || v == "True";
  return false;
}

std::string fmt_ctx(std::uint64_t n) { return format_count(n); }

// Bytes per element of the model dtype above fp8's one (bf16/fp16: 1, fp32: 3).
std::uint64_t dtype_bytes_minus_fp8(Dtype d) {
  const std::uint64_t b = row_bytes(d, 1024) / 1024;
  return b > 1 ? b - 1 : 0;
}

}  // namespace

namespace {

// TensorRT-LLM --extra_llm_api_options FILE: a YAML mapping of LLM API arguments that overrides
// trtllm-serve's own (update_llm_args_with_extra_dict). The keys kvplan reads must have the
// type TensorRT-LLM's pydantic models require; a wrong type is an error, as it is for the engine.
nlohmann::json read_trtllm_extra_options(const std::string& path, const Deployment& d, TrtllmOptions& t,
                                         std::uint64_t& max_num_tokens, std::vector<std::string>& notes,
                                         std::vector<std::string>& unmodelled) {
  const std::string text = detail::read_command_file(path, d.base_dir, "--extra_llm_api_options");
  const auto docs = detail::parse_yaml_documents(text, path);
  if (docs.size() != 1 || !docs[0].value.is_object())
    throw ConfigError::field(path, "", "one YAML mapping of LLM API options", docs.empty() ? "nothing" : docs[0].value.type_name(), "");
  const nlohmann::json& y = docs[0].value;
  auto bad = [&](const std::string& ptr, const char* expected, const nlohmann::json& v) {
    return ConfigError::field(path, ptr, expected, detail::describe_json(v), "");
  };
  auto uint_of = [&](const nlohmann::json& v, const std::string& ptr) -> std::uint64_t {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    throw bad(ptr, "a non-negative integer", v);
  };
  std::vector<std::string> ignored;
  for (const auto& [k, v] : y.items()) {
    const std::string p = "/" + k;
    if (k == "kv_cache_config") {
      if (!v.is_object()) throw bad(p, "a mapping", v);
      for (const auto& [kk, vv] : v.items()) {
        const std::string pp = p + "/" + kk;
        if (kk == "free_gpu_memory_fraction") {
          if (!vv.is_number() || !(vv.get<double>() > 0) || vv.get<double>() > 1) throw bad(pp, "a number in (0, 1]", vv);
          t.free_gpu_memory_fraction = vv.get<double>();
        } else if (kk == "max_tokens") {
          if (!vv.is_null()) t.max_tokens = uint_of(vv, pp);
        } else if (kk == "dtype") {
          if (!vv.is_string()) throw bad(pp, "a dtype name (auto, fp8, nvfp4, ...)", vv);
          t.kv_cache_dtype = vv.get<std::string>();
        } else if (kk == "tokens_per_block") {
          t.tokens_per_block = positive(uint_of(vv, pp), path + " (" + pp + ")");
        } else if (kk == "max_attention_window") {
          if (vv.is_null()) continue;
          if (!vv.is_array() || vv.empty()) throw bad(pp, "a list of window sizes (tokens per layer pattern)", vv);
          for (std::size_t i = 0; i < vv.size(); ++i) t.max_attention_window.push_back(positive(uint_of(vv[i], pp + "/" + std::to_string(i)), pp));
        } else if (kk == "enable_block_reuse" || kk == "event_buffer_max_size" || kk == "enable_partial_reuse" ||
                   kk == "copy_on_partial_reuse" || kk == "secondary_offload_min_priority" || kk == "host_cache_size") {
          ignored.push_back("kv_cache_config." + kk);
        } else {
          throw bad(pp, "a kv_cache_config field kvplan knows (free_gpu_memory_fraction, max_tokens, dtype, tokens_per_block, "
                        "max_attention_window, enable_block_reuse, host_cache_size, ...)",
                    nlohmann::json(kk));
        }
      }
    } else if (k == "enable_attention_dp") {
      if (!v.is_boolean()) throw bad(p, "true or false", v);
      t.enable_attention_dp = v.get<bool>();
    } else if (k == "max_batch_size") {
      t.max_batch_size = positive(uint_of(v, p), path + " (" + p + ")");
    } else if (k == "max_num_tokens") {
      max_num_tokens = positive(uint_of(v, p), path + " (" + p + ")");
    } else if (k == "max_seq_len") {
      t.max_seq_len = uint_of(v, p);
    } else if (k == "tensor_parallel_size") {
      t.tp_size = positive(uint_of(v, p), path + " (" + p + ")");
    } else if (k == "pipeline_parallel_size") {
      t.pp_size = positive(uint_of(v, p), path + " (" + p + ")");
    } else if (k == "speculative_config" || k == "lora_config" || k == "max_beam_width") {
      if (!v.is_null()) unmodelled.push_back("extra_llm_api_options " + k);
    } else {
      ignored.push_back(k);
    }
  }
  if (!ignored.empty()) {
    std::string s;
    for (const auto& x : ignored) s += (s.empty() ? "" : ", ") + x;
    notes.push_back(path + ": keys that do not change the KV budget were ignored: " + s);
  }
  return y;
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

// ---------------------------------------------------------------------------------------------
// vLLM's flags as the engine profile's options
// ---------------------------------------------------------------------------------------------
namespace {
// The model a command names: positional, then --model (not llama-server's -m, a GGUF), --model-path.
std::string command_model(std::string model, const Deployment& d, const ParsedFlags& f) {
  if (model.empty() && !f.positional.empty()) model = f.positional;
  if (model.empty() && d.engine != EngineKind::llamacpp && f.has("--model")) model = f.get("--model");
  if (model.empty() && f.has("--model-path")) model = f.get("--model-path");
  return model;
}

// --dtype (vLLM, SGLang): the model's compute dtype, "auto" keeping the config's.
void apply_dtype_flag(ModelSpec& m, const ParsedFlags& f, EngineKind e) {
  if ((e == EngineKind::vllm || e == EngineKind::sglang) && f.has("--dtype") && f.get("--dtype") != "auto")
    m.dtype = parse_dtype(f.get("--dtype"), "--dtype");
}

VllmLaunch vllm_launch(const ParsedFlags& f, const ModelSpec& m, const Accelerator& acc) {
  VllmLaunch L;
  VllmOptions& v = L.options;
  v.tensor_parallel_size = positive(int_flag(f, "--tensor-parallel-size", 1), "--tensor-parallel-size");
  v.pipeline_parallel_size = positive(int_flag(f, "--pipeline-parallel-size", 1), "--pipeline-parallel-size");
  L.data_parallel_size = positive(int_flag(f, "--data-parallel-size", 1), "--data-parallel-size");
  // --max-model-len: human_readable_int_or_auto (-1 and "auto" fit the largest length).
  L.max_model_len_auto = f.has("--max-model-len") && (trim_space(f.get("--max-model-len")) == "-1" || trim_space(f.get("--max-model-len")) == "auto");
  v.max_model_len = L.max_model_len_auto ? 0 : vllm_int_flag(f, "--max-model-len", 0);
  if (f.has("--block-size")) v.block_size = positive(int_flag(f, "--block-size", 16), "--block-size");
  if (f.has("--kv-cache-dtype")) v.kv_cache_dtype = f.get("--kv-cache-dtype");
  // Not given: what `vllm serve` picks for this GPU (V0's rule is applied where the budget is set).
  const VllmBatchDefaults serve = vllm_serve_batch_defaults(acc);
  v.max_num_batched_tokens = positive(vllm_int_flag(f, "--max-num-batched-tokens", serve.max_num_batched_tokens), "--max-num-batched-tokens");
  L.max_num_batched_tokens_given = f.has("--max-num-batched-tokens");
  if (!L.max_num_batched_tokens_given || !f.has("--max-num-seqs"))
    L.notes.push_back("vllm serve's defaults on " + acc.name + ": max_num_batched_tokens " + std::to_string(serve.max_num_batched_tokens) +
                      ", max_num_seqs " + std::to_string(serve.max_num_seqs) +
                      (serve.max_num_batched_tokens == 8192 ? " (70 GiB or more, not an A100" : " (under 70 GiB, or an A100") +
                      "; vllm/engine/arg_utils.py get_batch_defaults, V1)");
  v.gpu_memory_utilization = fraction_flag(f, "--gpu-memory-utilization", 0.9);
  if (f.has("--kv-cache-memory-bytes")) v.kv_cache_memory_bytes = vllm_int_flag(f, "--kv-cache-memory-bytes", 0);
  if (f.has("--attention-backend")) v.attention_backend = f.get("--attention-backend");
  v.blackwell = is_blackwell(acc);
  {
    // FlashMLA (64-token blocks) runs on SM90/SM100 only; elsewhere vLLM's CUDA platform picks
    // TRITON_MLA, whose block stays 16 (vllm/platforms/cuda.py get_attn_backend_cls).
    bool mla = false, sparse = false;
    for (const auto& l : m.layers)
      for (const auto& mixer : l.mixers)
        if (const auto* x = std::get_if<Mla>(&mixer)) mla = true, sparse = sparse || x->index_head_dim > 0;
    const bool sm90 = acc.name.rfind("H100", 0) == 0 || acc.name.rfind("H200", 0) == 0 || acc.name.rfind("H20-", 0) == 0 ||
                      acc.name.rfind("H800", 0) == 0 || acc.name.rfind("GH200", 0) == 0;
    const bool sm100 = v.blackwell || acc.name.rfind("GB200", 0) == 0;
    if (mla && !sparse && v.attention_backend.empty() && !sm90 && !sm100) {
      v.attention_backend = "TRITON_MLA";
      L.notes.push_back("MLA on " + acc.name + ": FlashMLA needs SM90/SM100, so vLLM uses TRITON_MLA (block size 16)");
    }
  }
  if (f.has("--mamba-cache-mode")) v.mamba_cache_mode = f.get("--mamba-cache-mode");
  if (f.has("--mamba-cache-dtype")) v.mamba_cache_dtype = f.get("--mamba-cache-dtype");
  if (f.has("--mamba-ssm-cache-dtype")) v.mamba_ssm_cache_dtype = f.get("--mamba-ssm-cache-dtype");
  if (f.has("--enable-prefix-caching")) v.enable_prefix_caching = bool_flag(f, "--enable-prefix-caching");
  v.disable_hybrid_kv_cache_manager = bool_flag(f, "--disable-hybrid-kv-cache-manager");
  if (f.has("--num-gpu-blocks-override")) v.num_gpu_blocks_override = int_flag(f, "--num-gpu-blocks-override", 0);
  if (f.has("--max-num-seqs")) L.max_num_seqs = positive(int_flag(f, "--max-num-seqs", 1), "--max-num-seqs");
  if (f.has("--long-prefill-token-threshold")) L.long_prefill_token_threshold = vllm_int_flag(f, "--long-prefill-token-threshold", 0);
  if (f.has("--enable-chunked-prefill")) L.chunked_prefill = bool_flag(f, "--enable-chunked-prefill");
  if (f.has("--scheduler-reserve-full-isl")) L.reserve_full_isl = bool_flag(f, "--scheduler-reserve-full-isl");
  // SchedulerConfig.policy: SchedulerPolicy = Literal["fcfs", "priority"] (vllm/config/scheduler.py).
  if (f.has("--scheduling-policy")) {
    const std::string p = f.get("--scheduling-policy");
    if (p != "fcfs" && p != "priority") throw InputError::value("--scheduling-policy", p, "fcfs or priority");
    L.priority_scheduling = p == "priority";
  }
  L.enforce_eager = bool_flag(f, "--enforce-eager");
  return L;
}
}  // namespace

VllmBatchDefaults vllm_serve_batch_defaults(const Accelerator& gpu) {
  const std::string name = ascii_lower(gpu.name);
  const bool blackwell = is_blackwell(gpu);
  if (gpu.memory_bytes >= 70 * GiB && name.find("a100") == std::string::npos) return {8192, 1024, blackwell};
  return {2048, 256, blackwell};
}

TrtllmLaunch read_trtllm_launch(const Deployment& d) {
  const ParsedFlags f = detail::parse_engine_flags(EngineKind::trtllm, d.args, d.env, d.base_dir);
  TrtllmLaunch l;
  TrtllmOptions& t = l.options;
  t.tp_size = positive(int_flag(f, "--tp_size", 1), "--tp_size");
  t.pp_size = positive(int_flag(f, "--pp_size", 1), "--pp_size");
  t.max_seq_len = int_flag(f, "--max_seq_len", 0);
  t.max_batch_size = positive(int_flag(f, "--max_batch_size", 2048), "--max_batch_size");
  l.max_num_tokens = positive(int_flag(f, "--max_num_tokens", 8192), "--max_num_tokens");
  t.free_gpu_memory_fraction = fraction_flag(f, "--kv_cache_free_gpu_memory_fraction", 0.9);
  if (f.has("--extra_llm_api_options")) {
    l.extra_path = f.get("--extra_llm_api_options");
    l.extra = read_trtllm_extra_options(l.extra_path, d, t, l.max_num_tokens, l.notes, l.unmodelled);
  }
  return l;
}

VllmLaunch read_vllm_launch(const Deployment& d, const Accelerator& gpu, const LoadOptions& load) {
  if (d.engine != EngineKind::vllm)
    throw InputError::value("launch command", std::string(engine_name(d.engine)), "a vllm serve command");
  const ParsedFlags f = detail::parse_engine_flags(d.engine, d.args, d.env, d.base_dir);
  const std::string ref = command_model(d.model, d, f);
  if (ref.empty()) throw InputError::value("model", "", "a model in the command (or --model)");
  ModelSpec m = load_model(ref, load);
  apply_dtype_flag(m, f, d.engine);
  VllmLaunch L = vllm_launch(f, m, gpu);
  L.model_ref = ref;
  L.model = std::move(m);
  return L;
}

// ---------------------------------------------------------------------------------------------
// The verdict
// ---------------------------------------------------------------------------------------------
namespace {
// The GPU family vLLM's MXFP4 MoE backend choice depends on (its CUDA compute capability), by the
// catalog's names: Hopper SM90, datacenter Blackwell SM100 (hardware.h is_blackwell), consumer and
// workstation Blackwell SM120/SM121 (RTX 50, RTX PRO Blackwell, GB10), Ampere/Ada SM80-SM89. Below
// SM80 (V100, T4, ...) and other vendors: `other` (no padding derived).
VllmGpuArch vllm_gpu_arch(const Accelerator& a) {
  if (ascii_upper(a.vendor) != "NVIDIA") return VllmGpuArch::other;
  const std::string n = ascii_upper(a.name);
  auto starts = [&n](const char* p) { return n.rfind(p, 0) == 0; };
  if (starts("H100") || starts("H200") || starts("H20-") || starts("H800") || starts("GH200")) return VllmGpuArch::sm90;
  if (is_blackwell(a)) return VllmGpuArch::sm100;
  if (starts("RTX5") || starts("GB10") || n.find("BLACKWELL") != std::string::npos) return VllmGpuArch::sm120;
  if (starts("V100") || starts("T4") || starts("RTX2") || starts("P100") || starts("P40")) return VllmGpuArch::other;
  return VllmGpuArch::cuda_pre_hopper;
}

constexpr const char* kTpPp = "GPU count (tensor x pipeline parallel size)";
// tp x pp x dp, each product checked with the name of what overflowed (absurd degrees are an
// error, never a wrapped count).
std::uint64_t gpu_count(std::uint64_t tp, std::uint64_t pp, std::uint64_t dp) {
  return checked_mul(checked_mul(tp, pp, kTpPp), dp, "GPU count (tensor x pipeline x data parallel size)");
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
}  // namespace detail

CheckResult check_deployment(const Deployment& d, const CheckOptions& o) {
  if (d.engine == EngineKind::ollama) return detail::check_ollama(d, o);  // check/evaluate_ollama.cpp
  CheckResult r = detail::begin_check_result(d, o);
  const auto require_concurrency = o.require_concurrency ? o.require_concurrency : d.require_concurrency;
  const auto require_context = o.require_context ? o.require_context : d.require_context;

  // Engine flags, read as the engine reads them (check/flags*.cpp).
  const ParsedFlags f = detail::parse_engine_flags(d.engine, d.args, d.env, d.base_dir);
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
  std::vector<std::string> unmodelled = f.unmodelled;
  std::map<std::string, std::string> unmodelled_why = f.unmodelled_why;

  // The model kvplan reads.
  std::string model = command_model(o.model.value_or(d.model), d, f);
  std::error_code gguf_ec;  // llama-server -m FILE.gguf: the file's header gives the config
  if (model.empty() && d.engine == EngineKind::llamacpp && f.has("--model") &&
      std::filesystem::is_regular_file(f.get("--model"), gguf_ec))
    model = f.get("--model");
  if (model.empty())
    throw InputError::value("model", "", d.engine == EngineKind::llamacpp
                                             ? "a Hugging Face config for the GGUF (kvplan check --model ID, or `model:` in the deployment file)"
                                             : "a model in the command (or --model)");
  ModelSpec m = load_model(model);
  r.model = m.name;
  r.model_ref = model;
  apply_dtype_flag(m, f, d.engine);

  const Accelerator acc = o.device ? *o.device : find_accelerator(r.gpu);
  r.gpu = acc.name;
  r.gpu_memory_bytes = acc.memory_bytes;
  // --quantization: fp8 quantizes a 16-bit checkpoint's weights when it loads (vLLM Fp8LinearMethod,
  // SGLang the same); other methods name the checkpoint's own format, which weight_bytes reads
  // from its quantization_config.
  std::optional<Dtype> weight_override;
  if ((d.engine == EngineKind::vllm || d.engine == EngineKind::sglang) && f.has("--quantization")) {
    const std::string q = f.get("--quantization");
    if (q == "fp8") {
      weight_override = Dtype::fp8_e4m3;
      r.notes.push_back("--quantization fp8: weights stored in fp8 when loaded");
    } else if (!m.quantization) {
      throw InputError::value("--quantization", q, "fp8, or a method the checkpoint's quantization_config names (" + m.name +
                                                       " has none, so its weights are not " + q + ")");
    }
  }
  WeightBytes wb = weight_bytes(m, weight_override);
  if (weight_override) {
    // The embedding and the LM head stay in the model dtype (vLLM's Fp8LinearMethod quantizes
    // linear layers only): add back what the fp8 count took off them.
    const std::uint64_t tables = m.dims.tie_word_embeddings ? 1 : 2;
    const std::uint64_t extra = checked_product({tables, m.dims.vocab_size, m.dims.hidden_size, dtype_bytes_minus_fp8(m.dtype)});
    wb.total = checked_add(wb.total, extra);
    wb.non_experts = checked_add(wb.non_experts, extra);
  }
  if (o.weight_bytes) {  // --weights: the user's figure for the whole checkpoint
    wb.total = wb.non_experts = wb.active = *o.weight_bytes;
    wb.experts = 0;
    wb.scheme = wb.source = "given (--weights)";
    wb.unknown.clear();
  }
  if (!wb.unknown.empty()) throw InputError::unknown_weights(m.name, wb.unknown, "--weights");
  const bool blackwell = is_blackwell(acc);
  const MemoryBand others = detail::others_on_device(acc, o, r);

  // The engine's own measurements, when a start-up log is given.
  std::optional<EngineLogFigures> logf;
  if (o.engine_log) {
    logf = read_engine_log(*o.engine_log, d.engine, o.engine_log_source);
    r.calibrated = true;
    for (const auto& l : logf->lines_used) r.notes.push_back("engine log: " + l);
  }

  // The budget's terms (kvplan/budget.h) and the device total as the runtime sees it.
  const MemoryBand band = runtime_memory_band(acc);
  BudgetInput bin;
  bin.engine = d.engine;
  bin.device = {band.low, band.high, band.typical};
  bin.vllm_version = d.engine == EngineKind::vllm ? parse_vllm_version(o.engine_version) : VllmBudgetVersion::v1_graphs;

  std::uint64_t tp = 1, pp = 1, dp = 1;

  // A check holds at both ends (PASS), at neither (FAIL), or only at the favourable end (UNCERTAIN).
  auto add_check = [&](std::string name, bool ok_worst, bool ok_best, std::string required, std::string actual, std::string message) {
    const Verdict v = ok_worst ? Verdict::pass : (ok_best ? Verdict::uncertain : Verdict::fail);
    r.checks.push_back({std::move(name), ok_worst, std::move(required), std::move(actual), message, v});
    if (v == Verdict::fail) r.verdict = Verdict::fail;
    else if (v == Verdict::uncertain && r.verdict == Verdict::pass) r.verdict = Verdict::uncertain;
    if (v != Verdict::pass) r.reasons.push_back(std::move(message));
    r.passed = r.verdict == Verdict::pass;
  };
  // The engine's own start-up validation: where it refuses to start, the verdict says so (FAIL at
  // every end of the band).
  auto refused = [&](std::uint64_t context) {
    const std::string why = engine_refusal(d, m, tp, context, acc, f.has("--dtype") ? std::string_view(f.get("--dtype")) : std::string_view());
    if (why.empty()) return false;
    r.starts = false;
    r.tp = tp;
    r.pp = pp;
    r.gpus_needed = gpu_count(tp, pp, dp);
    r.gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : r.gpus_needed);
    add_check("starts", false, false, "the engine's start-up validation", "refused", why);
    return true;
  };

  // One evaluation of the engine at one end of the band. The unfavourable end (least memory for
  // the KV cache) decides PASS; the favourable end decides FAIL.
  struct Outcome {
    bool starts = true;
    std::int64_t kv_memory = 0;       // signed: negative when the fixed terms exceed the budget
    std::uint64_t kv_tokens = 0, context = 0, max_fitting_context = 0;
    std::uint64_t request_bytes = 0;  // one full-length request (vLLM), for the margin
    double max_concurrency = 0;
    std::string error;
    bool weights_exceed = false;
    std::vector<std::string> log_lines, notes;
    EngineResult engine_result;
  };
  // A scheduler cap on running sequences (vLLM --max-num-seqs, TRT-LLM max_batch_size).
  auto cap_concurrency = [](Outcome& out, std::uint64_t cap, const char* flag) {
    if (static_cast<double>(cap) < out.max_concurrency) {
      out.notes.push_back(std::string(flag) + " " + std::to_string(cap) + " caps concurrency at " + std::to_string(cap) +
                          " (the KV cache holds " + format_fixed(out.max_concurrency, 2) + "x)");
      out.max_concurrency = static_cast<double>(cap);
    }
  };
  EngineBudget budget;
  // --gpu-used as a term of the budget, where the engine's own accounting takes it from the KV
  // cache (`source` says how); a term the evaluation below reads by name ("other processes").
  auto push_others = [&](const std::string& source) {
    if (o.gpu_used) budget.terms.push_back({"other processes", others.low, others.high, "given (--gpu-used)", source});
  };
  // typical_point: evaluate at every term's typical value (kvplan's point estimate, never a verdict).
  bool typical_point = false;
  auto device_at = [&](bool fav) { return typical_point ? typical_of(budget.device) : fav ? budget.device.high : budget.device.low; };
  // vLLM: memory the process and others need beyond gpu_memory_utilization x total.
  std::optional<ByteBand> outside_need;
  std::string outside_what;
  double outside_util = 0;
  std::string headroom_fix;  // the utilization at which the headroom check holds
  auto term_at = [&](std::string_view name, bool fav) -> std::uint64_t {
    if (BudgetTerm* t = budget.find(name)) return typical_point ? typical_of(*t) : fav ? t->low : t->high;
    return 0;
  };
  auto measured = [&](std::string_view name, const std::optional<ByteBand>& b) {
    if (!b) return;
    if (BudgetTerm* t = budget.find(name)) *t = {t->name, b->low, b->high, "measured (engine log)", t->source};
  };
  auto signed_of = [](std::uint64_t a, std::uint64_t b) {
    return a >= b ? static_cast<std::int64_t>(a - b) : -static_cast<std::int64_t>(b - a);
  };
  std::function<Outcome(bool)> evaluate;
  std::uint64_t weights_per_gpu = 0;

  switch (d.engine) {
    case EngineKind::ollama: break;  // returned above
    case EngineKind::vllm: {
      // The command's flags as vLLM reads them (read_vllm_launch; kvplan simulate reads the same).
      const VllmLaunch launch = vllm_launch(f, m, acc);
      VllmOptions v = launch.options;
      v.auto_kv_follows_checkpoint = vllm_auto_kv_follows_checkpoint(o.engine_version);
      tp = v.tensor_parallel_size;
      pp = v.pipeline_parallel_size;
      dp = launch.data_parallel_size;
      const bool auto_fit = launch.max_model_len_auto;
      if (refused(v.max_model_len)) return r;
      for (const auto& n : launch.notes) r.notes.push_back(n);
      // Expert parallelism (vLLM FusedMoE with --enable-expert-parallel): the routed experts are split
      // over EP = tp x dp ranks; everything else is split over tp (and replicated per DP rank).
      // profile_run feeds a multimodal encoder its largest dummy inputs (every item the prompt
      // limits allow, each at the processor's most tokens) before the KV cache is sized; kvplan has
      // no rule for that peak. Qwen2.5-VL-3B at 0.3 of an A100-80GB found no KV memory where the
      // text model leaves 12-17 GiB (vllm-project/vllm#18124). --limit-mm-per-prompt and
      // --language-model-only are unmodelled flags of their own (the table's why).
      if (!m.params.encoders.empty() && !f.has("--limit-mm-per-prompt") && !f.has("--language-model-only")) {
        std::string names;
        for (const auto& e : m.params.encoders) names += (names.empty() ? "" : ", ") + e;
        const std::string term = "the multimodal encoder's profiling run (" + names + ")";
        unmodelled.push_back(term);
        unmodelled_why[term] = "vLLM profiles the encoder with its largest dummy inputs before the KV cache is allocated; "
                               "kvplan has no rule for that activation peak (vllm-project/vllm#18124)";
      }
      const bool ep = bool_flag(f, "--enable-expert-parallel");
      weights_per_gpu = ep ? checked_add(ceil_div(wb.non_experts, checked_mul(tp, pp, kTpPp)), ceil_div(wb.experts, gpu_count(tp, pp, dp)))
                           : ceil_div(wb.total, checked_mul(tp, pp, kTpPp));
      if (ep && dp > 1) r.notes.push_back("--enable-expert-parallel: routed experts split over " + std::to_string(tp * dp) + " ranks");
      // MXFP4 MoE (gpt-oss): the routed experts as vLLM's backend for this GPU allocates them
      // (engines/vllm_weights.cpp), the favourable end counted and the rest of the band in the term.
      if (!weight_override && !o.weight_bytes) {
        bool env_marlin = false;
        for (const auto& [k, val] : d.env)
          if (k == "VLLM_MXFP4_USE_MARLIN") env_marlin = val == "1" || ascii_lower(val) == "true";
        const VllmMxfp4Experts mx = vllm_mxfp4_experts(m, vllm_gpu_arch(acc), tp, ep ? gpu_count(tp, 1, dp) : 0, pp,
                                                       o.engine_version, env_marlin);
        if (mx.applies) {
          weights_per_gpu = checked_add(ceil_div(wb.non_experts, checked_mul(tp, pp, kTpPp)), mx.low);
          bin.weights_layout_extra = mx.high - mx.low;
          bin.weights_layout_typical_extra = mx.typical ? mx.typical - mx.low : (mx.high - mx.low) / 2;
          bin.weights_layout_source = "MXFP4 experts as vLLM allocates them (" + mx.source + ")";
          r.notes.push_back("MXFP4 routed experts as vLLM holds them on " + acc.name + ": " + format_gib(mx.low) +
                            (mx.high == mx.low ? " (" + mx.low_backend + ")"
                                               : " (" + mx.low_backend + ") to " + format_gib(mx.high) + " (" + mx.high_backend + ")") +
                            " per GPU, against " + format_gib(mx.checkpoint) + " at the checkpoint's shapes");
        }
      }
      // Speculative decoding: MTP / EAGLE draft layers hold weights and KV pages in the same pool.
      std::uint64_t draft_layers = 0;
      if (f.has("--speculative-config")) {
        nlohmann::json sc;
        try {
          sc = nlohmann::json::parse(f.get("--speculative-config"));
        } catch (const nlohmann::json::exception&) {
          throw InputError::value("--speculative-config", f.get("--speculative-config").substr(0, 60), "a JSON object such as {\"method\": \"mtp\", \"num_speculative_tokens\": 1}");
        }
        if (!sc.is_object()) throw InputError::value("--speculative-config", f.get("--speculative-config").substr(0, 60), "a JSON object");
        const std::string method = sc.contains("method") && sc["method"].is_string() ? sc["method"].get<std::string>() : "";
        if (sc.contains("num_speculative_tokens") && sc["num_speculative_tokens"].is_number_unsigned())
          v.num_speculative_tokens = sc["num_speculative_tokens"].get<std::uint64_t>();
        if (method.find("mtp") != std::string::npos) {
          if (wb.mtp == 0) throw InputError::value("--speculative-config method", method, "a model with MTP layers (num_nextn_predict_layers)");
          weights_per_gpu = checked_add(weights_per_gpu, ceil_div(wb.mtp, tp));
          draft_layers = 1;
          r.notes.push_back("speculative " + method + ": MTP weights " + format_gib(ceil_div(wb.mtp, tp)) +
                            " per GPU and one draft layer's KV pages (vLLM's MTP proposer)");
        } else if (sc.contains("model") && sc["model"].is_string()) {
          // A draft model (EAGLE head or a small model): its own weights, and its layers' KV in the pool.
          const ModelSpec draft = load_model(sc["model"].get<std::string>());
          if (const WeightBytes dw = weight_bytes(draft); !dw.unknown.empty())
            throw InputError::unknown_weights(draft.name + " (the speculative draft model)", dw.unknown, "--weights");
          weights_per_gpu = checked_add(weights_per_gpu, ceil_div(weight_bytes(draft).total, tp));
          draft_layers = method.find("eagle") != std::string::npos ? 1 : draft.layers.size();
          r.notes.push_back("speculative draft " + draft.name + ": weights " + format_gib(ceil_div(weight_bytes(draft).total, tp)) +
                            " per GPU and " + format_count(draft_layers, "draft layer") + " of KV pages, counted at the target's page size");
        } else if (!method.empty() && method != "ngram" && method != "suffix") {
          throw InputError::value("--speculative-config", f.get("--speculative-config").substr(0, 60),
                                  "a \"model\" for the draft (EAGLE/EAGLE-3/draft model), or an MTP or ngram method");
        }
      }
      if (f.has("--cpu-offload-gb")) {
        // vLLM keeps --cpu-offload-gb GiB of each GPU's weights in host memory (vllm/model_executor/models/utils.py
        // maybe_offload_to_cpu: cpu_offload_gb * 1024**3 bytes).
        const double gb = detail::plain_float(f.get("--cpu-offload-gb"), "--cpu-offload-gb");
        if (!(gb >= 0) || !(gb < 1.0e9)) throw InputError::value("--cpu-offload-gb", f.get("--cpu-offload-gb"), "a non-negative number of GiB");
        const auto off = static_cast<std::uint64_t>(gb * static_cast<double>(GiB));
        r.notes.push_back("--cpu-offload-gb: " + format_gib(std::min(off, weights_per_gpu)) + " of each GPU's weights stay in host memory");
        weights_per_gpu = off >= weights_per_gpu ? 0 : weights_per_gpu - off;
      }
      bin.weights_bytes = weights_per_gpu;
      bin.tp = tp;
      bin.max_num_batched_tokens = v.max_num_batched_tokens;
      if (bin.vllm_version == VllmBudgetVersion::v0 && !f.has("--max-num-batched-tokens")) {
        // V0's SchedulerConfig: without chunked prefill the profile batch is max(max_model_len, 2048)
        // tokens; chunked prefill (on by default past 32K) uses 512 (vllm/config.py, V0).
        const std::uint64_t mml = v.max_model_len ? v.max_model_len : m.dims.max_position_embeddings;
        bin.max_num_batched_tokens = mml > 32768 ? 512 : std::max<std::uint64_t>(mml, 2048);
      }
      const std::uint64_t max_num_seqs = launch.max_num_seqs;
      // Not given: 256 in V0, vllm serve's GPU default in V1 (1024 on the large cards).
      const std::uint64_t default_seqs = bin.vllm_version == VllmBudgetVersion::v0 ? 256 : vllm_serve_batch_defaults(acc).max_num_seqs;
      bin.sampler_seqs = std::min<std::uint64_t>(max_num_seqs ? max_num_seqs : default_seqs, bin.max_num_batched_tokens);
      bin.enforce_eager = launch.enforce_eager;
      budget = engine_budget(m, bin);
      // Other processes (--gpu-used), as the version's gpu_worker sees them (budget.h).
      const bool others_in_budget = bin.vllm_version != VllmBudgetVersion::v0 && vllm_budget_counts_other_processes(o.engine_version);
      const bool free_check = o.gpu_used && bin.vllm_version != VllmBudgetVersion::v0 && vllm_refuses_short_free_memory(o.engine_version);
      if (others_in_budget)
        push_others("vllm/v1/worker/gpu_worker.py determine_available_memory before PR #19312 (0.8, 0.9): the device's used memory "
                    "beyond torch's counted as non-torch, other processes included");
      if (bool_flag(f, "--enable-lora")) {
        // vLLM preallocates max_loras adapter slots of rank max_lora_rank on the GPU for every
        // linear layer (vllm/lora/layers: lora_a_stacked / lora_b_stacked, in the model dtype):
        // r x (in + out) per module; per layer q, k, v, o, gate, up, down sum to 7h + 2 q_dim + 2 kv_dim
        // + 3 I with q_dim, kv_dim <= h. Band: kv_dim 0 and split over tp .. kv_dim = h, not split.
        // --max-cpu-loras are host memory.
        const std::uint64_t loras = positive(int_flag(f, "--max-loras", 1), "--max-loras");
        const std::uint64_t rank = positive(int_flag(f, "--max-lora-rank", 16), "--max-lora-rank");
        const std::uint64_t h = m.dims.hidden_size, inter = std::max(m.dims.intermediate_size, m.dims.moe_intermediate_size);
        const std::uint64_t per = checked_product({loras, rank, row_bytes(m.dtype, 1024) / 1024, m.num_layers()}, "LoRA bytes");
        const std::uint64_t low = ceil_div(checked_mul(per, checked_add(checked_mul(9, h), checked_mul(3, inter))), checked_mul(tp, pp, kTpPp));
        const std::uint64_t high = checked_mul(per, checked_add(checked_mul(11, h), checked_mul(3, inter)));
        budget.terms.push_back({"LoRA adapter slots", low, high, "estimate",
                                "vllm/lora/layers BaseLinearLayerWithLoRA.create_lora_weights (max_loras x max_lora_rank)"});
        if (m.dims.num_experts) r.notes.push_back("LoRA on routed experts is not counted (dense modules only)");
      }
      if (logf) {
        measured("weights", logf->weights_bytes);
        measured("CUDA graphs", logf->cudagraph_bytes);
        measured("activation peak", logf->activation_bytes);
        if (logf->total_bytes) budget.device = *logf->total_bytes, budget.device_basis = "measured (engine log)";
      }
      if (!v.kv_cache_memory_bytes) {
        // What runs outside the --gpu-memory-utilization budget: the CUDA context created before the
        // profile's baseline (0.42 GiB on an RTX 3090: TheBuccaneer/vllm-offload-profiles, the
        // sampler OOM log), CUDA graphs where they are captured after the KV cache (before 0.21),
        // V1's sampler warm-up after the KV cache (gpu_worker.compile_or_warm_up_model ->
        // _dummy_sampler_run with max_num_seqs requests: logits, probabilities and the top-k/top-p
        // sort, up to 6 x seqs x vocab x 4 B; the profiled activation share of the budget is free by
        // then), and other processes on the device.
        const bool graphs_outside = bin.vllm_version != VllmBudgetVersion::v1_graphs && !bin.enforce_eager;
        const std::uint64_t warmup = bin.vllm_version == VllmBudgetVersion::v0 ? 0
                                     : checked_product({6, bin.sampler_seqs, m.dims.vocab_size, 4}, "sampler warm-up");
        const BudgetTerm* act = budget.find("activation peak");
        const std::uint64_t act_low = act ? act->low : 0;
        outside_util = v.gpu_memory_utilization;
        // The graphs' size where the log states it ("Estimated CUDA graph memory", "CUDA graph pool
        // memory: X GiB (actual)"), else 0.06-3 GiB (2.44 GiB actual for Qwen3-8B, dariustanrd/tokenkaki).
        const ByteBand graphs = !graphs_outside                        ? ByteBand{0, 0}
                                : logf && logf->cudagraph_actual_bytes ? *logf->cudagraph_actual_bytes
                                : logf && logf->cudagraph_bytes        ? *logf->cudagraph_bytes
                                                                       : ByteBand{64 * MiB, 3 * GiB};
        outside_need = ByteBand{checked_add(256 * MiB, graphs.low),
                                checked_add(checked_add(768 * MiB, graphs.high),
                                            checked_add(warmup > act_low ? warmup - act_low : 0, others.high), "headroom")};
        outside_what = std::string("the CUDA context (0.25 GiB to 0.75 GiB)") + (graphs_outside ? ", CUDA graphs captured after the KV cache (" +
                                             (graphs.low == graphs.high ? format_gib(graphs.high) : format_gib(graphs.low) + " to " + format_gib(graphs.high)) + ")"
                                       : "") +
                       (warmup ? ", the sampler warm-up (" + format_count(bin.sampler_seqs, "request") + ")" : "") +
                       (others.high ? ", " + others.basis : "");
      }
      evaluate = [&, v, auto_fit, draft_layers, max_num_seqs, others_in_budget, free_check](bool fav) {
        VllmOptions x = v;
        x.gpu_memory_bytes = device_at(fav);
        x.weights_bytes = checked_add(term_at("weights", fav), term_at("LoRA adapter slots", fav));
        x.activation_peak_bytes = term_at("activation peak", fav);
        x.non_torch_bytes = checked_add(term_at(budget.terms.size() > 2 ? budget.terms[2].name : "", fav), term_at("other processes", fav));
        x.cudagraph_bytes = term_at("CUDA graphs", fav);
        if (logf && logf->available_kv_bytes && !x.kv_cache_memory_bytes) x.available_kv_bytes = fav ? logf->available_kv_bytes->high : logf->available_kv_bytes->low;
        if (logf && logf->gpu_blocks) x.num_gpu_blocks_override = logf->gpu_blocks;  // the exact count beats the rounded GiB
        // A log with only "GPU KV cache size: N tokens" (no KV memory line): the block count that
        // logs N tokens in kvplan's layout, used only if sizing with it gives back exactly N.
        std::optional<std::uint64_t> from_tokens;
        if (logf && logf->vllm_kv_tokens && !logf->gpu_blocks && !logf->available_kv_bytes) {
          const VllmResult probe = vllm_profile(m, x);
          if (probe.block_size && probe.num_groups && *logf->vllm_kv_tokens % probe.block_size == 0)
            x.num_gpu_blocks_override = from_tokens = checked_mul(*logf->vllm_kv_tokens / probe.block_size, probe.num_groups);
        }
        VllmResult e = vllm_profile(m, x);
        if (logf && logf->vllm_kv_tokens && !logf->gpu_blocks && !logf->available_kv_bytes && (!from_tokens || e.kv_cache_tokens != *logf->vllm_kv_tokens))
          throw InputError::value(o.engine_log_source + " (--engine-log)", "GPU KV cache size: " + format_count(*logf->vllm_kv_tokens) + " tokens",
                                  "a token count kvplan's block layout for this model gives (whole blocks of " +
                                      std::to_string(e.block_size) + " tokens per group); add the log's \"Available KV cache memory\" line");
        if (draft_layers && !x.num_gpu_blocks_override && e.budget_bytes > 0 && m.num_layers() > 0) {
          // The draft's layers take pages from the same pool: the target keeps L / (L + d) of it.
          const std::uint64_t pool = x.available_kv_bytes ? *x.available_kv_bytes : x.kv_cache_memory_bytes ? *x.kv_cache_memory_bytes
                                                                                 : static_cast<std::uint64_t>(e.budget_bytes);
          x.available_kv_bytes = pool / (m.num_layers() + draft_layers) * m.num_layers();
          x.kv_cache_memory_bytes.reset();
          e = vllm_profile(m, x);
        }
        if (auto_fit && !e.starts && e.max_fitting_len > 0) {
          // --max-model-len -1: vLLM searches the largest length that fits and starts with it.
          const std::uint64_t from = e.max_model_len;
          x.max_model_len = e.max_fitting_len;
          e = vllm_profile(m, x);
          e.log_lines.insert(e.log_lines.begin(), "Auto-fit max_model_len: reduced from " + std::to_string(from) + " to " +
                                                      std::to_string(x.max_model_len));
        }
        Outcome out;
        out.starts = e.starts;
        out.kv_memory = x.available_kv_bytes || x.kv_cache_memory_bytes ? static_cast<std::int64_t>(e.available_kv_bytes)
                        : from_tokens && e.page_bytes ? static_cast<std::int64_t>(checked_product({e.num_blocks, e.page_bytes, e.group_size}))
                                      : e.budget_bytes;
        out.kv_tokens = e.kv_cache_tokens;
        out.context = e.max_model_len;
        out.max_concurrency = e.max_concurrency;
        out.max_fitting_context = e.max_fitting_len;
        out.request_bytes = e.request_bytes;
        const std::uint64_t usable = static_cast<std::uint64_t>(std::ceil(x.gpu_memory_utilization * static_cast<double>(x.gpu_memory_bytes)));
        out.weights_exceed = !x.available_kv_bytes && !x.kv_cache_memory_bytes && x.weights_bytes >= usable;
        out.error = e.error;
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        if (others_in_budget && !out.starts)
          out.error += (out.error.empty() ? "" : "; ") + std::string("other processes hold ") + format_gib(others.high) +
                       " (--gpu-used), which this vLLM's profiler counts as its own non-torch memory (V1 before PR #19312)";
        if (free_check) {
          // gpu_worker.py init_device: the snapshot after the CUDA context and NCCL must show at
          // least requested_memory = total x utilization free, whatever the KV cache would get.
          const std::uint64_t context = typical_point ? 512 * MiB : fav ? 256 * MiB : 768 * MiB;
          const std::uint64_t held = checked_add(others.high, context);
          const std::uint64_t free = x.gpu_memory_bytes > held ? x.gpu_memory_bytes - held : 0;
          if (static_cast<double>(free) < static_cast<double>(usable)) {
            out.starts = false;
            out.weights_exceed = false;
            out.error = "other processes hold " + format_gib(others.high) + " (--gpu-used): free memory on device (" + format_gib(free) + "/" +
                        format_gib(x.gpu_memory_bytes) + " with the CUDA context) on startup is less than desired GPU memory utilization (" +
                        format_fixed(x.gpu_memory_utilization, 2) + ", " + format_gib(usable) + ")";
            out.log_lines.push_back("ValueError: Free memory on device (" + format_fixed(static_cast<double>(free) / static_cast<double>(GiB), 2) + "/" +
                                    format_fixed(static_cast<double>(x.gpu_memory_bytes) / static_cast<double>(GiB), 2) +
                                    " GiB) on startup is less than desired GPU memory utilization (" + format_fixed(x.gpu_memory_utilization, 2) +
                                    ", " + format_fixed(static_cast<double>(usable) / static_cast<double>(GiB), 2) +
                                    " GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.");
          }
        }
        if (max_num_seqs) cap_concurrency(out, max_num_seqs, "--max-num-seqs");
        out.engine_result = std::move(e);
        return out;
      };
      break;
    }
    case EngineKind::sglang: {
      SglangOptions s;
      tp = positive(int_flag(f, "--tensor-parallel-size", 1), "--tensor-parallel-size");
      pp = positive(int_flag(f, "--pipeline-parallel-size", 1), "--pipeline-parallel-size");
      s.tp_size = tp;
      s.pp_size = pp;
      s.dp_size = positive(int_flag(f, "--data-parallel-size", 1), "--data-parallel-size");
      s.enable_dp_attention = bool_flag(f, "--enable-dp-attention");
      if (!s.enable_dp_attention) dp = s.dp_size;
      s.context_length = int_flag(f, "--context-length", 0);
      if (refused(s.context_length)) return r;
      if (f.has("--mem-fraction-static")) s.mem_fraction_static = fraction_flag(f, "--mem-fraction-static", 0.9);
      if (f.has("--page-size")) s.page_size = positive(int_flag(f, "--page-size", 1), "--page-size");
      if (f.has("--attention-backend")) s.attention_backend = f.get("--attention-backend");
      if (f.has("--kv-cache-dtype")) s.kv_cache_dtype = f.get("--kv-cache-dtype");
      if (f.has("--max-total-tokens")) s.max_total_tokens = positive(int_flag(f, "--max-total-tokens", 1), "--max-total-tokens");
      if (f.has("--max-running-requests")) s.max_running_requests = positive(int_flag(f, "--max-running-requests", 1), "--max-running-requests");
      if (const auto cp = detail::sglang_chunked_prefill(f); cp.size) s.chunked_prefill_size = *cp.size;
      if (f.has("--cuda-graph-max-bs")) s.cuda_graph_max_bs = int_flag(f, "--cuda-graph-max-bs", 0);
      if (f.has("--max-mamba-cache-size")) s.max_mamba_cache_size = positive(int_flag(f, "--max-mamba-cache-size", 1), "--max-mamba-cache-size");
      if (f.has("--mamba-ssm-dtype")) s.mamba_ssm_dtype = f.get("--mamba-ssm-dtype");
      if (f.has("--swa-full-tokens-ratio")) s.swa_full_tokens_ratio = fraction_flag(f, "--swa-full-tokens-ratio", 0.8);
      if (f.has("--mamba-full-memory-ratio")) s.mamba_full_memory_ratio = detail::plain_float(f.get("--mamba-full-memory-ratio"), "--mamba-full-memory-ratio");
      s.disable_radix_cache = bool_flag(f, "--disable-radix-cache");
      s.disable_hybrid_swa_memory = bool_flag(f, "--disable-hybrid-swa-memory");
      s.blackwell = blackwell;
      weights_per_gpu = ceil_div(wb.total, checked_mul(tp, pp, kTpPp));
      bin.weights_bytes = weights_per_gpu;
      bin.tp = tp;
      budget = engine_budget(m, bin);
      push_others("python/sglang/srt/model_executor/model_runner.py: the free memory probed at start-up (get_available_gpu_memory) "
                  "excludes what other processes hold; mem_fraction_static applies to it");
      if (logf) measured("weights", logf->weights_bytes);
      evaluate = [&, s](bool fav) {
        SglangOptions x = s;
        x.gpu_memory_bytes = device_at(fav);
        const std::uint64_t before = checked_add(checked_add(term_at("CUDA context", fav), term_at("NCCL buffers", fav)),
                                                 term_at("other processes", fav));
        x.free_before_bytes = x.gpu_memory_bytes > before ? x.gpu_memory_bytes - before : 0;
        x.weights_bytes = term_at("weights", fav);
        if (logf && logf->kv_tokens) {
          // The pool the engine allocated: "max_total_num_tokens=N" exactly, or "#tokens: N" which may
          // include the one padding page (so N - page .. N).
          SglangOptions probe = x;
          probe.rest_bytes = GiB;
          const SglangResult p = sglang_profile(m, probe);
          const bool rows = logf->lines_used.end() == std::find_if(logf->lines_used.begin(), logf->lines_used.end(), [](const std::string& l) {
                              return l.find("max_total_num_tokens=") != std::string::npos;
                            });
          const std::uint64_t tokens = rows && !fav && *logf->kv_tokens > p.page_size ? *logf->kv_tokens - p.page_size : *logf->kv_tokens;
          x.max_total_tokens = tokens;
          x.rest_bytes = checked_mul(checked_add(tokens, p.page_size), std::max<std::uint64_t>(p.cell_size, 1));
        }
        SglangResult e = sglang_profile(m, x);
        Outcome out;
        out.starts = e.starts;
        const std::uint64_t usable_after = static_cast<std::uint64_t>(static_cast<double>(x.free_before_bytes) * e.mem_fraction_static);
        out.kv_memory = x.rest_bytes ? static_cast<std::int64_t>(*x.rest_bytes) : signed_of(usable_after, x.weights_bytes);
        out.weights_exceed = !x.rest_bytes && x.weights_bytes >= usable_after;
        out.kv_tokens = e.max_total_num_tokens;
        out.context = e.context_length;
        out.max_concurrency = e.max_concurrency;
        out.max_fitting_context = std::min(e.context_length, e.max_total_num_tokens);
        out.error = e.error;
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        if (e.starts && e.max_total_num_tokens < e.context_length)
          out.notes.push_back("the KV pool (" + format_count(e.max_total_num_tokens) + " tokens) is smaller than context_length " +
                              format_count(e.context_length) + ": one full-length request cannot be served");
        out.engine_result = std::move(e);
        return out;
      };
      break;
    }
    case EngineKind::llamacpp: {
      LlamaCppOptions l;
      l.ctx_size = int_flag(f, "--ctx-size", 0);
      if (f.has("--parallel")) {
        // llama.cpp: -np -1 is "auto" (the server's default slots); 0 and below -1 are refused.
        const std::int64_t n = detail::plain_int(f.get("--parallel"), "--parallel");
        if (n == 0 || n < -1) throw InputError::value("--parallel", f.get("--parallel"), "a positive number of slots, or -1 (auto)");
        if (n > 0) l.parallel = static_cast<std::uint64_t>(n);
      }
      if (f.has("--cache-type-k")) l.cache_type_k = f.get("--cache-type-k");
      if (f.has("--cache-type-v")) l.cache_type_v = f.get("--cache-type-v");
      l.batch_size = positive(int_flag(f, "--batch-size", 2048), "--batch-size");
      l.ubatch_size = positive(int_flag(f, "--ubatch-size", 512), "--ubatch-size");
      l.kv_unified = bool_flag(f, "--kv-unified");
      l.swa_full = bool_flag(f, "--swa-full");
      if (f.has("--flash-attn")) {
        const std::string fa = f.get("--flash-attn");
        l.flash_attn = fa == "true" ? "on" : fa;  // the older switch form: -fa alone enables it
      }
      const std::uint64_t n_gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : 1);
      // --cpu-moe / --n-cpu-moe N keep routed experts in host memory: llama.cpp common/arg.cpp adds
      // a CPU buffer override for LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps"
      // (common/common.h), on every layer or on "blk\\.i" for i < N; shared experts (_shexp) stay.
      std::uint64_t host_experts = 0;
      const bool cpu_moe = bool_flag(f, "--cpu-moe");
      const std::uint64_t n_cpu_moe = f.has("--n-cpu-moe") ? detail::plain_uint(f.get("--n-cpu-moe"), "--n-cpu-moe") : 0;
      if ((cpu_moe || n_cpu_moe) && m.dims.num_experts) {
        const std::string flag = cpu_moe ? "--cpu-moe" : "--n-cpu-moe " + std::to_string(n_cpu_moe);
        auto not_modelled = [&](const char* why) {
          unmodelled.push_back(flag);
          unmodelled_why[flag] = why;
        };
        if (wb.experts == 0)
          not_modelled("the routed experts' share of the weights is not known (--weights gives a total only); they are "
                       "counted on the GPU");
        else if (cpu_moe || n_cpu_moe >= m.num_layers())
          host_experts = wb.experts;
        else if (wb.layer_experts.size() == m.num_layers())
          for (std::uint64_t i = 0; i < n_cpu_moe; ++i) host_experts = checked_add(host_experts, wb.layer_experts[i]);
        else
          not_modelled("which layers hold how many expert bytes is known only from the checkpoint's tensor list (a GGUF "
                       "file or safetensors headers); the experts are counted on the GPU");
        if (host_experts)
          r.notes.push_back(flag + ": " + format_gib(host_experts) + " of routed experts (" + wb.source +
                            ") stay in host memory, off the GPU");
      }
      weights_per_gpu = ceil_div(wb.total - host_experts, n_gpus);
      const LlamaCppResult e = llamacpp_profile(m, l);
      bin.weights_bytes = weights_per_gpu;
      bin.ubatch = e.n_ubatch;
      bin.llama_ctx = e.n_ctx;
      bin.llama_flash_attn = l.flash_attn;
      budget = engine_budget(m, bin);
      push_others("llama.cpp allocates the model, KV and compute buffers on the device: what other processes hold is not there to take");
      // The layer split spreads weights, cache and compute over the GPUs: compared in total.
      if (logf) {
        if (logf->llama_model_bytes) measured("weights", ByteBand{logf->llama_model_bytes->low / n_gpus, ceil_div(logf->llama_model_bytes->high, n_gpus)});
        if (logf->llama_compute_bytes) measured("compute buffer", ByteBand{logf->llama_compute_bytes->low / n_gpus, ceil_div(logf->llama_compute_bytes->high, n_gpus)});
      }
      evaluate = [&, e, n_gpus](bool fav) {
        Outcome out;
        std::uint64_t cache = e.total_bytes;
        if (logf && logf->llama_kv_bytes) cache = fav ? logf->llama_kv_bytes->low : logf->llama_kv_bytes->high;
        const std::uint64_t fixed = checked_mul(n_gpus, checked_add(checked_add(term_at("weights", fav), term_at("compute buffer", fav)),
                                                                     checked_add(term_at("CUDA context", fav), term_at("other processes", fav))));
        const std::uint64_t have = checked_mul(n_gpus, device_at(fav));
        const std::uint64_t need = checked_add(fixed, cache);
        out.starts = need <= have;
        out.kv_memory = signed_of(have / n_gpus, fixed / n_gpus);
        out.weights_exceed = term_at("weights", fav) >= device_at(fav);
        out.kv_tokens = checked_mul(e.cells, e.n_stream);
        out.context = e.n_ctx_seq;
        out.max_concurrency = e.kv_unified ? static_cast<double>(e.n_ctx / e.n_ctx_seq) : static_cast<double>(e.n_seq_max);
        out.max_fitting_context = e.n_ctx_seq;
        out.request_bytes = need > have ? need - have : 0;
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        if (!out.starts)
          out.error = "weights + KV cache + compute buffer need " + format_gib(need) + " but " + std::to_string(n_gpus) + " x " +
                      acc.name + " hold " + format_gib(have);
        out.engine_result = e;
        return out;
      };
      tp = 1;
      pp = n_gpus;
      break;
    }
    case EngineKind::trtllm: {
      TrtllmLaunch launch = read_trtllm_launch(d);
      const TrtllmOptions t = launch.options;
      const std::uint64_t max_num_tokens = launch.max_num_tokens;
      r.notes.insert(r.notes.end(), launch.notes.begin(), launch.notes.end());
      unmodelled.insert(unmodelled.end(), launch.unmodelled.begin(), launch.unmodelled.end());
      for (const auto& x : launch.unmodelled)
        unmodelled_why[x] = x.find("speculative_config") != std::string::npos ? "a draft model or MTP layers (weights, KV) and draft-token buffers"
                            : x.find("lora_config") != std::string::npos  ? "LoRA adapters' weights and their cache"
                                                                          : "beam search keeps KV blocks per beam";
      tp = t.tp_size;
      pp = t.pp_size;
      if (refused(t.max_seq_len)) return r;
      weights_per_gpu = ceil_div(wb.total, checked_mul(tp, pp, kTpPp));
      bin.weights_bytes = weights_per_gpu;
      bin.tp = tp;
      bin.max_num_batched_tokens = max_num_tokens;
      budget = engine_budget(m, bin);
      push_others("tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator: the profiled peak adds the device's used memory beyond "
                  "torch's (total - free, other processes included) before (total - peak) x free_gpu_memory_fraction");
      if (logf) measured("weights", logf->weights_bytes);
      evaluate = [&, t](bool fav) {
        TrtllmOptions x = t;
        x.gpu_memory_bytes = device_at(fav);
        std::uint64_t peak = 0;
        // Every term at the evaluated point: its low end (favourable), high end (unfavourable), or
        // its typical value for kvplan's estimate (never the favourable end passed off as typical).
        for (const auto& term : budget.terms) peak = checked_add(peak, term_at(term.name, fav));
        TrtllmResult pre = trtllm_profile(m, x);  // for the Mamba slots
        peak = checked_add(peak, pre.mamba_bytes);
        const bool fits = peak < x.gpu_memory_bytes;
        x.peak_bytes = std::min(peak, x.gpu_memory_bytes);
        if (logf && logf->kv_tokens) {
          TrtllmOptions probe = x;
          probe.kv_memory_bytes = GiB;
          const TrtllmResult p = trtllm_profile(m, probe);
          x.max_tokens = *logf->kv_tokens;
          x.kv_memory_bytes = checked_mul(checked_add(*logf->kv_tokens, x.tokens_per_block), std::max<std::uint64_t>(p.bytes_per_token, 1));
        }
        TrtllmResult e = trtllm_profile(m, x);
        Outcome out;
        out.starts = e.starts && (fits || x.kv_memory_bytes.has_value());
        if (!fav && !typical_point && out.starts && !x.kv_memory_bytes && e.estimator_bytes_per_token &&
            e.estimator_bytes_per_token < e.bytes_per_token) {
          // tp > KV heads: the estimator sized max_tokens with h x Hkv // tp bytes a token, and a
          // release whose KV manager allocates that many tokens at the replicated heads' bytes
          // needs bytes_per_token / estimator bytes times the memory (TensorRT-LLM 1.0.0rc1-rc3,
          // Qwen3-235B-A22B-FP8 at tp 8: "insufficient GPU memory ... KV cache",
          // https://github.com/NVIDIA/TensorRT-LLM/issues/5872). The current manager caps the tokens
          // at fraction x free / get_cache_bytes_per_token instead: the favourable end.
          const double need = static_cast<double>(e.kv_memory_bytes) / static_cast<double>(e.estimator_bytes_per_token) *
                              static_cast<double>(e.bytes_per_token);
          const double room = static_cast<double>(x.gpu_memory_bytes - x.peak_bytes);
          if (need > room) {
            out.starts = false;
            out.error = "tp " + std::to_string(t.tp_size) + " exceeds the KV heads: the estimator counts " +
                        format_count(e.estimator_bytes_per_token, "byte") + " a token where each rank stores " +
                        format_count(e.bytes_per_token, "byte") + " (replicated heads), so a KV manager that allocates the estimator's " +
                        "max_tokens needs " + format_gib(static_cast<std::uint64_t>(need)) + " of the " +
                        format_gib(static_cast<std::uint64_t>(room)) + " left (TensorRT-LLM 1.0 release candidates ran out of memory "
                        "here: NVIDIA/TensorRT-LLM#5872; releases that cap the pool at the replicated bytes start)";
          }
        }
        out.kv_memory = x.kv_memory_bytes ? static_cast<std::int64_t>(e.kv_memory_bytes) : signed_of(x.gpu_memory_bytes, peak);
        out.weights_exceed = !x.kv_memory_bytes && term_at("weights", fav) >= x.gpu_memory_bytes;
        out.kv_tokens = e.max_tokens;
        out.context = e.max_seq_len;
        out.max_concurrency = e.max_concurrency;
        out.max_fitting_context = e.max_seq_len;
        if (out.error.empty())  // unless the estimator's tokens at the replicated heads' bytes did not fit (above)
          out.error = out.starts ? "" : (e.error.empty() ? "the weights and profiled peak leave no KV cache memory" : e.error);
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        cap_concurrency(out, t.max_batch_size, "max_batch_size");
        out.engine_result = std::move(e);
        return out;
      };
      break;
    }
  }
  if (budget.device_basis.empty()) budget.device_basis = band.basis;
  if (BudgetTerm* t = budget.find("weights"); t && o.weight_bytes && t->basis == "counted") t->basis = "given (--weights)";

  Outcome worst = evaluate(false), best = evaluate(true);
  typical_point = true;
  const Outcome typical = evaluate(true);
  typical_point = false;
  if (logf && logf->failure) {
    // The engine said it did not start: no end of any band makes it start.
    for (Outcome* x : {&worst, &best}) {
      x->starts = false;
      x->error = "the engine log says it did not start: " + *logf->failure;
    }
  }

  r.tp = tp;
  r.pp = pp;
  r.gpus_needed = gpu_count(tp, pp, dp);
  r.gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : r.gpus_needed);
  r.weights_bytes_per_gpu = weights_per_gpu;
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
  for (const auto& n : budget.notes) r.notes.push_back(n);
  r.engine_result = std::move(worst.engine_result);
  r.device_low_bytes = budget.device.low;
  r.device_high_bytes = budget.device.high;
  r.device_basis = budget.device_basis;
  r.budget = budget.terms;
  r.engine_version = d.engine == EngineKind::vllm ? std::string(vllm_version_name(bin.vllm_version)) : r.engine;

  // Starts.
  {
    const std::string eng = d.engine == EngineKind::vllm ? "vLLM" : d.engine == EngineKind::sglang ? "SGLang"
                            : d.engine == EngineKind::trtllm ? "TensorRT-LLM" : "llama-server";
    std::string msg;
    if (worst.starts) {
      msg = eng + " starts";
    } else if (best.weights_exceed) {
      // Weights alone exceed what the engine may use: more memory fraction cannot help.
      // Room for weights per GPU at the favourable end: what the KV cache got plus the weights.
      const std::int64_t room = best.kv_memory + static_cast<std::int64_t>(weights_per_gpu);
      const std::uint64_t per_gpu_room = room > 0 ? static_cast<std::uint64_t>(room) : 0;
      const std::uint64_t need_shards = per_gpu_room ? ceil_div(wb.total, per_gpu_room) : 0;
      std::uint64_t shards = 1;
      while (shards < need_shards) shards *= 2;
      msg = eng + " cannot start: the weights alone (" + format_gib(weights_per_gpu) + " per GPU) exceed the memory it may use on " +
            acc.name + " (KV memory " + format_signed_gib(best.kv_memory) + " per GPU); use more GPUs (about " +
            std::to_string(shards) + "-way tensor/pipeline parallel) or quantized weights (fp8, int4)";
    } else if (!best.starts) {
      msg = eng + " fails at start-up: " + best.error;
    } else {
      msg = eng + " may fail at start-up (it starts at the favourable end of the memory band only): " + worst.error;
      // Name the terms whose bands decide it (the widest first), so the user knows what to pin
      // (--weights, --engine-log).
      std::vector<const BudgetTerm*> wide;
      for (const auto& t : budget.terms)
        if (t.high > t.low) wide.push_back(&t);
      std::stable_sort(wide.begin(), wide.end(), [](const BudgetTerm* a, const BudgetTerm* b) { return a->high - a->low > b->high - b->low; });
      std::string terms;
      for (std::size_t i = 0; i < wide.size() && i < 2; ++i)
        terms += (i ? ", " : "") + wide[i]->name + " " + format_gib(wide[i]->low) + " to " + format_gib(wide[i]->high) + " (" + wide[i]->source + ")";
      if (!terms.empty()) msg += " [widest terms of the band: " + terms + "]";
    }
    add_check("starts", worst.starts, best.starts, "starts",
              worst.starts ? "starts" : best.starts ? "uncertain" : "does not start", msg);
  }
  if (outside_need && best.starts && d.engine == EngineKind::vllm) {
    // vLLM allocates the KV cache up to utilization x total; the rest of the device must hold what
    // runs outside that budget, or start-up ends in an out-of-memory error after the KV cache
    // ("CUDA out of memory occurred when warming up sampler", TheBuccaneer/vllm-offload-profiles).
    const double util = outside_util;
    auto outside = [&](std::uint64_t total) {
      const auto used = static_cast<std::uint64_t>(std::ceil(util * static_cast<double>(total)));
      return total > used ? total - used : 0;
    };
    const std::uint64_t have_worst = outside(budget.device.low), have_best = outside(budget.device.high);
    const bool ok = have_worst >= outside_need->high, ok_best = have_best >= outside_need->low;
    if (!ok && budget.device.low > outside_need->high)
      headroom_fix = "--gpu-memory-utilization " +
                     format_fixed(std::floor(100.0 * (1.0 - static_cast<double>(outside_need->high) / static_cast<double>(budget.device.low))) / 100.0, 2) +
                     " or lower leaves room for what runs outside the budget";
    add_check("headroom", ok, ok_best, format_gib(outside_need->high) + " outside the budget", format_gib(have_worst),
              ok ? "the " + format_gib(have_worst) + " outside --gpu-memory-utilization holds " + outside_what
                 : "the " + format_gib(have_worst) + " left outside --gpu-memory-utilization " + format_fixed(util, 2) + " may not hold " +
                       outside_what + ": up to " + format_gib(outside_need->high) + " (lower --gpu-memory-utilization, or --max-num-seqs)");
  }
  if (d.engine != EngineKind::llamacpp) {
    const bool ok = r.gpus >= r.gpus_needed;
    add_check("gpus", ok, ok, std::to_string(r.gpus_needed), std::to_string(r.gpus),
              ok ? "GPU count suffices"
                 : "the command needs " + std::to_string(r.gpus_needed) + " GPUs (tp x pp" + std::string(dp > 1 ? " x dp" : "") + ") but " +
                       (o.gpus ? "--gpus is " : d.gpus ? "the deployment gives " : "--gpus is ") + std::to_string(r.gpus));
  }
  if (!unmodelled.empty()) {
    // Memory kvplan cannot count: the verdict cannot pass, nor can it fail on that alone (the other
    // checks still fail it where the memory kvplan counts does not hold) -- UNCERTAIN, naming each
    // flag and what it changes.
    std::string names, why;
    for (const auto& x : unmodelled) {
      names += (names.empty() ? "" : ", ") + x;
      const auto it = unmodelled_why.find(x);
      why += (why.empty() ? "" : "; ") + x + ": " + (it != unmodelled_why.end() ? it->second : std::string("not modelled"));
    }
    add_check("modelled", false, true, "every flag that may change GPU memory modelled", names,
              "UNCERTAIN because kvplan does not model what " + names + " may change in GPU memory (" + why +
                  "); the memory kvplan counts holds, so check without it, or measure on the GPU");
  }
  if (require_context) {
    auto holds = [&](const Outcome& x) {
      return x.starts && x.context >= *require_context && x.max_fitting_context >= *require_context;
    };
    const bool ok = holds(worst);
    add_check("context", ok, holds(best), fmt_ctx(*require_context), fmt_ctx(std::min(worst.context, worst.max_fitting_context)),
              ok ? "context " + fmt_ctx(worst.context) + " >= " + fmt_ctx(*require_context)
                 : "required context " + fmt_ctx(*require_context) + " tokens, but the deployment serves at most " +
                       fmt_ctx(worst.starts ? std::min(worst.context, worst.max_fitting_context) : worst.max_fitting_context) +
                       " tokens per request" + (holds(best) ? " at the unfavourable end of the memory band" : ""));
  }
  if (require_concurrency) {
    auto holds = [&](const Outcome& x) { return x.starts && x.max_concurrency + 1e-9 >= static_cast<double>(*require_concurrency); };
    const bool ok = holds(worst);
    add_check("concurrency", ok, holds(best), std::to_string(*require_concurrency), format_fixed(worst.max_concurrency, 2),
              ok ? "concurrency " + format_fixed(worst.max_concurrency, 2) + "x >= " + std::to_string(*require_concurrency)
                 : "required concurrency " + std::to_string(*require_concurrency) + " at " + fmt_ctx(worst.context) +
                       " tokens, but the deployment holds " + format_fixed(worst.max_concurrency, 2) + "x" +
                       (holds(best) ? " at the unfavourable end (" + format_fixed(best.max_concurrency, 2) + "x at the favourable end)" : ""));
    if (!ok && worst.starts && worst.max_concurrency > 0 && worst.kv_memory > 0) {
      const double need = static_cast<double>(worst.kv_memory) * (static_cast<double>(*require_concurrency) / worst.max_concurrency);
      r.margin_bytes = std::max(r.margin_bytes, static_cast<std::uint64_t>(std::ceil(need)) - static_cast<std::uint64_t>(worst.kv_memory));
    }
  }
  if (!worst.starts && best.starts && worst.request_bytes && d.engine == EngineKind::vllm)
    r.margin_bytes = std::max(r.margin_bytes, worst.kv_memory < 0 ? worst.request_bytes + static_cast<std::uint64_t>(-worst.kv_memory)
                                                                   : worst.request_bytes - std::min<std::uint64_t>(worst.request_bytes, static_cast<std::uint64_t>(worst.kv_memory)));
  const bool only_unmodelled = std::all_of(r.checks.begin(), r.checks.end(), [](const CheckRequirement& c) {
    return c.status == Verdict::pass || c.name == "modelled";
  });
  if (r.verdict == Verdict::uncertain && only_unmodelled) {
    r.margin = "certain only without the flags kvplan does not model (or measured on the GPU): every check of the memory it counts passes";
    r.notes.push_back(r.margin);
  } else if (r.verdict == Verdict::uncertain && r.margin_bytes == 0 && !headroom_fix.empty()) {
    r.margin = "certain to pass when " + headroom_fix + " (if the KV cache still holds what is required)";
    r.notes.push_back(r.margin);
  } else if (r.verdict == Verdict::uncertain) {
    r.margin = "certain to pass with " + (r.margin_bytes ? format_gib(r.margin_bytes) + " more" : std::string("more")) +
               " KV memory per GPU at the unfavourable end of the band (the band spans " +
               format_gib(budget.high() - budget.low() + (budget.device.high - budget.device.low)) +
               " per GPU); give --engine-log with the engine's start-up log to measure it, or fix the KV memory in the command";
    r.notes.push_back(r.margin);
  }
  r.passed = r.verdict == Verdict::pass;
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
