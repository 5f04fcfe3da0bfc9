// vLLM (v1) profile: per-layer KV cache specs -> page sizes -> groups -> num_blocks, and the
// figures vLLM logs. Rules: docs/engines.md section "vLLM" (kv_cache_interface.py,
// kv_cache_utils.py, platforms/interface.py, gpu_worker.py).
//
// vllm_profile runs vLLM's own steps, each a function named after vLLM's (read at
// vllm-project/vllm vllm/v1/core/kv_cache_utils.py@001cabc1be16a59a70d720ed61a13b678c060a18 and
// vllm/v1/worker/gpu_worker.py@35d5cda123ec28581759b6d34cde8052314fb1e6):
//   gpu_model_runner.get_kv_cache_spec        -> get_kv_cache_spec (one spec per layer and rank)
//   unify_hybrid_kv_cache_specs               -> with --disable-hybrid-kv-cache-manager
//   platforms/interface.py _align_hybrid_block_size -> align_hybrid_block_size (attention + Mamba)
//   gpu_worker.determine_available_memory     -> determine_available_memory
//   check_enough_kv_cache_memory (+ estimate_max_model_len) -> per pipeline stage
//   get_kv_cache_groups (_get_kv_cache_groups_uniform_spec / _uniform_type /
//     unify_kv_cache_spec_page_size + _get_kv_cache_groups_uniform_page_size) -> get_kv_cache_groups
//   get_kv_cache_config_from_groups (get_num_blocks, may_override_num_blocks)
//   get_max_concurrency_for_kv_cache_config, _report_kv_cache_config -> the logged lines.
// kvplan groups each pipeline stage's layers and takes the stage with the fewest blocks.
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

// One layer's KVCacheSpec on one rank.
struct Spec {
  std::uint64_t layer = 0;
  VllmGroupKind type = VllmGroupKind::full_attention;
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
    case VllmGroupKind::full_attention:
    case VllmGroupKind::mla:
      return checked_mul(ceil_div(M, s.block), s.page, "vLLM request bytes");
    case VllmGroupKind::sliding_window: {
      const std::uint64_t toks = std::min(checked_add(s.window - 1, c.T), M);
      return checked_mul(ceil_div(toks, s.block) + 1, s.page, "vLLM request bytes");
    }
    case VllmGroupKind::chunked_local: {
      const std::uint64_t toks = std::min(checked_add(s.window, c.T), M);
      return checked_mul(ceil_div(toks, s.block), s.page, "vLLM request bytes");
    }
    case VllmGroupKind::mamba:
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

// The options vllm_profile checks before anything else (vLLM's config validation).
void verify_options(const ModelSpec& m, const VllmOptions& o) {
  const std::uint64_t tp = o.tensor_parallel_size, pp = o.pipeline_parallel_size;
  if (tp == 0) throw InputError::value("--tensor-parallel-size", "0", "a positive integer");
  if (pp == 0) throw InputError::value("--pipeline-parallel-size", "0", "a positive integer");
  if (pp > m.num_layers())
    throw InputError::value("--pipeline-parallel-size", std::to_string(pp),
                            "at most the layer count (" + std::to_string(m.num_layers()) + ")");
  if (o.max_num_batched_tokens == 0) throw InputError::value("--max-num-batched-tokens", "0", "a positive integer");
}

// max_model_len (the config's maximum when not given), max_num_batched_tokens and the
// speculative tokens: what every spec's max_memory_usage_bytes reads.
Ctx scheduler_context(const ModelSpec& m, const VllmOptions& o, VllmResult& r) {
  Ctx c;
  c.M = o.max_model_len ? o.max_model_len : m.dims.max_position_embeddings;
  if (c.M == 0) throw InputError::value("--max-model-len", "0", "a positive length (the config has no max_position_embeddings)");
  c.T = o.max_num_batched_tokens;
  c.spec_tokens = o.num_speculative_tokens;
  r.max_model_len = c.M;
  if (!o.max_model_len)  // the engine's own default length, stated (docs/cli.md "Default length")
    r.notes.push_back("--max-model-len not given: the config's maximum length, " + format_count(c.M, "token") + " (vLLM's default)");
  return c;
}

// The KV cache dtype as CacheConfig.cache_dtype resolves it: "auto" is fp8_ds_mla for sparse MLA,
// the checkpoint's kv_cache_quant_algo where this vLLM follows it, else the model dtype.
struct KvDtype {
  Dtype dtype = Dtype::bf16;
  bool ds_mla = false;   // fp8_ds_mla: 656 B per token per layer
  bool has_mla = false;
  bool sparse = false;   // DeepSeek-V3.2's sparse MLA (an indexer)
};
KvDtype resolve_kv_cache_dtype(const ModelSpec& m, const VllmOptions& o, VllmResult& r) {
  KvDtype k;
  k.has_mla = m.has_kind("mla");
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers)
      if (auto* a = std::get_if<Mla>(&mixer); a && a->index_head_dim) k.sparse = true;
  std::string kv_dtype_name = o.kv_cache_dtype;
  if (k.sparse && kv_dtype_name == "auto") {
    kv_dtype_name = "fp8_ds_mla";
    r.notes.push_back("DeepSeek-V3.2 (sparse MLA): kv_cache_dtype auto means fp8_ds_mla (656 B per token per layer)");
  }
  k.dtype = vllm_kv_dtype(m, kv_dtype_name, k.ds_mla);
  if (kv_dtype_name == "auto" && o.auto_kv_follows_checkpoint) {
    if (const auto ck = checkpoint_kv_cache_dtype(m, EngineKind::vllm, &r.notes)) k.dtype = *ck;
  } else if (kv_dtype_name == "auto" && !m.kv_cache_quant_algo.empty()) {
    r.notes.push_back("the checkpoint names kv_cache_quant_algo " + m.kv_cache_quant_algo +
                      ", which vLLM before 0.14 does not follow: the model dtype");
  }
  if (k.ds_mla && !k.has_mla) throw InputError::value("--kv-cache-dtype", "fp8_ds_mla", "an MLA model for fp8_ds_mla");
  return k;
}

