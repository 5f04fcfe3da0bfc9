// SGLang's evaluation for kvplan check: python -m sglang.launch_server's flags as ServerArgs reads
// them, its budget (the free memory probed at start-up, mem_fraction_static of it), and
// sglang_profile at each end of the memory band. The verdict around it: check.cpp.
#include <algorithm>
#include <string>

#include "check/check_context.h"
#include "deploy/flags.h"
#include "kvplan/checked.h"
#include "kvplan/hardware.h"
#include "kvplan/text.h"
#include "kvplan/units.h"

namespace kvplan::detail {

namespace {

// sglang_profile at one end of the band: the free memory before the weights, and the pool the
// engine sizes from mem_fraction_static of it (or the log's token count).
BandOutcome sglang_at(CheckContext& c, const SglangOptions& s, bool fav) {
  SglangOptions x = s;
  x.gpu_memory_bytes = c.device_at(fav);
  const std::uint64_t before = checked_add(checked_add(c.term_at("CUDA context", fav), c.term_at("NCCL buffers", fav)),
                                           c.term_at("other processes", fav));
  x.free_before_bytes = x.gpu_memory_bytes > before ? x.gpu_memory_bytes - before : 0;
  x.weights_bytes = c.term_at("weights", fav);
  if (c.logf && c.logf->kv_tokens) {
    // The pool the engine allocated: "max_total_num_tokens=N" exactly, or "#tokens: N" which may
    // include the one padding page (so N - page .. N).
    SglangOptions probe = x;
    probe.rest_bytes = GiB;
    const SglangResult p = sglang_profile(c.m, probe);
    const bool rows = c.logf->lines_used.end() == std::find_if(c.logf->lines_used.begin(), c.logf->lines_used.end(), [](const std::string& l) {
                        return l.find("max_total_num_tokens=") != std::string::npos;
                      });
    const std::uint64_t tokens = rows && !fav && *c.logf->kv_tokens > p.page_size ? *c.logf->kv_tokens - p.page_size : *c.logf->kv_tokens;
    x.max_total_tokens = tokens;
    x.rest_bytes = checked_mul(checked_add(tokens, p.page_size), std::max<std::uint64_t>(p.cell_size, 1));
  }
  SglangResult e = sglang_profile(c.m, x);
  BandOutcome out;
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
}

}  // namespace

bool evaluate_sglang(CheckContext& c) {
  SglangOptions s;
  c.tp = positive(int_flag(c.f, "--tensor-parallel-size", 1), "--tensor-parallel-size");
  c.pp = positive(int_flag(c.f, "--pipeline-parallel-size", 1), "--pipeline-parallel-size");
  s.tp_size = c.tp;
  s.pp_size = c.pp;
  s.dp_size = positive(int_flag(c.f, "--data-parallel-size", 1), "--data-parallel-size");
  s.enable_dp_attention = bool_flag(c.f, "--enable-dp-attention");
  if (!s.enable_dp_attention) c.dp = s.dp_size;
  s.context_length = int_flag(c.f, "--context-length", 0);
  if (c.refused(s.context_length)) return false;
  if (c.f.has("--mem-fraction-static")) s.mem_fraction_static = fraction_flag(c.f, "--mem-fraction-static", 0.9);
  if (c.f.has("--page-size")) s.page_size = positive(int_flag(c.f, "--page-size", 1), "--page-size");
  if (c.f.has("--attention-backend")) s.attention_backend = c.f.get("--attention-backend");
  if (c.f.has("--kv-cache-dtype")) s.kv_cache_dtype = c.f.get("--kv-cache-dtype");
  if (c.f.has("--max-total-tokens")) s.max_total_tokens = positive(int_flag(c.f, "--max-total-tokens", 1), "--max-total-tokens");
  if (c.f.has("--max-running-requests")) s.max_running_requests = positive(int_flag(c.f, "--max-running-requests", 1), "--max-running-requests");
  if (const auto cp = sglang_chunked_prefill(c.f); cp.size) s.chunked_prefill_size = *cp.size;
  if (c.f.has("--cuda-graph-max-bs")) s.cuda_graph_max_bs = int_flag(c.f, "--cuda-graph-max-bs", 0);
  if (c.f.has("--max-mamba-cache-size")) s.max_mamba_cache_size = positive(int_flag(c.f, "--max-mamba-cache-size", 1), "--max-mamba-cache-size");
  if (c.f.has("--mamba-ssm-dtype")) s.mamba_ssm_dtype = c.f.get("--mamba-ssm-dtype");
  if (c.f.has("--swa-full-tokens-ratio")) s.swa_full_tokens_ratio = fraction_flag(c.f, "--swa-full-tokens-ratio", 0.8);
  if (c.f.has("--mamba-full-memory-ratio")) s.mamba_full_memory_ratio = plain_float(c.f.get("--mamba-full-memory-ratio"), "--mamba-full-memory-ratio");
  s.disable_radix_cache = bool_flag(c.f, "--disable-radix-cache");
  s.disable_hybrid_swa_memory = bool_flag(c.f, "--disable-hybrid-swa-memory");
  s.blackwell = is_blackwell(c.acc);
  c.weights_per_gpu = ceil_div(c.wb.total, checked_mul(c.tp, c.pp, kTpPp));
  c.bin.weights_bytes = c.weights_per_gpu;
  c.bin.tp = c.tp;
  c.budget = engine_budget(c.m, c.bin);
  c.push_others("python/sglang/srt/model_executor/model_runner.py: the free memory probed at start-up (get_available_gpu_memory) "
                "excludes what other processes hold; mem_fraction_static applies to it");
  if (c.logf) c.measured("weights", c.logf->weights_bytes);
  c.evaluate = [&c, s](bool fav) { return sglang_at(c, s, fav); };
  return true;
}

}  // namespace kvplan::detail
