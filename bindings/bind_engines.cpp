// Engine profiles: kvplan.engine("vllm", model, max_model_len=..., ...) -> the engine's own figures.
// Keyword names are the options structs' field names (engines.h), i.e. the engines' flag names
// with underscores; byte counts accept "80GB" strings, token counts "32k".
#include <functional>
#include <map>

#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace kvplan::py {
namespace {

template <class O>
using Setters = std::map<std::string, std::function<void(O&, pyb::handle)>>;

bool bool_arg(pyb::handle h, const char* what) {
  if (!pyb::isinstance<pyb::bool_>(h)) throw InputError::value(what, pyb::str(pyb::repr(h)).cast<std::string>(), "True or False");
  return h.cast<bool>();
}
std::vector<std::uint64_t> list_arg(pyb::handle h, const char* what) {
  std::vector<std::uint64_t> out;
  for (auto v : h) out.push_back(tokens_arg(v, what));
  return out;
}

#define KV_TOK(f) {#f, [](O& o, pyb::handle h) { o.f = tokens_arg(h, #f); }}
#define KV_OPT_TOK(f) {#f, [](O& o, pyb::handle h) { o.f = opt_tokens_arg(h, #f); }}
#define KV_CNT(f) {#f, [](O& o, pyb::handle h) { o.f = count_arg(h, #f, 1); }}
#define KV_BYTES(f) {#f, [](O& o, pyb::handle h) { o.f = bytes_arg(h, #f); }}
#define KV_OPT_BYTES(f) {#f, [](O& o, pyb::handle h) { o.f = opt_bytes_arg(h, #f); }}
#define KV_F(f) {#f, [](O& o, pyb::handle h) { o.f = float_arg(h, #f); }}
#define KV_OPT_F(f) {#f, [](O& o, pyb::handle h) { if (!h.is_none()) o.f = float_arg(h, #f); else o.f.reset(); }}
#define KV_B(f) {#f, [](O& o, pyb::handle h) { o.f = bool_arg(h, #f); }}
#define KV_S(f) {#f, [](O& o, pyb::handle h) { o.f = str_arg(h, #f); }}
#define KV_LIST(f) {#f, [](O& o, pyb::handle h) { o.f = list_arg(h, #f); }}

template <class O>
O apply(const Setters<O>& setters, const pyb::dict& kw, std::string_view engine) {
  O o;
  for (auto [k, v] : kw) {
    const auto key = pyb::str(k).cast<std::string>();
    auto it = setters.find(key);
    if (it == setters.end()) {
      std::string known;
      for (const auto& [n, _] : setters) known += (known.empty() ? "" : ", ") + n;
      throw InputError::value(std::string(engine) + " option", key, "one of " + known);
    }
    it->second(o, v);
  }
  return o;
}

const Setters<VllmOptions>& vllm_setters() {
  using O = VllmOptions;
  static const Setters<O> s = {
      KV_TOK(max_model_len), KV_OPT_TOK(block_size), KV_S(kv_cache_dtype), KV_CNT(tensor_parallel_size),
      KV_CNT(pipeline_parallel_size), KV_TOK(max_num_batched_tokens), KV_S(attention_backend), KV_B(blackwell),
      KV_B(enable_prefix_caching), KV_S(mamba_cache_mode), KV_TOK(mamba_chunk_size), KV_S(mamba_cache_dtype),
      KV_S(mamba_ssm_cache_dtype), KV_TOK(num_speculative_tokens), KV_B(disable_hybrid_kv_cache_manager),
      KV_OPT_TOK(num_gpu_blocks_override), KV_OPT_BYTES(available_kv_bytes), KV_OPT_BYTES(kv_cache_memory_bytes),
      KV_F(gpu_memory_utilization), KV_BYTES(gpu_memory_bytes), KV_BYTES(weights_bytes),
      KV_BYTES(activation_peak_bytes), KV_BYTES(non_torch_bytes), KV_BYTES(cudagraph_bytes)};
  return s;
}
const Setters<LlamaCppOptions>& llamacpp_setters() {
  using O = LlamaCppOptions;
  static const Setters<O> s = {
      KV_TOK(ctx_size), KV_OPT_TOK(parallel), KV_B(server), KV_B(kv_unified), KV_S(cache_type_k),
      KV_S(cache_type_v), KV_TOK(batch_size), KV_TOK(ubatch_size), KV_B(swa_full), KV_S(flash_attn),
      KV_B(mla_v_less)};
  return s;
}
const Setters<SglangOptions>& sglang_setters() {
  using O = SglangOptions;
  static const Setters<O> s = {
      KV_TOK(context_length), KV_CNT(tp_size), KV_CNT(pp_size), KV_CNT(dp_size), KV_B(enable_dp_attention),
      KV_OPT_F(mem_fraction_static), KV_OPT_TOK(page_size), KV_S(attention_backend), KV_B(blackwell),
      KV_S(kv_cache_dtype), KV_OPT_TOK(max_total_tokens), KV_OPT_TOK(max_running_requests),
      KV_OPT_TOK(chunked_prefill_size), KV_OPT_TOK(cuda_graph_max_bs), KV_OPT_BYTES(rest_bytes),
      KV_BYTES(gpu_memory_bytes), KV_BYTES(free_before_bytes), KV_BYTES(weights_bytes), KV_F(swa_full_tokens_ratio),
      KV_B(disable_hybrid_swa_memory), KV_F(mamba_full_memory_ratio), KV_OPT_TOK(max_mamba_cache_size),
      KV_S(mamba_ssm_dtype), KV_B(disable_radix_cache)};
  return s;
}
const Setters<TrtllmOptions>& trtllm_setters() {
  using O = TrtllmOptions;
  static const Setters<O> s = {
      KV_TOK(tokens_per_block), KV_F(free_gpu_memory_fraction), KV_OPT_TOK(max_tokens),
      KV_OPT_BYTES(max_gpu_total_bytes), KV_S(kv_cache_dtype), KV_CNT(tp_size), KV_CNT(pp_size),
      KV_B(enable_attention_dp), KV_LIST(max_attention_window), KV_B(cpp_share_policy), KV_B(cpp_rounding),
      KV_TOK(max_seq_len), KV_TOK(max_batch_size), KV_S(mamba_ssm_cache_dtype), KV_OPT_BYTES(kv_memory_bytes),
      KV_BYTES(gpu_memory_bytes), KV_BYTES(peak_bytes), KV_BYTES(temp_kv_bytes)};
  return s;
}

template <class O>
pyb::list option_names(const Setters<O>& s) {
  pyb::list out;
  for (const auto& [n, _] : s) out.append(n);
  return out;
}

}  // namespace
}  // namespace kvplan::py

