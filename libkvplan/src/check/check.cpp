// kvplan check: the verdict. The memory each engine budgets on the named GPU (the engine math
// lives in engines/), mapped from the engine flags read by check/flags*.cpp, and compared with
// the requirements. Reading deployments: check/launch.cpp, check/manifest.cpp; formatting:
// report/check_report.cpp.
#include "kvplan/check.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "check/flags.h"
#include "check/yaml.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/units.h"
#include "kvplan/weights.h"
#include "util/config_view.h"

namespace kvplan {

namespace {

using detail::ParsedFlags;

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

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

// Estimates used where an engine measures at start-up (documented in docs/engines.md).
constexpr std::uint64_t kNonTorchBytes = 512 * MiB;
constexpr std::uint64_t kCudaGraphBytes = 512 * MiB;
constexpr std::uint64_t kCudaContextBytes = 512 * MiB;
constexpr std::uint64_t kSamplerSeqs = 256;

// Activation peak of a profile run over `tokens` tokens on one rank.
std::uint64_t activation_estimate(const ModelSpec& m, std::uint64_t tokens, std::uint64_t tp) {
  std::uint64_t inter = m.dims.intermediate_size;
  if (m.dims.num_experts && m.dims.moe_intermediate_size)
    inter = std::max(inter, m.dims.moe_intermediate_size * std::max<std::uint64_t>(1, m.dims.experts_per_token));
  const std::uint64_t per_token = checked_add(ceil_div(checked_mul(2, inter), tp), checked_mul(4, m.dims.hidden_size));
  return checked_add(checked_product({tokens, per_token, 2}), checked_product({kSamplerSeqs, m.dims.vocab_size, 4}));
}

std::string fmt_ctx(std::uint64_t n) { return format_count(n); }

}  // namespace

namespace {

// TensorRT-LLM --extra_llm_api_options FILE: a YAML mapping of LLM API arguments that overrides
// trtllm-serve's own (update_llm_args_with_extra_dict). The keys kvplan reads must have the
// type TensorRT-LLM's pydantic models require; a wrong type is an error, as it is for the engine.
void read_trtllm_extra_options(const std::string& path, const Deployment& d, TrtllmOptions& t, std::uint64_t& max_num_tokens,
                               std::vector<std::string>& notes, std::vector<std::string>& unmodelled) {
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
}

// The engines' start-up validation that kvplan's profiles do not repeat.
std::string engine_refusal(const Deployment& d, const ModelSpec& m, std::uint64_t tp, std::uint64_t context) {
  const std::string e = d.engine == EngineKind::vllm ? "vLLM" : d.engine == EngineKind::sglang ? "SGLang" : "TensorRT-LLM";
  if (d.engine != EngineKind::llamacpp && m.dims.num_attention_heads && m.dims.num_attention_heads % tp != 0)
    return e + " refuses to start: the tensor-parallel size " + std::to_string(tp) + " does not divide the model's " +
           std::to_string(m.dims.num_attention_heads) + " attention heads";
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
// The verdict
// ---------------------------------------------------------------------------------------------
CheckResult check_deployment(const Deployment& d, const CheckOptions& o) {
  CheckResult r;
  r.source = d.source;
  r.name = d.name;
  r.where = d.where();
  r.line = d.line;
  r.engine = std::string(engine_name(d.engine));
  r.gpu = o.gpu.empty() ? d.gpu : o.gpu;
  if (r.gpu.empty())
    throw InputError::value("--gpu", "", "a GPU name (e.g. H100, A100-80GB; see kvplan gpus), or a nvidia.com/gpu.product node selector");
  const auto require_concurrency = o.require_concurrency ? o.require_concurrency : d.require_concurrency;
  const auto require_context = o.require_context ? o.require_context : d.require_context;

  // Engine flags, read as the engine reads them (check/flags*.cpp).
  const ParsedFlags f = detail::parse_engine_flags(d.engine, d.args, d.env, d.base_dir);
  r.ignored_flags = f.ignored;
  if (!f.ignored.empty()) {
    std::string s;
    for (const auto& x : f.ignored) s += (s.empty() ? "" : ", ") + x;
    r.notes.push_back("flags that do not change the KV cache were ignored: " + s);
  }
  std::vector<std::string> unmodelled = f.unmodelled;

  // The model kvplan reads.
  std::string model = o.model.value_or(d.model);
  if (model.empty() && !f.positional.empty()) model = f.positional;
  if (model.empty() && d.engine != EngineKind::llamacpp && f.has("--model")) model = f.get("--model");
  if (model.empty() && f.has("--model-path")) model = f.get("--model-path");
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
  if ((d.engine == EngineKind::vllm || d.engine == EngineKind::sglang) && f.has("--dtype") && f.get("--dtype") != "auto")
    m.dtype = parse_dtype(f.get("--dtype"), "--dtype");

  const Accelerator& acc = find_accelerator(r.gpu);
  r.gpu = acc.name;
  r.gpu_memory_bytes = acc.memory_bytes;
  WeightBytes wb = weight_bytes(m);
  if (o.weight_bytes) {  // --weights: the user's figure for the whole checkpoint
    wb.total = wb.non_experts = wb.active = *o.weight_bytes;
    wb.experts = 0;
    wb.scheme = wb.source = "given (--weights)";
  }
  const bool blackwell = acc.name.find("B200") != std::string::npos || acc.name.find("B100") != std::string::npos ||
                         acc.name.find("B300") != std::string::npos;

  std::uint64_t tp = 1, pp = 1, dp = 1;
  auto add_check = [&](std::string name, bool ok, std::string required, std::string actual, std::string message) {
    r.checks.push_back({std::move(name), ok, std::move(required), std::move(actual), message});
    if (!ok) {
      r.passed = false;
      r.reasons.push_back(std::move(message));
    }
  };
  // The engine's own start-up validation: where it refuses to start, the verdict says so.
  auto refused = [&](std::uint64_t context) {
    const std::string why = engine_refusal(d, m, tp, context);
    if (why.empty()) return false;
    r.starts = false;
    r.tp = tp;
    r.pp = pp;
    r.gpus_needed = checked_product({tp, pp, dp});
    r.gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : r.gpus_needed);
    add_check("starts", false, "the engine's start-up validation", "refused", why);
    return true;
  };
  // A scheduler cap on running sequences (vLLM --max-num-seqs, TRT-LLM max_batch_size).
  auto cap_concurrency = [&](std::uint64_t cap, const char* flag) {
    if (static_cast<double>(cap) < r.max_concurrency) {
      r.notes.push_back(std::string(flag) + " " + std::to_string(cap) + " caps concurrency at " + std::to_string(cap) +
                        " (the KV cache holds " + format_fixed(r.max_concurrency, 2) + "x)");
      r.max_concurrency = static_cast<double>(cap);
    }
  };

  switch (d.engine) {
    case EngineKind::vllm: {
      VllmOptions v;
      tp = positive(int_flag(f, "--tensor-parallel-size", 1), "--tensor-parallel-size");
      pp = positive(int_flag(f, "--pipeline-parallel-size", 1), "--pipeline-parallel-size");
      dp = positive(int_flag(f, "--data-parallel-size", 1), "--data-parallel-size");
      v.tensor_parallel_size = tp;
      v.pipeline_parallel_size = pp;
      // --max-model-len: human_readable_int_or_auto (-1 and "auto" fit the largest length).
      const bool auto_fit = f.has("--max-model-len") && (trim(f.get("--max-model-len")) == "-1" || trim(f.get("--max-model-len")) == "auto");
      v.max_model_len = auto_fit ? 0 : vllm_int_flag(f, "--max-model-len", 0);
      if (refused(v.max_model_len)) return r;
      if (f.has("--block-size")) v.block_size = positive(int_flag(f, "--block-size", 16), "--block-size");
      if (f.has("--kv-cache-dtype")) v.kv_cache_dtype = f.get("--kv-cache-dtype");
      v.max_num_batched_tokens = positive(vllm_int_flag(f, "--max-num-batched-tokens", 8192), "--max-num-batched-tokens");
      v.gpu_memory_utilization = fraction_flag(f, "--gpu-memory-utilization", 0.9);
      if (f.has("--kv-cache-memory-bytes")) v.kv_cache_memory_bytes = vllm_int_flag(f, "--kv-cache-memory-bytes", 0);
      if (f.has("--attention-backend")) v.attention_backend = f.get("--attention-backend");
      if (f.has("--mamba-cache-mode")) v.mamba_cache_mode = f.get("--mamba-cache-mode");
      if (f.has("--mamba-cache-dtype")) v.mamba_cache_dtype = f.get("--mamba-cache-dtype");
      if (f.has("--mamba-ssm-cache-dtype")) v.mamba_ssm_cache_dtype = f.get("--mamba-ssm-cache-dtype");
      if (f.has("--enable-prefix-caching")) v.enable_prefix_caching = bool_flag(f, "--enable-prefix-caching");
      v.disable_hybrid_kv_cache_manager = bool_flag(f, "--disable-hybrid-kv-cache-manager");
      if (f.has("--num-gpu-blocks-override")) v.num_gpu_blocks_override = int_flag(f, "--num-gpu-blocks-override", 0);
      v.blackwell = blackwell;
      v.gpu_memory_bytes = acc.memory_bytes;
      v.weights_bytes = ceil_div(wb.total, checked_mul(tp, pp));
      v.activation_peak_bytes = activation_estimate(m, v.max_num_batched_tokens, tp);
      v.non_torch_bytes = tp > 1 ? 2 * kNonTorchBytes : kNonTorchBytes;
      v.cudagraph_bytes = bool_flag(f, "--enforce-eager") ? 0 : kCudaGraphBytes;
      if (!v.kv_cache_memory_bytes)
        r.notes.push_back("estimated per GPU: weights " + format_gib(v.weights_bytes) + ", activation peak " +
                          format_gib(v.activation_peak_bytes) + ", non-torch " + format_gib(v.non_torch_bytes) +
                          ", CUDA graphs " + format_gib(v.cudagraph_bytes) + " (vLLM measures these at start-up)");
      VllmResult e = vllm_profile(m, v);
      if (auto_fit && !e.starts && e.max_fitting_len > 0) {
        // --max-model-len -1: vLLM searches the largest length that fits and starts with it.
        const std::uint64_t from = e.max_model_len;
        v.max_model_len = e.max_fitting_len;
        e = vllm_profile(m, v);
        e.log_lines.insert(e.log_lines.begin(), "Auto-fit max_model_len: reduced from " + std::to_string(from) + " to " +
                                                    std::to_string(v.max_model_len));
      }
      r.starts = e.starts;
      r.kv_budget_bytes = e.available_kv_bytes;
      r.kv_cache_tokens = e.kv_cache_tokens;
      r.context = e.max_model_len;
      r.max_concurrency = e.max_concurrency;
      r.max_fitting_context = e.max_fitting_len;
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      if (f.has("--max-num-seqs")) cap_concurrency(positive(int_flag(f, "--max-num-seqs", 1), "--max-num-seqs"), "--max-num-seqs");
      add_check("starts", e.starts, "one request of max-model-len fits", e.starts ? "fits" : "does not fit",
                e.starts ? "vLLM starts" : "vLLM fails at start-up: " + e.error);
      r.engine_result = std::move(e);
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
      if (f.has("--chunked-prefill-size")) {
        // -1 disables chunked prefill (argparse type=int).
        const std::int64_t c = detail::plain_int(f.get("--chunked-prefill-size"), "--chunked-prefill-size");
        if (c < -1) throw InputError::value("--chunked-prefill-size", f.get("--chunked-prefill-size"), "a positive integer or -1");
        if (c > 0) s.chunked_prefill_size = static_cast<std::uint64_t>(c);
      }
      if (f.has("--cuda-graph-max-bs")) s.cuda_graph_max_bs = int_flag(f, "--cuda-graph-max-bs", 0);
      if (f.has("--max-mamba-cache-size")) s.max_mamba_cache_size = positive(int_flag(f, "--max-mamba-cache-size", 1), "--max-mamba-cache-size");
      if (f.has("--mamba-ssm-dtype")) s.mamba_ssm_dtype = f.get("--mamba-ssm-dtype");
      if (f.has("--swa-full-tokens-ratio")) s.swa_full_tokens_ratio = fraction_flag(f, "--swa-full-tokens-ratio", 0.8);
      if (f.has("--mamba-full-memory-ratio")) s.mamba_full_memory_ratio = detail::plain_float(f.get("--mamba-full-memory-ratio"), "--mamba-full-memory-ratio");
      s.disable_radix_cache = bool_flag(f, "--disable-radix-cache");
      s.disable_hybrid_swa_memory = bool_flag(f, "--disable-hybrid-swa-memory");
      s.blackwell = blackwell;
      s.gpu_memory_bytes = acc.memory_bytes;
      s.free_before_bytes = acc.memory_bytes > kCudaContextBytes ? acc.memory_bytes - kCudaContextBytes : 0;
      s.weights_bytes = ceil_div(wb.total, checked_mul(tp, pp));
      r.notes.push_back("estimated per GPU: free memory before weights " + format_gib(s.free_before_bytes) +
                        " (total less 0.5 GiB CUDA context), weights " + format_gib(s.weights_bytes) + "");
      SglangResult e = sglang_profile(m, s);
      r.starts = e.starts;
      r.kv_budget_bytes = e.rest_bytes;
      r.kv_cache_tokens = e.max_total_num_tokens;
      r.context = e.context_length;
      r.max_concurrency = e.max_concurrency;
      r.max_fitting_context = std::min(e.context_length, e.max_total_num_tokens);
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      add_check("starts", e.starts, "a KV pool > 0 tokens", format_count(e.max_total_num_tokens) + " tokens",
                e.starts ? "SGLang starts" : "SGLang fails at start-up: " + e.error);
      if (e.starts && e.max_total_num_tokens < e.context_length)
        r.notes.push_back("the KV pool (" + format_count(e.max_total_num_tokens) + " tokens) is smaller than context_length " +
                          format_count(e.context_length) + ": one full-length request cannot be served");
      r.engine_result = std::move(e);
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
      LlamaCppResult e = llamacpp_profile(m, l);
      // Layer split over the GPUs: weights + cache + compute buffer must fit on the devices.
      const std::uint64_t compute = checked_add(checked_product({e.n_ubatch, m.dims.vocab_size, 4}), 256 * MiB);
      const std::uint64_t need = checked_add(checked_add(wb.total, e.total_bytes), compute);
      const std::uint64_t n_gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : 1);
      const std::uint64_t have = checked_mul(n_gpus, acc.memory_bytes > kCudaContextBytes ? acc.memory_bytes - kCudaContextBytes : 0);
      r.kv_budget_bytes = have > checked_add(wb.total, compute) ? (have - wb.total - compute) / n_gpus : 0;
      r.starts = need <= have;
      r.kv_cache_tokens = checked_mul(e.cells, e.n_stream);
      r.context = e.n_ctx_seq;
      r.max_concurrency = e.kv_unified ? static_cast<double>(e.n_ctx / e.n_ctx_seq) : static_cast<double>(e.n_seq_max);
      r.max_fitting_context = e.n_ctx_seq;
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      r.notes.push_back("estimated: weights " + format_gib(wb.total) + " + cache " + format_gib(e.total_bytes) +
                        " + compute buffer " + format_gib(compute) + " across " + std::to_string(n_gpus) +
                        " GPU(s) (layer split), 0.5 GiB CUDA context each; --fit is not modelled");
      add_check("starts", r.starts, "weights + cache + compute <= GPU memory", format_gib(need) + " of " + format_gib(have) + "",
                r.starts ? "llama-server fits: " + format_gib(need) + " of " + format_gib(have) + ""
                         : "llama-server does not fit: weights + KV cache + compute buffer need " + format_gib(need) +
                               " but " + std::to_string(n_gpus) + " x " + acc.name + " hold " + format_gib(have) + "");
      r.engine_result = std::move(e);
      tp = 1;
      pp = n_gpus;
      break;
    }
    case EngineKind::trtllm: {
      TrtllmOptions t;
      t.tp_size = positive(int_flag(f, "--tp_size", 1), "--tp_size");
      t.pp_size = positive(int_flag(f, "--pp_size", 1), "--pp_size");
      t.max_seq_len = int_flag(f, "--max_seq_len", 0);
      t.max_batch_size = positive(int_flag(f, "--max_batch_size", 2048), "--max_batch_size");
      std::uint64_t max_num_tokens = positive(int_flag(f, "--max_num_tokens", 8192), "--max_num_tokens");
      t.free_gpu_memory_fraction = fraction_flag(f, "--kv_cache_free_gpu_memory_fraction", 0.9);
      if (f.has("--extra_llm_api_options"))
        read_trtllm_extra_options(f.get("--extra_llm_api_options"), d, t, max_num_tokens, r.notes, unmodelled);
      tp = t.tp_size;
      pp = t.pp_size;
      if (refused(t.max_seq_len)) return r;
      t.gpu_memory_bytes = acc.memory_bytes;
      const std::uint64_t weights = ceil_div(wb.total, checked_mul(tp, pp));
      t.peak_bytes = checked_add(checked_add(weights, activation_estimate(m, max_num_tokens, tp)), kNonTorchBytes);
      TrtllmResult pre = trtllm_profile(m, t);  // for the Mamba slots
      t.peak_bytes = checked_add(t.peak_bytes, pre.mamba_bytes);
      r.notes.push_back("estimated per GPU: profiled peak " + format_gib(t.peak_bytes) + " (weights " + format_gib(weights) +
                        " + activations + 0.5 GiB non-torch" + (pre.mamba_bytes ? " + Mamba slots" : std::string()) + ")");
      if (t.peak_bytes >= t.gpu_memory_bytes) t.peak_bytes = t.gpu_memory_bytes;
      TrtllmResult e = trtllm_profile(m, t);
      r.starts = e.starts && t.peak_bytes < t.gpu_memory_bytes;
      r.kv_budget_bytes = e.kv_memory_bytes;
      r.kv_cache_tokens = e.max_tokens;
      r.context = e.max_seq_len;
      r.max_concurrency = e.max_concurrency;
      r.max_fitting_context = e.max_seq_len;
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      cap_concurrency(t.max_batch_size, "max_batch_size");
      add_check("starts", r.starts, "weights + a KV block fit", r.starts ? "fits" : "does not fit",
                r.starts ? "TensorRT-LLM starts" : "TensorRT-LLM cannot start: the weights and profiled peak leave no KV cache memory");
      r.engine_result = std::move(e);
      break;
    }
  }
  r.tp = tp;
  r.pp = pp;
  r.gpus_needed = checked_product({tp, pp, dp});
  r.gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : r.gpus_needed);
  r.weights_bytes_per_gpu = ceil_div(wb.total, checked_mul(tp, pp));
  if (d.engine != EngineKind::llamacpp)
    add_check("gpus", r.gpus >= r.gpus_needed, std::to_string(r.gpus_needed), std::to_string(r.gpus),
              r.gpus >= r.gpus_needed ? "GPU count suffices"
                                      : "the command needs " + std::to_string(r.gpus_needed) + " GPUs (tp x pp" +
                                            std::string(dp > 1 ? " x dp" : "") + ") but " +
                                            (o.gpus ? "--gpus is " : d.gpus ? "the deployment gives " : "--gpus is ") + std::to_string(r.gpus));
  if (!unmodelled.empty()) {
    std::string s;
    for (const auto& x : unmodelled) s += (s.empty() ? "" : ", ") + x;
    add_check("modelled", false, "every flag that takes GPU memory modelled", s,
              s + " takes GPU memory (or changes the model) in a way kvplan does not model, so a pass could be wrong; "
                  "check without it, or measure on the GPU");
  }
  if (require_context) {
    const bool ok = r.starts && r.context >= *require_context && r.max_fitting_context >= *require_context;
    add_check("context", ok, fmt_ctx(*require_context), fmt_ctx(std::min(r.context, r.max_fitting_context)),
              ok ? "context " + fmt_ctx(r.context) + " >= " + fmt_ctx(*require_context)
                 : "required context " + fmt_ctx(*require_context) + " tokens, but the deployment serves at most " +
                       fmt_ctx(r.starts ? std::min(r.context, r.max_fitting_context) : r.max_fitting_context) + " tokens per request");
  }
  if (require_concurrency) {
    const bool ok = r.starts && r.max_concurrency + 1e-9 >= static_cast<double>(*require_concurrency);
    add_check("concurrency", ok, std::to_string(*require_concurrency), format_fixed(r.max_concurrency, 2),
              ok ? "concurrency " + format_fixed(r.max_concurrency, 2) + "x >= " + std::to_string(*require_concurrency)
                 : "required concurrency " + std::to_string(*require_concurrency) + " at " + fmt_ctx(r.context) +
                       " tokens, but the deployment holds " + format_fixed(r.max_concurrency, 2) + "x");
  }
  return r;
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
  int code = 0;
  for (const auto& c : outcomes) code = std::max(code, c.exit_code());
  return code;
}

}  // namespace kvplan