// The block size: 16 on CUDA unless set; MLA backends impose their own (the platform's
// get_attn_backend_cls picks the backend, update_block_size_for_backend its block).
struct BlockChoice {
  std::uint64_t block = 16;
  std::uint64_t kernel_min = 16;  // the backend kernel's block alignment (hybrid Mamba alignment)
};
BlockChoice update_block_size_for_backend(const ModelSpec& m, const VllmOptions& o, const KvDtype& k, VllmResult& r) {
  BlockChoice b;
  b.block = o.block_size.value_or(16);
  if (o.block_size && !is_allowed_block(*o.block_size))
    throw InputError::value("--block-size", std::to_string(*o.block_size), "one of 1, 8, 16, 32, 64, 128, 256");
  if (!k.has_mla) return b;  // FLASH_ATTN (or the given backend): 16-token kernels
  std::string backend = ascii_upper(o.attention_backend);
  if (backend.empty())
    backend = k.sparse ? "FLASHMLA_SPARSE"
                       : (o.blackwell ? (m.dims.mla_qk_nope_head_dim == 128 ? "FLASHINFER_MLA" : "CUTLASS_MLA") : "FLASHMLA");
  std::uint64_t& block = b.block;
  if (backend == "FLASHMLA") {
    if (block % 64) block = 64;
    b.kernel_min = 64;
  } else if (backend == "FLASHMLA_SPARSE") {
    block = 64;
    b.kernel_min = 64;
  } else if (backend == "CUTLASS_MLA") {
    if (block % 128) block = 128;
    b.kernel_min = 128;
  } else if (backend == "FLASHINFER_MLA") {
    if (block != 32 && block % 64) block = 64;
    b.kernel_min = 32;
  } else if (backend == "TRITON_MLA") {
    b.kernel_min = 16;
  } else {
    throw InputError::value("--attention-backend", o.attention_backend,
                            "an MLA backend (FLASHMLA, FLASHMLA_SPARSE, FLASHINFER_MLA, CUTLASS_MLA, TRITON_MLA)");
  }
  if (block != o.block_size.value_or(16) || !o.block_size)
    r.notes.push_back("MLA backend " + backend + ": block size " + std::to_string(block));
  return b;
}