void bind_engines(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;
  m.def("_engine", [](const std::string& engine, pyb::handle model, const pyb::dict& kw, bool text) -> pyb::object {
    const ModelSpec& spec = model_arg(model).get();
    auto out = [&](const auto& r) -> pyb::object {
      if (text) return pyb::str(format_engine_text(r));
      return to_python(to_json(r));
    };
    switch (parse_engine(engine)) {
      case EngineKind::vllm: return out(vllm_profile(spec, apply(vllm_setters(), kw, "vllm")));
      case EngineKind::llamacpp: return out(llamacpp_profile(spec, apply(llamacpp_setters(), kw, "llama.cpp")));
      case EngineKind::sglang: return out(sglang_profile(spec, apply(sglang_setters(), kw, "sglang")));
      case EngineKind::trtllm: return out(trtllm_profile(spec, apply(trtllm_setters(), kw, "trtllm")));
    }
    return pyb::none();
  }, "engine"_a, "model"_a, "options"_a, "text"_a = false);
  m.def("engine_options", [](const std::string& engine) -> pyb::list {
    switch (parse_engine(engine)) {
      case EngineKind::vllm: return option_names(vllm_setters());
      case EngineKind::llamacpp: return option_names(llamacpp_setters());
      case EngineKind::sglang: return option_names(sglang_setters());
      case EngineKind::trtllm: return option_names(trtllm_setters());
    }
    return pyb::list();
  }, "engine"_a, "The keyword options kvplan.engine(engine, ...) accepts.");
}
