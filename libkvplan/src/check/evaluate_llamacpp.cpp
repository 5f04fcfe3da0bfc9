// llama.cpp's evaluation for kvplan check: llama-server's flags as common/arg.cpp reads them,
// llamacpp_profile's KV cache and compute buffer, and whether weights, cache and buffers fit the
// GPUs (the layer split spreads them) at each end of the memory band. The verdict around it:
// check.cpp.
#include <string>

#include "check/check_context.h"
#include "deploy/flags.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/text.h"
#include "kvplan/units.h"

namespace kvplan::detail {

namespace {

// llama-server's flags as the profile's options.
LlamaCppOptions llamacpp_options(const ParsedFlags& f) {
  LlamaCppOptions l;
  l.ctx_size = int_flag(f, "--ctx-size", 0);
  if (f.has("--parallel")) {
    // llama.cpp: -np -1 is "auto" (the server's default slots); 0 and below -1 are refused.
    const std::int64_t n = plain_int(f.get("--parallel"), "--parallel");
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
  return l;
}

// --cpu-moe / --n-cpu-moe N keep routed experts in host memory: llama.cpp common/arg.cpp adds
// a CPU buffer override for LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps"
// (common/common.h), on every layer or on "blk\\.i" for i < N; shared experts (_shexp) stay.
// The bytes that stay in host memory (0 where kvplan cannot tell, listed as not modelled).
std::uint64_t llamacpp_host_experts(CheckContext& c) {
  std::uint64_t host_experts = 0;
  const bool cpu_moe = bool_flag(c.f, "--cpu-moe");
  const std::uint64_t n_cpu_moe = c.f.has("--n-cpu-moe") ? plain_uint(c.f.get("--n-cpu-moe"), "--n-cpu-moe") : 0;
  if ((cpu_moe || n_cpu_moe) && c.m.dims.num_experts) {
    const std::string flag = cpu_moe ? "--cpu-moe" : "--n-cpu-moe " + std::to_string(n_cpu_moe);
    auto not_modelled = [&](const char* why) {
      c.unmodelled.push_back(flag);
      c.unmodelled_why[flag] = why;
    };
    if (c.wb.experts == 0)
      not_modelled("the routed experts' share of the weights is not known (--weights gives a total only); they are "
                   "counted on the GPU");
    else if (cpu_moe || n_cpu_moe >= c.m.num_layers())
      host_experts = c.wb.experts;
    else if (c.wb.layer_experts.size() == c.m.num_layers())
      for (std::uint64_t i = 0; i < n_cpu_moe; ++i) host_experts = checked_add(host_experts, c.wb.layer_experts[i]);
    else
      not_modelled("which layers hold how many expert bytes is known only from the checkpoint's tensor list (a GGUF "
                   "file or safetensors headers); the experts are counted on the GPU");
    if (host_experts)
      c.r.notes.push_back(flag + ": " + format_gib(host_experts) + " of routed experts (" + c.wb.source +
                          ") stay in host memory, off the GPU");
  }
  return host_experts;
}

// Weights, compute buffer, CUDA context, other processes and the cache (the log's where given)
// against the GPUs' memory at one end of the band.
BandOutcome llamacpp_at(CheckContext& c, const LlamaCppResult& e, std::uint64_t n_gpus, bool fav) {
  BandOutcome out;
  std::uint64_t cache = e.total_bytes;
  if (c.logf && c.logf->llama_kv_bytes) cache = fav ? c.logf->llama_kv_bytes->low : c.logf->llama_kv_bytes->high;
  const std::uint64_t fixed = checked_mul(n_gpus, checked_add(checked_add(c.term_at("weights", fav), c.term_at("compute buffer", fav)),
                                                               checked_add(c.term_at("CUDA context", fav), c.term_at("other processes", fav))));
  const std::uint64_t have = checked_mul(n_gpus, c.device_at(fav));
  const std::uint64_t need = checked_add(fixed, cache);
  out.starts = need <= have;
  out.kv_memory = signed_of(have / n_gpus, fixed / n_gpus);
  out.weights_exceed = c.term_at("weights", fav) >= c.device_at(fav);
  out.kv_tokens = checked_mul(e.cells, e.n_stream);
  out.context = e.n_ctx_seq;
  out.max_concurrency = e.kv_unified ? static_cast<double>(e.n_ctx / e.n_ctx_seq) : static_cast<double>(e.n_seq_max);
  out.max_fitting_context = e.n_ctx_seq;
  out.request_bytes = need > have ? need - have : 0;
  out.log_lines = e.log_lines;
  out.notes = e.notes;
  if (!out.starts)
    out.error = "weights + KV cache + compute buffer need " + format_gib(need) + " but " + std::to_string(n_gpus) + " x " +
                c.acc.name + " hold " + format_gib(have);
  out.engine_result = e;
  return out;
}

}  // namespace

bool evaluate_llamacpp(CheckContext& c) {
  const LlamaCppOptions l = llamacpp_options(c.f);
  const std::uint64_t n_gpus = c.o.gpus ? c.o.gpus : (c.d.gpus ? c.d.gpus : 1);
  const std::uint64_t host_experts = llamacpp_host_experts(c);
  c.weights_per_gpu = ceil_div(c.wb.total - host_experts, n_gpus);
  const LlamaCppResult e = llamacpp_profile(c.m, l);
  c.bin.weights_bytes = c.weights_per_gpu;
  c.bin.ubatch = e.n_ubatch;
  c.bin.llama_ctx = e.n_ctx;
  c.bin.llama_flash_attn = l.flash_attn;
  c.budget = engine_budget(c.m, c.bin);
  c.push_others("llama.cpp allocates the model, KV and compute buffers on the device: what other processes hold is not there to take");
  // The layer split spreads weights, cache and compute over the GPUs: compared in total.
  if (c.logf) {
    if (c.logf->llama_model_bytes) c.measured("weights", ByteBand{c.logf->llama_model_bytes->low / n_gpus, ceil_div(c.logf->llama_model_bytes->high, n_gpus)});
    if (c.logf->llama_compute_bytes) c.measured("compute buffer", ByteBand{c.logf->llama_compute_bytes->low / n_gpus, ceil_div(c.logf->llama_compute_bytes->high, n_gpus)});
  }
  c.evaluate = [&c, e, n_gpus](bool fav) { return llamacpp_at(c, e, n_gpus, fav); };
  c.tp = 1;
  c.pp = n_gpus;
  return true;
}

}  // namespace kvplan::detail