// CacheConfig.mamba_cache_mode: align with prefix caching, none without, unless given.
void resolve_mamba_cache_mode(const ModelSpec& m, const VllmOptions& o, Ctx& c, VllmResult& r) {
  const bool has_state = m.has_kind("mamba") || m.has_kind("linear_attention") || m.has_kind("short_conv");
  c.mamba_mode = o.mamba_cache_mode;
  if (c.mamba_mode.empty()) c.mamba_mode = o.enable_prefix_caching ? "align" : "none";
  if (c.mamba_mode != "none" && c.mamba_mode != "align" && c.mamba_mode != "all")
    throw InputError::value("--mamba-cache-mode", c.mamba_mode, "none, align or all");
  if (has_state) r.mamba_cache_mode = c.mamba_mode;
}

// A Mamba-kind layer's state page (MambaSpec.page_size_bytes before padding): conv and SSM state
// in their cache dtypes; speculative tokens add conv rows to Mamba-2 and to convolved linear
// attention.
template <class T>
std::uint64_t mamba_page_bytes(const T& k, const LayerCache& mixer, const VllmOptions& o, const Ctx& c, Dtype conv_dt, Dtype ssm_default) {
  bool spec_rows = false;
  if constexpr (std::is_same_v<T, Mamba2>) spec_rows = true;
  if constexpr (std::is_same_v<T, LinearAttention>) spec_rows = k.conv_kernel > 0;
  Dtype ssm_dt = ssm_default;
  if constexpr (std::is_same_v<T, LinearAttention>)
    if (k.variant == LinearAttention::Variant::kda && o.mamba_ssm_cache_dtype == "auto") ssm_dt = Dtype::fp32;
  if (o.mamba_ssm_cache_dtype != "auto") ssm_dt = parse_dtype(o.mamba_ssm_cache_dtype, "--mamba-ssm-cache-dtype");
  return state_bytes(mixer, StateOptions{conv_dt, ssm_dt, o.tensor_parallel_size, spec_rows ? c.spec_tokens : 0}).total_bytes();
}

// gpu_model_runner.get_kv_cache_spec: one spec per mixer that holds a cache, on one rank (each
// mixer of a hybrid layer is its own spec, as in vLLM), before hybrid alignment. `attn_1tok`: the
// first attention spec's bytes per token.
struct LayerSpecs {
  std::vector<Spec> all;
  std::uint64_t attn_1tok = 0;
};
LayerSpecs get_kv_cache_spec(const ModelSpec& m, const VllmOptions& o, const KvDtype& kd, const Ctx& c, VllmResult& r) {
  const std::uint64_t tp = o.tensor_parallel_size;
  const Dtype kvd = kd.dtype;
  const Dtype conv_dt = state_dtype(o.mamba_cache_dtype, serving_dtype(m), "--mamba-cache-dtype");
  const Dtype ssm_default = m.ssm_state_dtype.value_or(m.vllm_ssm_state_dtype.value_or(conv_dt));
  LayerSpecs out;
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers) {
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
                             [&](const Attention::All&) { s.type = VllmGroupKind::full_attention; },
                             [&](const Attention::Window& w) { s.type = VllmGroupKind::sliding_window, s.window = w.tokens; },
                             [&](const Attention::Chunk& ch) { s.type = VllmGroupKind::chunked_local, s.window = ch.tokens; },
                         },
                         k.span);
            } else if constexpr (std::is_same_v<T, Mla>) {
              s.type = VllmGroupKind::mla;
              r.kv_heads_per_rank = 1;
              s.token_bytes = kd.ds_mla ? 656 : mla_row_bytes(k, kvd, /*with_indexer=*/false);
            } else if constexpr (std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> ||
                                 std::is_same_v<T, ShortConv>) {
              s.type = VllmGroupKind::mamba;
              s.page = mamba_page_bytes(k, mixer, o, c, conv_dt, ssm_default);
            } else if constexpr (std::is_same_v<T, SharedKv> || std::is_same_v<T, NoCache>) {
              keep = false;  // no spec of their own
            } else {
              static_assert(unhandled_kind<T>, "vLLM: a layer kind without a KV cache spec");
            }
          },
          mixer);
      if (!keep) continue;
      if (s.type != VllmGroupKind::mamba && out.attn_1tok == 0) out.attn_1tok = s.token_bytes;
      out.all.push_back(s);
    }
  if (out.all.empty()) throw UnsupportedArchitecture::field(m.source, m.model_type, "layers", "no layer holds a KV cache or state");
  return out;
}

