// SGLang profile: mem_fraction_static (and its default heuristic), cell size per token, page
// rounding, the padding row/page, hybrid SWA split and Mamba pool split. Rules: docs/engines.md
// section "SGLang" (model_runner_kv_cache_mixin.py, server_args.py, memory_pool.py).
#include <algorithm>
#include <cmath>
#include <variant>

#include "kvplan/checked.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/units.h"
#include "kvplan/text.h"

namespace kvplan {

namespace {

Dtype sglang_kv_dtype(const ModelSpec& m, const std::string& s) {
  if (s == "auto") return serving_dtype(m);
  if (s == "fp8_e4m3" || s == "fp8") return Dtype::fp8_e4m3;
  if (s == "fp8_e5m2") return Dtype::fp8_e5m2;
  if (s == "bf16" || s == "bfloat16") return Dtype::bf16;
  if (s == "fp16" || s == "float16") return Dtype::fp16;
  throw InputError::value("--kv-cache-dtype", s, "auto, fp8_e4m3, fp8_e5m2, bf16 or fp16");
}

}  // namespace

SglangResult sglang_profile(const ModelSpec& m, const SglangOptions& o) {
  SglangResult r;
  if (o.tp_size == 0) throw InputError::value("--tp-size", "0", "a positive integer");
  if (o.pp_size == 0) throw InputError::value("--pp-size", "0", "a positive integer");
  if (o.dp_size == 0) throw InputError::value("--dp-size", "0", "a positive integer");
  const std::uint64_t attn_tp = o.enable_dp_attention ? std::max<std::uint64_t>(1, o.tp_size / o.dp_size) : o.tp_size;
  r.context_length = o.context_length ? o.context_length : m.dims.max_position_embeddings;
  if (r.context_length == 0) throw InputError::value("--context-length", "0", "a positive length");
  if (!o.context_length)  // the engine's own default length, stated (docs/cli.md "Default length")
    r.notes.push_back("--context-length not given: the config's maximum length, " + format_count(r.context_length, "token") +
                      " (SGLang's default)");
  Dtype kvd = sglang_kv_dtype(m, o.kv_cache_dtype);
  // DeepSeek DSA/NSA (an MLA layer with the indexer): server_args rewrites "auto" before the
  // model runner reads the checkpoint, to fp8_e4m3 on SM >= 10 and bfloat16 below
  // (ServerArgs._set_default_nsa_kv_cache_dtype: `"fp8_e4m3" if major >= 10 else "bfloat16"`).
  bool nsa = false;
  for (const auto& l : m.layers)
    for (const auto& c : l.mixers)
      if (const auto* x = std::get_if<Mla>(&c); x && x->index_head_dim) nsa = true;
  if (o.kv_cache_dtype == "auto" && nsa) {
    kvd = o.blackwell ? Dtype::fp8_e4m3 : Dtype::bf16;
    r.notes.push_back(std::string("DeepSeek DSA/NSA model: SGLang sets --kv-cache-dtype ") +
                      (o.blackwell ? "fp8_e4m3 (SM100+: 656-byte MLA cells plus the indexer's 132)"
                                   : "bfloat16 (below SM100; fp8_e4m3 on Blackwell)"));
  } else if (o.kv_cache_dtype == "auto") {
    if (const auto ck = checkpoint_kv_cache_dtype(m, EngineKind::sglang, &r.notes)) kvd = *ck;
  }
  const std::uint64_t e = row_bytes(kvd, 1);
  const bool has_mla = m.has_kind("mla");

  // Page size: the attention backend's.
  std::string backend = ascii_lower(o.attention_backend);
  if (backend.empty()) backend = o.blackwell ? (has_mla ? "flashinfer" : "trtllm_mha") : "fa3";
  std::uint64_t page = o.page_size.value_or(1);
  if (backend == "flashmla") page = 64;
  else if (backend == "cutlass_mla") page = 128;
  else if (backend == "trtllm_mla") page = 64;
  else if (backend == "trtllm_mha") page = 64;
  else if (backend == "fa4" && !has_mla) page = 128;
  else if (backend != "fa3" && backend != "flashinfer" && backend != "triton" && backend != "fa4" && backend != "torch_native")
    throw InputError::value("--attention-backend", o.attention_backend,
                            "fa3, flashinfer, triton, fa4, flashmla, cutlass_mla, trtllm_mla or trtllm_mha");
  if (page == 0) throw InputError::value("--page-size", "0", "a positive integer");
  r.page_size = page;

  // Cell size per token (one rank): full layers, sliding/chunked layers, and the Mamba state.
  std::uint64_t k_full = 0, full_cell = 0, swa_cell = 0, n_full = 0, n_swa = 0, k_row = 0, v_row = 0, per_req = 0;
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers) {
    std::visit(
        [&](const auto& c) {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, Attention>) {
            const AttentionRowBytes rb = attention_row_bytes(c, kvd, kvd, attn_tp);
            const std::uint64_t kr = rb.k_bytes, vr = rb.v_bytes;
            k_row = checked_add(k_row, kr);
            v_row = checked_add(v_row, vr);
            if (std::holds_alternative<Attention::All>(c.span)) {
              full_cell = checked_add(full_cell, kr + vr);
              k_full = checked_add(k_full, kr);
              n_full++;
            } else {
              swa_cell = checked_add(swa_cell, kr + vr);
              n_swa++;
            }
          } else if constexpr (std::is_same_v<T, Mla>) {
            std::uint64_t row = mla_row_bytes(c, kvd, /*with_indexer=*/false);
            if (c.index_head_dim) {
              if (e == 1) row = c.kv_lora_rank + c.kv_lora_rank / 128 * 4 + c.rope_dim * 2;  // NSA fp8 layout
              row = checked_add(row, c.index_head_dim + c.index_head_dim / 128 * 4);       // indexer key + scales
            }
            k_row = checked_add(k_row, row);
            k_full = checked_add(k_full, row);
            full_cell = checked_add(full_cell, row);
            n_full++;
          } else if constexpr (std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> ||
                               std::is_same_v<T, ShortConv>) {
            // SGLang keeps the conv state in bf16 and the SSM state in --mamba-ssm-dtype.
            const Dtype ssm = parse_dtype(o.mamba_ssm_dtype, "--mamba-ssm-dtype");
            const StateBytes sb = state_bytes(mixer, StateOptions{Dtype::bf16, ssm, o.tp_size, 0});
            per_req = checked_add(per_req, sb.total_bytes(), "SGLang mamba_cache_per_req");
          } else if constexpr (std::is_same_v<T, SharedKv> || std::is_same_v<T, NoCache>) {
            // reads another layer's cache / holds none
          } else {
            static_assert(unhandled_kind<T>, "SGLang: a layer kind without a cache rule");
          }
        },
        mixer);
  }
  const bool hybrid_swa = n_swa > 0 && !o.disable_hybrid_swa_memory;
  r.cell_size = checked_add(full_cell, swa_cell);
  if (r.cell_size == 0) throw UnsupportedArchitecture::field(m.source, m.model_type, "layers", "SGLang: no attention layer holds a KV cache");
  r.mamba_cache_per_req = per_req;

  // mem_fraction_static.
  if (o.mem_fraction_static) {
    r.mem_fraction_static = *o.mem_fraction_static;
    if (!(r.mem_fraction_static > 0 && r.mem_fraction_static < 1))
      throw InputError::value("--mem-fraction-static", format_fixed(r.mem_fraction_static, 3), "a fraction in (0, 1)");
  }
  if (o.gpu_memory_bytes) {
    const double gpu_mib = static_cast<double>(o.gpu_memory_bytes) / static_cast<double>(MiB);
    const bool tp4 = o.tp_size >= 4;
    std::uint64_t cps, gbs;
    if (gpu_mib < 20 * 1024) cps = 2048, gbs = 8;
    else if (gpu_mib < 35 * 1024) cps = 2048, gbs = tp4 ? 80 : 24;
    else if (gpu_mib < 60 * 1024) cps = 4096, gbs = tp4 ? 160 : 32;
    else if (gpu_mib < 160 * 1024) cps = 8192, gbs = tp4 ? 512 : 256;
    else cps = 16384, gbs = 512;
    r.chunked_prefill_size = o.chunked_prefill_size.value_or(cps);
    r.cuda_graph_max_bs = o.cuda_graph_max_bs.value_or(gbs);
    double reserved = 512.0 + 1.5 * static_cast<double>(std::max<std::uint64_t>(r.chunked_prefill_size, 2048)) +
                      2.0 * static_cast<double>(r.cuda_graph_max_bs) +
                      1024.0 * static_cast<double>(o.tp_size * o.pp_size) / 8.0;
    if (gpu_mib > 60 * 1024) reserved = std::max(reserved, 10240.0);
    r.reserved_mib = static_cast<std::uint64_t>(reserved);
    if (!o.mem_fraction_static) {
      r.mem_fraction_static = std::round((gpu_mib - reserved) / gpu_mib * 1000.0) / 1000.0;
      r.mem_fraction_default = true;
    }
  } else if (!o.mem_fraction_static && !o.rest_bytes) {
    throw InputError::value("SGLang memory", "none", "the KV budget (rest bytes) or a GPU (--gpu)");
  }

  // KV budget after weights: rest = free_now - free_before * (1 - mfs).
  double rest;
  if (o.rest_bytes) {
    rest = static_cast<double>(*o.rest_bytes);
  } else {
    const double before = static_cast<double>(o.free_before_bytes) / static_cast<double>(GiB);
    const double now = static_cast<double>(o.free_before_bytes) / static_cast<double>(GiB) -
                       static_cast<double>(o.weights_bytes) / static_cast<double>(GiB);
    rest = (now - before * (1.0 - r.mem_fraction_static)) * static_cast<double>(GiB);
  }
  if (rest <= 0) {
    r.starts = false;
    r.error = "Not enough memory. Please try to increase --mem-fraction-static.";
    r.log_lines.push_back("RuntimeError: " + r.error);
    return r;
  }
  std::uint64_t rest_b = static_cast<std::uint64_t>(rest);
  r.rest_bytes = rest_b;

  // Mamba hybrids: split the rest between Mamba slots and full-attention KV.
  if (per_req) {
    std::uint64_t slots;
    if (o.max_mamba_cache_size) slots = *o.max_mamba_cache_size;
    else if (o.disable_radix_cache && o.max_running_requests) slots = *o.max_running_requests;
    else slots = static_cast<std::uint64_t>(static_cast<double>(rest_b) * o.mamba_full_memory_ratio /
                                            (1.0 + o.mamba_full_memory_ratio) / static_cast<double>(per_req));
    r.mamba_slots = slots;
    r.mamba_bytes = checked_mul(slots, per_req, "SGLang Mamba pool");
    if (r.mamba_bytes >= rest_b) {
      r.starts = false;
      r.error = "Not enough memory. Please try to increase --mem-fraction-static.";
      r.log_lines.push_back("RuntimeError: " + r.error);
      return r;
    }
    rest_b -= r.mamba_bytes;
    r.log_lines.push_back("Mamba Cache is allocated. max_mamba_cache_size: " + std::to_string(slots));
  }

  std::uint64_t tokens = rest_b / r.cell_size;
  if (hybrid_swa) {
    // full = total * (F + S) / (F + ratio * S), swa = ratio * full; both to whole pages.
    const double F = static_cast<double>(full_cell), S = static_cast<double>(swa_cell), ratio = o.swa_full_tokens_ratio;
    std::uint64_t full = n_full ? static_cast<std::uint64_t>(static_cast<double>(tokens) * (F + S) / (F + ratio * S)) : 0;
    std::uint64_t sw = n_full ? static_cast<std::uint64_t>(ratio * static_cast<double>(full)) : tokens;
    if (o.max_total_tokens) full = std::min(full, *o.max_total_tokens);
    r.full_tokens = full / page * page;
    r.swa_tokens = sw / page * page;
    tokens = n_full ? r.full_tokens : r.swa_tokens;
  } else {
    if (o.max_total_tokens) tokens = std::min(tokens, *o.max_total_tokens);
    tokens = tokens / page * page;
  }
  r.max_total_num_tokens = tokens;
  r.rows_allocated = checked_add(tokens, page);
  if (tokens == 0) {
    r.starts = false;
    r.error = "Not enough memory. Please try to increase --mem-fraction-static.";
    r.log_lines.push_back("RuntimeError: " + r.error);
    return r;
  }
  if (hybrid_swa) {
    const std::uint64_t full_rows = n_full ? r.full_tokens + page : 0, swa_rows = r.swa_tokens + page;
    r.k_bytes = checked_add(checked_mul(full_rows, k_full), checked_mul(swa_rows, k_row - k_full));
    r.v_bytes = checked_add(checked_mul(full_rows, full_cell - k_full), checked_mul(swa_rows, swa_cell - (k_row - k_full)));
  } else {
    r.k_bytes = checked_mul(r.rows_allocated, has_mla ? r.cell_size : k_row, "SGLang K pool");
    r.v_bytes = has_mla ? 0 : checked_mul(r.rows_allocated, v_row, "SGLang V pool");
  }
  r.kv_bytes = checked_add(r.k_bytes, r.v_bytes);

  const double cap = static_cast<double>(tokens) / static_cast<double>(r.context_length) * 512.0;
  std::uint64_t mrr = std::min<std::uint64_t>(std::max<std::uint64_t>(static_cast<std::uint64_t>(cap), 2048), 4096);
  if (o.max_running_requests) mrr = *o.max_running_requests;
  if (per_req) {
    const std::uint64_t ratio = o.disable_radix_cache ? 1 : 3;
    mrr = std::min(mrr, r.mamba_slots / ratio);
  }
  r.max_running_requests = mrr;
  r.max_concurrency = std::min(static_cast<double>(tokens) / static_cast<double>(r.context_length), static_cast<double>(mrr));

  if (has_mla)
    r.log_lines.push_back("KV Cache is allocated. #tokens: " + std::to_string(tokens) +
                          ", KV size: " + format_fixed(static_cast<double>(r.kv_bytes) / static_cast<double>(GiB), 2) + " GB");
  else
    r.log_lines.push_back("KV Cache is allocated. #tokens: " + std::to_string(tokens) +
                          ", K size: " + format_fixed(static_cast<double>(r.k_bytes) / static_cast<double>(GiB), 2) +
                          " GB, V size: " + format_fixed(static_cast<double>(r.v_bytes) / static_cast<double>(GiB), 2) + " GB");
  r.log_lines.push_back("max_total_num_tokens=" + std::to_string(tokens) + ", max_running_requests=" + std::to_string(mrr) +
                        ", context_len=" + std::to_string(r.context_length));
  return r;
}

}  // namespace kvplan
