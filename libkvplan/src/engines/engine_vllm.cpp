// vLLM (v1) profile: per-layer KV cache specs -> page sizes -> groups -> num_blocks, and the
// figures vLLM logs. Rules: docs/engines.md section "vLLM" (kv_cache_interface.py,
// kv_cache_utils.py, platforms/interface.py, gpu_worker.py).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <variant>

#include "kvplan/budget.h"
#include "kvplan/checked.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/units.h"
#include "kvplan/text.h"

namespace kvplan {

namespace {

enum class SpecType { full, sliding, chunked, mla, mamba };

std::string_view spec_type_name(SpecType t) {
  switch (t) {
    case SpecType::full: return "full_attention";
    case SpecType::sliding: return "sliding_window";
    case SpecType::chunked: return "chunked_local";
    case SpecType::mla: return "mla";
    case SpecType::mamba: return "mamba";
  }
  return "";
}

// One layer's KVCacheSpec on one rank.
struct Spec {
  std::uint64_t layer = 0;
  SpecType type = SpecType::full;
  std::uint64_t block = 0;       // tokens per block
  std::uint64_t token_bytes = 0; // bytes per token (attention kinds); 0 for Mamba
  std::uint64_t page = 0;        // bytes per block (Mamba: whole state, padded when set)
  std::uint64_t window = 0;      // sliding window or chunk
  bool same_kind(const Spec& o) const { return type == o.type && window == o.window; }
  bool same(const Spec& o) const { return same_kind(o) && block == o.block && page == o.page; }
};

struct Ctx {
  std::uint64_t M = 0;   // max_model_len
  std::uint64_t T = 0;   // max_num_batched_tokens
  std::uint64_t spec_tokens = 0;
  std::string mamba_mode;
};

// max_memory_usage_bytes of one layer's spec for a request of M tokens.
std::uint64_t usage_bytes(const Spec& s, const Ctx& c, std::uint64_t M) {
  switch (s.type) {
    case SpecType::full:
    case SpecType::mla:
      return checked_mul(ceil_div(M, s.block), s.page, "vLLM request bytes");
    case SpecType::sliding: {
      const std::uint64_t toks = std::min(checked_add(s.window - 1, c.T), M);
      return checked_mul(ceil_div(toks, s.block) + 1, s.page, "vLLM request bytes");
    }
    case SpecType::chunked: {
      const std::uint64_t toks = std::min(checked_add(s.window, c.T), M);
      return checked_mul(ceil_div(toks, s.block), s.page, "vLLM request bytes");
    }
    case SpecType::mamba:
      if (c.mamba_mode == "all") return checked_mul(ceil_div(M, s.block), s.page, "vLLM request bytes");
      if (c.mamba_mode == "align") return checked_mul(2 + c.spec_tokens, s.page, "vLLM request bytes");
      return checked_mul(1 + c.spec_tokens, s.page, "vLLM request bytes");
  }
  return 0;
}

std::uint64_t needed_bytes(const std::vector<Spec>& specs, const Ctx& c, std::uint64_t M) {
  std::uint64_t n = 0;
  for (const auto& s : specs) n = checked_add(n, usage_bytes(s, c, M), "vLLM request bytes");
  return n;
}

// vLLM's get_pp_indices: L // pp per stage, the remainder given to the stages before the last.
std::vector<std::pair<std::uint64_t, std::uint64_t>> pp_ranges(std::uint64_t L, std::uint64_t pp) {
  const std::vector<std::uint64_t> parts = pipeline_split(L, pp);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
  std::uint64_t start = 0;
  for (auto p : parts) {
    r.push_back({start, start + p});
    start += p;
  }
  return r;
}

Dtype vllm_kv_dtype(const ModelSpec& m, const std::string& s, bool& ds_mla) {
  ds_mla = false;
  if (s == "auto") return serving_dtype(m);
  if (s == "fp8_ds_mla") {
    ds_mla = true;
    return Dtype::fp8_e4m3;
  }
  for (const auto& [spelling, dtype] : kVllmKvCacheDtypes)
    if (s == spelling) return dtype;
  throw InputError::value("--kv-cache-dtype", s, "auto, fp8, fp8_e4m3, fp8_e5m2, fp8_ds_mla, nvfp4, bf16, fp16 or fp32");
}

Dtype state_dtype(const std::string& s, Dtype fallback, const char* flag) {
  if (s == "auto") return fallback;
  return parse_dtype(s, flag);
}

bool is_allowed_block(std::uint64_t b) {
  return b == 1 || b == 8 || b == 16 || b == 32 || b == 64 || b == 128 || b == 256;
}

}  // namespace

VllmResult vllm_profile(const ModelSpec& m, const VllmOptions& o) {
  VllmResult r;
  const std::uint64_t tp = o.tensor_parallel_size, pp = o.pipeline_parallel_size;
  if (tp == 0) throw InputError::value("--tensor-parallel-size", "0", "a positive integer");
  if (pp == 0) throw InputError::value("--pipeline-parallel-size", "0", "a positive integer");
  if (pp > m.num_layers())
    throw InputError::value("--pipeline-parallel-size", std::to_string(pp),
                            "at most the layer count (" + std::to_string(m.num_layers()) + ")");
  if (o.max_num_batched_tokens == 0) throw InputError::value("--max-num-batched-tokens", "0", "a positive integer");
  Ctx c;
  c.M = o.max_model_len ? o.max_model_len : m.dims.max_position_embeddings;
  if (c.M == 0) throw InputError::value("--max-model-len", "0", "a positive length (the config has no max_position_embeddings)");
  c.T = o.max_num_batched_tokens;
  c.spec_tokens = o.num_speculative_tokens;
  r.max_model_len = c.M;
  if (!o.max_model_len)  // the engine's own default length, stated (docs/cli.md "Default length")
    r.notes.push_back("--max-model-len not given: the config's maximum length, " + format_count(c.M, "token") + " (vLLM's default)");

  const bool has_mla = m.has_kind("mla");
  bool sparse = false;
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers)
      if (auto* a = std::get_if<Mla>(&mixer); a && a->index_head_dim) sparse = true;
  std::string kv_dtype_name = o.kv_cache_dtype;
  if (sparse && kv_dtype_name == "auto") {
    kv_dtype_name = "fp8_ds_mla";
    r.notes.push_back("DeepSeek-V3.2 (sparse MLA): kv_cache_dtype auto means fp8_ds_mla (656 B per token per layer)");
  }
  bool ds_mla = false;
  Dtype kvd = vllm_kv_dtype(m, kv_dtype_name, ds_mla);
  if (kv_dtype_name == "auto" && o.auto_kv_follows_checkpoint) {
    if (const auto ck = checkpoint_kv_cache_dtype(m, EngineKind::vllm, &r.notes)) kvd = *ck;
  } else if (kv_dtype_name == "auto" && !m.kv_cache_quant_algo.empty()) {
    r.notes.push_back("the checkpoint names kv_cache_quant_algo " + m.kv_cache_quant_algo +
                      ", which vLLM before 0.14 does not follow: the model dtype");
  }
  if (ds_mla && !has_mla) throw InputError::value("--kv-cache-dtype", "fp8_ds_mla", "an MLA model for fp8_ds_mla");