// unify_hybrid_kv_cache_specs (--disable-hybrid-kv-cache-manager): sliding-window and chunked
// local specs become full attention, so every attention layer shares one kind. kvplan converts
// every windowed spec; vLLM converts them when a full-attention layer is present too.
void unify_hybrid_kv_cache_specs(std::vector<Spec>& specs) {
  for (auto& s : specs)
    if (s.type == VllmGroupKind::sliding_window || s.type == VllmGroupKind::chunked_local) s.type = VllmGroupKind::full_attention, s.window = 0;
}

// _align_hybrid_block_size (hybrid attention + Mamba): raise the attention block so one attention
// page >= the Mamba page, then pad the Mamba page to exactly that. Returns the block size.
std::uint64_t align_hybrid_block_size(std::vector<Spec>& all, std::uint64_t attn_1tok, BlockChoice b, const VllmOptions& o,
                                      const Ctx& c, VllmResult& r) {
  std::uint64_t block = b.block;
  std::uint64_t mamba_page = 0;
  for (const auto& s : all)
    if (s.type == VllmGroupKind::mamba) mamba_page = std::max(mamba_page, s.page);
  if (mamba_page && attn_1tok) {
    const std::uint64_t kernel_align = std::max(b.kernel_min, block);
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
      if (s.type == VllmGroupKind::mamba) s.page = padded;
  } else if (mamba_page) {
    r.mamba_page_bytes = r.mamba_page_padded_bytes = mamba_page;
  }
  return block;
}

// Each spec's block and page after alignment: the Mamba block covers max_model_len (none), the
// attention block (align), or B_attn (all).
void set_block_sizes(std::vector<Spec>& all, std::uint64_t block, std::uint64_t attn_1tok, const Ctx& c, VllmResult& r) {
  r.attention_block_size = attn_1tok ? block : 0;
  for (auto& s : all) {
    if (s.type == VllmGroupKind::mamba) {
      s.block = (c.mamba_mode == "none" || !attn_1tok) ? c.M : block;
    } else {
      s.block = block;
      s.page = checked_mul(block, s.token_bytes, "vLLM page bytes");
    }
  }
}

// gpu_worker.determine_available_memory: the KV memory per GPU (--kv-cache-memory, or
// ceil(util x total) - weights - activation peak - non-torch - CUDA graphs), signed.
std::int64_t determine_available_memory(const VllmOptions& o, VllmResult& r) {
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
  r.log_lines.push_back("Available KV cache memory: " + format_fixed(static_cast<double>(budget) / static_cast<double>(GiB), 2) + " GiB");
  return budget;
}

// check_enough_kv_cache_memory (per worker): one request at max_model_len must fit; where it does
// not, estimate_max_model_len's binary search gives the largest length that does, and the first
// stage that fails sets vLLM's error.
struct MemoryCheck {
  std::uint64_t need = 0;  // one request at max_model_len
  std::uint64_t fit = 0;   // the largest max_model_len that fits
};
MemoryCheck check_enough_kv_cache_memory(const std::vector<Spec>& specs, const Ctx& c, std::uint64_t avail, VllmResult& r) {
  MemoryCheck k{needed_bytes(specs, c, c.M), c.M};
  if (k.need <= avail) return k;
  std::uint64_t lo_len = 0, hi_len = c.M;  // largest len with need <= avail
  while (lo_len < hi_len) {
    const std::uint64_t mid = lo_len + (hi_len - lo_len + 1) / 2;
    if (needed_bytes(specs, c, mid) <= avail) lo_len = mid; else hi_len = mid - 1;
  }
  k.fit = lo_len;
  if (r.starts) {
    r.starts = false;
    if (avail == 0)
      r.error = "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.";
    else
      r.error = "To serve at least one request with the models's max seq len (" + std::to_string(c.M) + "), (" +
                format_fixed(static_cast<double>(k.need) / static_cast<double>(GiB), 2) +
                " GiB KV cache is needed, which is larger than the available KV cache memory (" +
                format_fixed(static_cast<double>(avail) / static_cast<double>(GiB), 2) +
                " GiB). Based on the available memory, the estimated maximum model length is " + std::to_string(k.fit) +
                ". Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
  }
  return k;
}

