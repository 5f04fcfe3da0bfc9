// TensorRT-LLM's evaluation for kvplan check: trtllm-serve's flags and --extra_llm_api_options
// YAML as its LLM API reads them, its budget (the profiled peak before the KV cache), and
// trtllm_profile at each end of the memory band. The verdict around it: check.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "check/check_context.h"
#include "deploy/flags.h"
#include "deploy/yaml.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/text.h"
#include "kvplan/units.h"
#include "util/config_view.h"

namespace kvplan {

namespace {

using detail::fraction_flag;
using detail::int_flag;
using detail::ParsedFlags;
using detail::positive;

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

}  // namespace

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

namespace detail {

namespace {

// trtllm_profile at one end of the band: every budget term, the Mamba slots, and the KV pool the
// engine sizes from what is left (or the log's token count).
BandOutcome trtllm_at(CheckContext& c, const TrtllmOptions& t, bool fav) {
  TrtllmOptions x = t;
  x.gpu_memory_bytes = c.device_at(fav);
  std::uint64_t peak = 0;
  // Every term at the evaluated point: its low end (favourable), high end (unfavourable), or
  // its typical value for kvplan's estimate (never the favourable end passed off as typical).
  for (const auto& term : c.budget.terms) peak = checked_add(peak, c.term_at(term.name, fav));
  TrtllmResult pre = trtllm_profile(c.m, x);  // for the Mamba slots
  peak = checked_add(peak, pre.mamba_bytes);
  const bool fits = peak < x.gpu_memory_bytes;
  x.peak_bytes = std::min(peak, x.gpu_memory_bytes);
  if (c.logf && c.logf->kv_tokens) {
    TrtllmOptions probe = x;
    probe.kv_memory_bytes = GiB;
    const TrtllmResult p = trtllm_profile(c.m, probe);
    x.max_tokens = *c.logf->kv_tokens;
    x.kv_memory_bytes = checked_mul(checked_add(*c.logf->kv_tokens, x.tokens_per_block), std::max<std::uint64_t>(p.bytes_per_token, 1));
  }
  TrtllmResult e = trtllm_profile(c.m, x);
  BandOutcome out;
  out.starts = e.starts && (fits || x.kv_memory_bytes.has_value());
  if (!fav && !c.typical_point && out.starts && !x.kv_memory_bytes && e.estimator_bytes_per_token &&
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
  out.weights_exceed = !x.kv_memory_bytes && c.term_at("weights", fav) >= x.gpu_memory_bytes;
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
}

}  // namespace

bool evaluate_trtllm(CheckContext& c) {
  TrtllmLaunch launch = read_trtllm_launch(c.d);
  const TrtllmOptions t = launch.options;
  const std::uint64_t max_num_tokens = launch.max_num_tokens;
  c.r.notes.insert(c.r.notes.end(), launch.notes.begin(), launch.notes.end());
  c.unmodelled.insert(c.unmodelled.end(), launch.unmodelled.begin(), launch.unmodelled.end());
  for (const auto& x : launch.unmodelled)
    c.unmodelled_why[x] = x.find("speculative_config") != std::string::npos ? "a draft model or MTP layers (weights, KV) and draft-token buffers"
                          : x.find("lora_config") != std::string::npos  ? "LoRA adapters' weights and their cache"
                                                                        : "beam search keeps KV blocks per beam";
  c.tp = t.tp_size;
  c.pp = t.pp_size;
  if (c.refused(t.max_seq_len)) return false;
  c.weights_per_gpu = ceil_div(c.wb.total, checked_mul(c.tp, c.pp, kTpPp));
  c.bin.weights_bytes = c.weights_per_gpu;
  c.bin.tp = c.tp;
  c.bin.max_num_batched_tokens = max_num_tokens;
  c.budget = engine_budget(c.m, c.bin);
  c.push_others("tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator: the profiled peak adds the device's used memory beyond "
                "torch's (total - free, other processes included) before (total - peak) x free_gpu_memory_fraction");
  if (c.logf) c.measured("weights", c.logf->weights_bytes);
  c.evaluate = [&c, t](bool fav) { return trtllm_at(c, t, fav); };
  return true;
}

}  // namespace detail

}  // namespace kvplan