  // Block size: 16 on CUDA unless set; MLA backends impose their own.
  std::uint64_t block = o.block_size.value_or(16);
  if (o.block_size && !is_allowed_block(*o.block_size))
    throw InputError::value("--block-size", std::to_string(*o.block_size), "one of 1, 8, 16, 32, 64, 128, 256");
  std::string backend = ascii_upper(o.attention_backend);
  std::uint64_t kernel_min = 16;
  if (has_mla) {
    if (backend.empty())
      backend = sparse ? "FLASHMLA_SPARSE"
                       : (o.blackwell ? (m.dims.mla_qk_nope_head_dim == 128 ? "FLASHINFER_MLA" : "CUTLASS_MLA") : "FLASHMLA");
    if (backend == "FLASHMLA") {
      if (block % 64) block = 64;
      kernel_min = 64;
    } else if (backend == "FLASHMLA_SPARSE") {
      block = 64;
      kernel_min = 64;
    } else if (backend == "CUTLASS_MLA") {
      if (block % 128) block = 128;
      kernel_min = 128;
    } else if (backend == "FLASHINFER_MLA") {
      if (block != 32 && block % 64) block = 64;
      kernel_min = 32;
    } else if (backend == "TRITON_MLA") {
      kernel_min = 16;
    } else {
      throw InputError::value("--attention-backend", o.attention_backend,
                              "an MLA backend (FLASHMLA, FLASHMLA_SPARSE, FLASHINFER_MLA, CUTLASS_MLA, TRITON_MLA)");
    }
    if (block != o.block_size.value_or(16) || !o.block_size)
      r.notes.push_back("MLA backend " + backend + ": block size " + std::to_string(block));
  } else if (backend.empty()) {
    backend = "FLASH_ATTN";
  }