// One stage's KV cache groups (vLLM's list[KVCacheGroupSpec]) and how the pool is cut: one block
// of the pool is `tensor_page` bytes in each of `tensor_layers` tensors.
struct KvCacheGroups {
  std::string layout;                    // uniform, uniform_type, hybrid
  std::vector<VllmGroup> groups;
  std::uint64_t group_size = 0, padding_layers = 0, page_bytes = 0;
  std::uint64_t tensor_page = 0, tensor_layers = 1;
  std::uint64_t blocks_per_request = 0;  // one request at max_model_len, all groups
  std::uint64_t min_block = 0;           // the smallest block among groups
};

VllmGroup make_group(const Spec& s, std::uint64_t page, std::uint64_t blocks_per_request) {
  return VllmGroup{s.type, s.block, page, s.window, {}, blocks_per_request};
}

// _get_kv_cache_groups_uniform_spec: every layer the same spec, one group.
KvCacheGroups get_kv_cache_groups_uniform_spec(const std::vector<Spec>& specs, const Ctx& c) {
  KvCacheGroups k;
  k.layout = "uniform";
  const Spec& s = specs[0];
  k.group_size = specs.size();
  k.page_bytes = s.page;
  k.tensor_page = s.page;
  k.tensor_layers = specs.size();
  k.blocks_per_request = ceil_div(usage_bytes(s, c, c.M), s.page);
  k.min_block = s.block;
  VllmGroup g = make_group(s, s.page, k.blocks_per_request);
  for (const auto& x : specs) g.layers.push_back(x.layer);
  k.groups.push_back(g);
  return k;
}

// _get_kv_cache_groups_uniform_type (UniformTypeKVCacheSpecs): one kind with different page sizes,
// one group whose block holds every layer's page.
KvCacheGroups get_kv_cache_groups_uniform_type(const std::vector<Spec>& specs, const Ctx& c) {
  KvCacheGroups k;
  k.layout = "uniform_type";
  std::uint64_t sum = 0;
  for (const auto& s : specs) {
    sum = checked_add(sum, s.page);
    k.blocks_per_request = std::max(k.blocks_per_request, ceil_div(usage_bytes(s, c, c.M), s.page));
  }
  k.group_size = specs.size();
  k.tensor_page = sum;
  k.min_block = specs[0].block;
  VllmGroup g = make_group(specs[0], sum, k.blocks_per_request);
  for (const auto& x : specs) g.layers.push_back(x.layer);
  k.groups.push_back(g);
  return k;
}

// unify_kv_cache_spec_page_size: smaller pages take a larger block by an integer ratio. Returns
// the unified page.
std::uint64_t unify_kv_cache_spec_page_size(std::vector<Spec>& specs, const ModelSpec& m) {
  std::uint64_t P = 0;
  for (const auto& s : specs) P = std::max(P, s.page);
  for (auto& s : specs) {
    if (s.page == P) continue;
    if (P % s.page)
      throw UnsupportedArchitecture::field(m.source, m.model_type, "layers",
                                           "vLLM cannot unify the page sizes " + std::to_string(s.page) + " and " +
                                               std::to_string(P) + " bytes (not a multiple)");
    if (s.type == VllmGroupKind::mamba)
      throw UnsupportedArchitecture::field(m.source, m.model_type, "layers", "vLLM: the Mamba page is smaller than an attention page");
    s.block *= P / s.page;
    s.page = P;
  }
  return P;
}

// _get_kv_cache_groups_uniform_page_size: layers bucketed by spec (first-seen order), each bucket
// split into groups of group_size layers (the smallest bucket, or the largest when it is under
// 1.5 x the smallest), layers[i::num_groups] to the i-th, the last padded.
KvCacheGroups get_kv_cache_groups_uniform_page_size(const std::vector<Spec>& specs, std::uint64_t P, const Ctx& c) {
  KvCacheGroups k;
  k.layout = "hybrid";
  std::vector<std::vector<Spec>> buckets;
  for (const auto& s : specs) {
    auto it = std::find_if(buckets.begin(), buckets.end(), [&](const auto& b) { return b[0].same(s); });
    if (it == buckets.end()) buckets.push_back({s}); else it->push_back(s);
  }
  std::uint64_t mn = UINT64_MAX, mx = 0;
  for (const auto& b : buckets) mn = std::min<std::uint64_t>(mn, b.size()), mx = std::max<std::uint64_t>(mx, b.size());
  const std::uint64_t gs = (2 * mx < 3 * mn) ? mx : mn;  // max < 1.5 min -> pad to max
  std::uint64_t pad = 0, usage_sum = 0;
  k.min_block = UINT64_MAX;
  for (const auto& b : buckets) {
    const std::uint64_t ng = ceil_div(b.size(), gs);
    pad += ng * gs - b.size();
    for (std::uint64_t j = 0; j < ng; ++j) {
      VllmGroup g = make_group(b[0], P, ceil_div(usage_bytes(b[0], c, c.M), P));
      for (std::uint64_t i = j; i < b.size(); i += ng) g.layers.push_back(b[i].layer);
      usage_sum = checked_add(usage_sum, usage_bytes(b[0], c, c.M));
      k.groups.push_back(g);
    }
    k.min_block = std::min(k.min_block, b[0].block);
  }
  k.group_size = gs;
  k.padding_layers = pad;
  k.page_bytes = P;
  k.tensor_page = P;
  k.tensor_layers = gs;
  k.blocks_per_request = ceil_div(usage_sum, P);
  return k;
}

// get_kv_cache_groups: one spec for all layers, one kind (uniform type), or several kinds with
// their page sizes unified.
KvCacheGroups get_kv_cache_groups(std::vector<Spec> specs, const Ctx& c, const ModelSpec& m) {
  bool all_same = true, same_kind = true;
  for (const auto& s : specs) {
    all_same = all_same && s.same(specs[0]);
    same_kind = same_kind && s.same_kind(specs[0]);
  }
  if (all_same) return get_kv_cache_groups_uniform_spec(specs, c);
  if (same_kind) return get_kv_cache_groups_uniform_type(specs, c);
  const std::uint64_t P = unify_kv_cache_spec_page_size(specs, m);
  return get_kv_cache_groups_uniform_page_size(specs, P, c);
}

// get_kv_cache_config_from_groups: the blocks the available memory holds (get_num_blocks), then
// --num-gpu-blocks-override (may_override_num_blocks); `tensor_bytes`: what the stage allocates.
struct KvCacheConfig {
  std::uint64_t num_blocks = 0, tensor_bytes = 0;
};
KvCacheConfig get_kv_cache_config_from_groups(const KvCacheGroups& g, std::uint64_t avail, const VllmOptions& o) {
  KvCacheConfig k;
  k.num_blocks = avail / g.tensor_page / g.tensor_layers;
  k.tensor_bytes = checked_product({k.num_blocks, g.tensor_page, g.tensor_layers});
  if (o.num_gpu_blocks_override) k.num_blocks = *o.num_gpu_blocks_override;
  return k;
}

// The attention bytes per token of one stage's layers.
std::uint64_t attention_bytes_per_token(const std::vector<Spec>& specs) {
  std::uint64_t bpt = 0;
  for (const auto& s : specs)
    if (s.type != VllmGroupKind::mamba) bpt = checked_add(bpt, s.token_bytes);
  return bpt;
}