  // Mamba cache mode.
  const bool has_state = m.has_kind("mamba") || m.has_kind("linear_attention") || m.has_kind("short_conv");
  c.mamba_mode = o.mamba_cache_mode;
  if (c.mamba_mode.empty()) c.mamba_mode = o.enable_prefix_caching ? "align" : "none";
  if (c.mamba_mode != "none" && c.mamba_mode != "align" && c.mamba_mode != "all")
    throw InputError::value("--mamba-cache-mode", c.mamba_mode, "none, align or all");
  if (has_state) r.mamba_cache_mode = c.mamba_mode;
  const Dtype conv_dt = state_dtype(o.mamba_cache_dtype, serving_dtype(m), "--mamba-cache-dtype");
  const Dtype ssm_default = m.ssm_state_dtype.value_or(m.vllm_ssm_state_dtype.value_or(conv_dt));

  // Per-layer specs on one rank (before hybrid alignment).
  std::vector<Spec> all;
  std::uint64_t attn_1tok = 0;
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers) {  // each mixer of a hybrid layer is its own spec, as in vLLM
    Spec s;
    s.layer = l.index;
    bool keep = true;
    std::visit(
        [&](const auto& k) {
          using T = std::decay_t<decltype(k)>;
          if constexpr (std::is_same_v<T, Attention>) {
            r.kv_heads_per_rank = kv_heads_per_rank(k.kv_heads, tp);
            s.token_bytes = attention_row_bytes(k, kvd, kvd, tp).total_bytes();
            std::visit(overloaded{
                           [&](const Attention::All&) { s.type = SpecType::full; },
                           [&](const Attention::Window& w) { s.type = SpecType::sliding, s.window = w.tokens; },
                           [&](const Attention::Chunk& c) { s.type = SpecType::chunked, s.window = c.tokens; },
                       },
                       k.span);
            if (o.disable_hybrid_kv_cache_manager) s.type = SpecType::full, s.window = 0;
          } else if constexpr (std::is_same_v<T, Mla>) {
            s.type = SpecType::mla;
            r.kv_heads_per_rank = 1;
            s.token_bytes = ds_mla ? 656 : mla_row_bytes(k, kvd, /*with_indexer=*/false);
          } else if constexpr (std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> ||
                               std::is_same_v<T, ShortConv>) {
            s.type = SpecType::mamba;
            // Speculative tokens add conv rows to Mamba-2 and to convolved linear attention.
            bool spec_rows = false;
            if constexpr (std::is_same_v<T, Mamba2>) spec_rows = true;
            if constexpr (std::is_same_v<T, LinearAttention>) spec_rows = k.conv_kernel > 0;
            Dtype ssm_dt = ssm_default;
            if constexpr (std::is_same_v<T, LinearAttention>)
              if (k.variant == LinearAttention::Variant::kda && o.mamba_ssm_cache_dtype == "auto") ssm_dt = Dtype::fp32;
            if (o.mamba_ssm_cache_dtype != "auto") ssm_dt = parse_dtype(o.mamba_ssm_cache_dtype, "--mamba-ssm-cache-dtype");
            s.page = state_bytes(mixer, StateOptions{conv_dt, ssm_dt, tp, spec_rows ? c.spec_tokens : 0}).total_bytes();
          } else if constexpr (std::is_same_v<T, SharedKv> || std::is_same_v<T, NoCache>) {
            keep = false;  // no spec of their own
          } else {
            static_assert(unhandled_kind<T>, "vLLM: a layer kind without a KV cache spec");
          }
        },
        mixer);
    if (!keep) continue;
    if (s.type != SpecType::mamba && attn_1tok == 0) attn_1tok = s.token_bytes;
    all.push_back(s);
  }
  if (all.empty()) throw UnsupportedArchitecture::field(m.source, m.model_type, "layers", "no layer holds a KV cache or state");

  // Hybrid attention + Mamba: raise the attention block so one attention page >= the Mamba page,
  // then pad the Mamba page to exactly that.
  std::uint64_t mamba_page = 0;
  for (const auto& s : all)
    if (s.type == SpecType::mamba) mamba_page = std::max(mamba_page, s.page);
  if (mamba_page && attn_1tok) {
    const std::uint64_t kernel_align = std::max(kernel_min, block);
    std::uint64_t b_attn;
    if (c.mamba_mode == "all") {
      const std::uint64_t chunk = std::lcm(o.mamba_chunk_size, kernel_align);
      b_attn = chunk * ceil_div(ceil_div(mamba_page, attn_1tok), chunk);
    } else {
      b_attn = kernel_align * ceil_div(mamba_page, checked_mul(kernel_align, attn_1tok));
    }
    if (b_attn > block) {
      block = b_attn;
      r.log_lines.push_back("Setting attention block size to " + std::to_string(block) +
                            " tokens to ensure that attention page size is >= mamba page size.");
    }
    const std::uint64_t padded = checked_mul(block, attn_1tok, "vLLM Mamba page");
    r.mamba_page_bytes = mamba_page;
    r.mamba_page_padded_bytes = padded;
    if (padded != mamba_page) {
      const double pct = (static_cast<double>(padded) / static_cast<double>(mamba_page) - 1.0) * 100.0;
      r.log_lines.push_back("Padding mamba page size by " + format_fixed(pct, 2) +
                            "% to ensure that mamba page size and attention page size are exactly equal.");
    }
    for (auto& s : all)
      if (s.type == SpecType::mamba) s.page = padded;
  } else if (mamba_page) {
    r.mamba_page_bytes = r.mamba_page_padded_bytes = mamba_page;
  }
  r.attention_block_size = attn_1tok ? block : 0;
  for (auto& s : all) {
    if (s.type == SpecType::mamba) {
      // The Mamba block covers max_model_len (none), the attention block (align), or B_attn (all).
      s.block = (c.mamba_mode == "none" || !attn_1tok) ? c.M : block;
    } else {
      s.block = block;
      s.page = checked_mul(block, s.token_bytes, "vLLM page bytes");
    }
  }

  // Memory budget per GPU.
  std::int64_t budget;
  if (o.available_kv_bytes) {
    budget = static_cast<std::int64_t>(*o.available_kv_bytes);
  } else if (o.kv_cache_memory_bytes) {
    budget = static_cast<std::int64_t>(*o.kv_cache_memory_bytes);
    r.notes.push_back("--kv-cache-memory: the profiled budget and --gpu-memory-utilization are ignored");
  } else {
    if (o.gpu_memory_bytes == 0)
      throw InputError::value("vLLM memory", "none", "the available KV memory (--kv-cache-memory) or a GPU (--gpu)");
    if (!(o.gpu_memory_utilization > 0 && o.gpu_memory_utilization <= 1))
      throw InputError::value("--gpu-memory-utilization", format_fixed(o.gpu_memory_utilization, 3), "a fraction in (0, 1]");
    const auto requested = static_cast<std::int64_t>(std::ceil(static_cast<double>(o.gpu_memory_bytes) * o.gpu_memory_utilization));
    budget = requested - static_cast<std::int64_t>(o.weights_bytes) - static_cast<std::int64_t>(o.activation_peak_bytes) -
             static_cast<std::int64_t>(o.non_torch_bytes) - static_cast<std::int64_t>(o.cudagraph_bytes);
  }
  r.budget_bytes = budget;
  r.available_kv_bytes = budget > 0 ? static_cast<std::uint64_t>(budget) : 0;
  const std::uint64_t avail = r.available_kv_bytes;
  r.log_lines.push_back("Available KV cache memory: " + format_fixed(static_cast<double>(budget) / static_cast<double>(GiB), 2) + " GiB");

  // Per PP stage: group, count blocks, check one request fits; then the minimum over stages.
  const auto ranges = pp_ranges(m.num_layers(), pp);
  bool first_stage = true;
  std::uint64_t worst_fit = c.M;
  for (const auto& [lo, hi] : ranges) {
    std::vector<Spec> specs;
    for (const auto& s : all)
      if (s.layer >= lo && s.layer < hi) specs.push_back(s);
    if (specs.empty()) continue;

    // The start-up check (per worker): the worst case of one request at max_model_len.
    const std::uint64_t need = needed_bytes(specs, c, c.M);
    std::uint64_t fit = c.M;
    if (need > avail) {
      std::uint64_t lo_len = 0, hi_len = c.M;  // largest len with need <= avail
      while (lo_len < hi_len) {
        const std::uint64_t mid = lo_len + (hi_len - lo_len + 1) / 2;
        if (needed_bytes(specs, c, mid) <= avail) lo_len = mid; else hi_len = mid - 1;
      }
      fit = lo_len;
      if (r.starts) {
        r.starts = false;
        if (avail == 0)
          r.error = "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.";
        else
          r.error = "To serve at least one request with the models's max seq len (" + std::to_string(c.M) + "), (" +
                    format_fixed(static_cast<double>(need) / static_cast<double>(GiB), 2) +
                    " GiB KV cache is needed, which is larger than the available KV cache memory (" +
                    format_fixed(static_cast<double>(avail) / static_cast<double>(GiB), 2) +
                    " GiB). Based on the available memory, the estimated maximum model length is " + std::to_string(fit) +
                    ". Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
      }
    }
    worst_fit = std::min(worst_fit, fit);

    // Grouping.
    VllmResult st;
    bool all_same = true, same_kind = true;
    for (const auto& s : specs) {
      all_same = all_same && s.same(specs[0]);
      same_kind = same_kind && s.same_kind(specs[0]);
    }
    std::uint64_t num_blocks = 0, blocks_per_req = 0, min_block = 0, stage_bytes = 0, bpt = 0;
    for (const auto& s : specs)
      if (s.type != SpecType::mamba) bpt = checked_add(bpt, s.token_bytes);
    if (all_same) {
      st.layout = "uniform";
      const Spec& s = specs[0];
      st.group_size = specs.size();
      st.num_groups = 1;
      st.page_bytes = s.page;
      num_blocks = avail / s.page / specs.size();
      blocks_per_req = ceil_div(usage_bytes(s, c, c.M), s.page);
      min_block = s.block;
      VllmGroup g{std::string(spec_type_name(s.type)), s.block, s.page, s.window, {}, blocks_per_req};
      for (const auto& x : specs) g.layers.push_back(x.layer);
      st.groups.push_back(g);
      stage_bytes = checked_product({num_blocks, s.page, specs.size()});
    } else if (same_kind) {
      st.layout = "uniform_type";
      std::uint64_t sum = 0;
      for (const auto& s : specs) {
        sum = checked_add(sum, s.page);
        blocks_per_req = std::max(blocks_per_req, ceil_div(usage_bytes(s, c, c.M), s.page));
      }
      st.group_size = specs.size();
      st.num_groups = 1;
      num_blocks = avail / sum;
      min_block = specs[0].block;
      VllmGroup g{std::string(spec_type_name(specs[0].type)), specs[0].block, sum, specs[0].window, {}, blocks_per_req};
      for (const auto& x : specs) g.layers.push_back(x.layer);
      st.groups.push_back(g);
      stage_bytes = checked_mul(num_blocks, sum);
    } else {
      st.layout = "hybrid";
      // Unify page sizes: smaller pages take a larger block by an integer ratio.
      std::uint64_t P = 0;
      for (const auto& s : specs) P = std::max(P, s.page);
      for (auto& s : specs) {
        if (s.page == P) continue;
        if (P % s.page)
          throw UnsupportedArchitecture::field(m.source, m.model_type, "layers",
                                               "vLLM cannot unify the page sizes " + std::to_string(s.page) + " and " +
                                                   std::to_string(P) + " bytes (not a multiple)");
        if (s.type == SpecType::mamba)
          throw UnsupportedArchitecture::field(m.source, m.model_type, "layers", "vLLM: the Mamba page is smaller than an attention page");
        s.block *= P / s.page;
        s.page = P;
      }
      // Bucket layers by spec (first-seen order).
      std::vector<std::vector<Spec>> buckets;
      for (const auto& s : specs) {
        auto it = std::find_if(buckets.begin(), buckets.end(), [&](const auto& b) { return b[0].same(s); });
        if (it == buckets.end()) buckets.push_back({s}); else it->push_back(s);
      }
      std::uint64_t mn = UINT64_MAX, mx = 0;
      for (const auto& b : buckets) mn = std::min<std::uint64_t>(mn, b.size()), mx = std::max<std::uint64_t>(mx, b.size());
      const std::uint64_t gs = (2 * mx < 3 * mn) ? mx : mn;  // max < 1.5 min -> pad to max
      std::uint64_t pad = 0, usage_sum = 0;
      min_block = UINT64_MAX;
      for (const auto& b : buckets) {
        const std::uint64_t ng = ceil_div(b.size(), gs);
        pad += ng * gs - b.size();
        for (std::uint64_t j = 0; j < ng; ++j) {
          VllmGroup g{std::string(spec_type_name(b[0].type)), b[0].block, P, b[0].window, {}, 0};
          for (std::uint64_t i = j; i < b.size(); i += ng) g.layers.push_back(b[i].layer);
          g.blocks_per_request = ceil_div(usage_bytes(b[0], c, c.M), P);
          usage_sum = checked_add(usage_sum, usage_bytes(b[0], c, c.M));
          st.groups.push_back(g);
        }
        min_block = std::min(min_block, b[0].block);
      }
      st.group_size = gs;
      st.num_groups = st.groups.size();
      st.padding_layers = pad;
      st.page_bytes = P;
      num_blocks = avail / P / gs;
      blocks_per_req = ceil_div(usage_sum, P);
      stage_bytes = checked_product({num_blocks, P, gs});
    }
    if (o.num_gpu_blocks_override) num_blocks = *o.num_gpu_blocks_override;
    if (first_stage || num_blocks < r.num_blocks) {
      r.layout = st.layout;
      r.group_size = st.group_size;
      r.num_groups = st.num_groups;
      r.padding_layers = st.padding_layers;
      r.page_bytes = st.page_bytes;
      r.groups = st.groups;
      r.num_blocks = num_blocks;
      r.block_size = min_block;
      r.request_bytes = need;
      r.bytes_per_token = bpt;
      r.kv_cache_bytes = stage_bytes;
      r.max_concurrency = blocks_per_req ? static_cast<double>(num_blocks) / static_cast<double>(blocks_per_req) : 0.0;
      first_stage = false;
    }
  }
  r.max_fitting_len = worst_fit;
  r.kv_cache_tokens = checked_mul(r.num_blocks / r.num_groups, r.block_size, "vLLM KV cache tokens");
  if (r.padding_layers)
    r.log_lines.push_back("Add " + std::to_string(r.padding_layers) + " padding layers, may waste at most " +
                          format_fixed(100.0 * static_cast<double>(r.padding_layers) /
                                           static_cast<double>(all.size() / pp),
                                       2) +
                          "% KV cache memory");
  if (!r.starts) {
    r.log_lines.push_back("ValueError: " + r.error);
  } else {
    r.log_lines.push_back("GPU KV cache size: " + format_count(r.kv_cache_tokens) + " tokens");
    r.log_lines.push_back("Maximum concurrency for " + format_count(c.M) + " tokens per request: " +
                          format_fixed(r.max_concurrency, 2) + "x");
  }
  return r;
}

}  // namespace kvplan