// One pipeline stage (get_pp_indices' layers [lo, hi)): the memory check, its groups and blocks;
// the stage with the fewest blocks is the result (the scheduler's config takes the minimum).
// Returns the largest max_model_len that fits the stage.
std::uint64_t profile_stage(const std::vector<Spec>& all, std::uint64_t lo, std::uint64_t hi, const Ctx& c, const ModelSpec& m,
                            const VllmOptions& o, bool& first_stage, VllmResult& r) {
  std::vector<Spec> specs;
  for (const auto& s : all)
    if (s.layer >= lo && s.layer < hi) specs.push_back(s);
  if (specs.empty()) return c.M;
  const MemoryCheck mem = check_enough_kv_cache_memory(specs, c, r.available_kv_bytes, r);
  KvCacheGroups g = get_kv_cache_groups(specs, c, m);
  const KvCacheConfig k = get_kv_cache_config_from_groups(g, r.available_kv_bytes, o);
  if (first_stage || k.num_blocks < r.num_blocks) {
    r.layout = g.layout;
    r.group_size = g.group_size;
    r.num_groups = g.groups.size();
    r.padding_layers = g.padding_layers;
    r.page_bytes = g.page_bytes;
    r.groups = std::move(g.groups);
    r.num_blocks = k.num_blocks;
    r.block_size = g.min_block;
    r.request_bytes = mem.need;
    r.bytes_per_token = attention_bytes_per_token(specs);
    r.kv_cache_bytes = k.tensor_bytes;
    // get_max_concurrency_for_kv_cache_config: blocks over one full-length request's blocks.
    r.max_concurrency = g.blocks_per_request ? static_cast<double>(k.num_blocks) / static_cast<double>(g.blocks_per_request) : 0.0;
    first_stage = false;
  }
  return mem.fit;
}

// _report_kv_cache_config: the lines vLLM logs (or its ValueError), and the padding warning.
void report_kv_cache_config(const Ctx& c, std::uint64_t spec_count, std::uint64_t pp, VllmResult& r) {
  r.kv_cache_tokens = checked_mul(r.num_blocks / r.num_groups, r.block_size, "vLLM KV cache tokens");
  if (r.padding_layers)
    r.log_lines.push_back("Add " + std::to_string(r.padding_layers) + " padding layers, may waste at most " +
                          format_fixed(100.0 * static_cast<double>(r.padding_layers) /
                                           static_cast<double>(spec_count / pp),
                                       2) +
                          "% KV cache memory");
  if (!r.starts) {
    r.log_lines.push_back("ValueError: " + r.error);
  } else {
    r.log_lines.push_back("GPU KV cache size: " + format_count(r.kv_cache_tokens) + " tokens");
    r.log_lines.push_back("Maximum concurrency for " + format_count(c.M) + " tokens per request: " +
                          format_fixed(r.max_concurrency, 2) + "x");
  }
}

}  // namespace

std::string_view vllm_group_kind_name(VllmGroupKind k) {
  switch (k) {
    case VllmGroupKind::full_attention: return "full_attention";
    case VllmGroupKind::sliding_window: return "sliding_window";
    case VllmGroupKind::chunked_local: return "chunked_local";
    case VllmGroupKind::mla: return "mla";
    case VllmGroupKind::mamba: return "mamba";
  }
  return "";
}

VllmResult vllm_profile(const ModelSpec& m, const VllmOptions& o) {
  VllmResult r;
  verify_options(m, o);
  Ctx c = scheduler_context(m, o, r);
  const KvDtype kd = resolve_kv_cache_dtype(m, o, r);
  const BlockChoice b = update_block_size_for_backend(m, o, kd, r);
  resolve_mamba_cache_mode(m, o, c, r);
  LayerSpecs specs = get_kv_cache_spec(m, o, kd, c, r);
  if (o.disable_hybrid_kv_cache_manager) unify_hybrid_kv_cache_specs(specs.all);
  const std::uint64_t block = align_hybrid_block_size(specs.all, specs.attn_1tok, b, o, c, r);
  set_block_sizes(specs.all, block, specs.attn_1tok, c, r);
  determine_available_memory(o, r);
  bool first_stage = true;
  std::uint64_t worst_fit = c.M;
  for (const auto& [lo, hi] : pp_ranges(m.num_layers(), o.pipeline_parallel_size))
    worst_fit = std::min(worst_fit, profile_stage(specs.all, lo, hi, c, m, o, first_stage, r));
  r.max_fitting_len = worst_fit;
  report_kv_cache_config(c, specs.all.size(), o.pipeline_parallel_size, r);
  return r;
}

}  // namespace kvplan
