// TensorRT-LLM (PyTorch backend) profile: bytes per token as its estimator computes them, the
// free-memory fraction budget, 32-token blocks, max_tokens, VSWA pools and Mamba slots.
// Rules: docs/engines.md section "TensorRT-LLM" (_util.py KvCacheCreator, resource_manager.py,
// the VSWA utilities, kvCacheManager.cpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

#include "kvplan/checked.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {

Dtype trt_kv_dtype(const ModelSpec& m, const std::string& s) {
  if (s == "auto") return serving_dtype(m);
  if (s == "fp8") return Dtype::fp8_e4m3;
  if (s == "nvfp4") return Dtype::nvfp4;
  if (s == "bf16" || s == "bfloat16") return Dtype::bf16;
  if (s == "fp16" || s == "float16") return Dtype::fp16;
  throw InputError::value("kv_cache_config.dtype", s, "auto, fp8, nvfp4, bf16 or fp16");
}

}  // namespace

TrtllmResult trtllm_profile(const ModelSpec& m, const TrtllmOptions& o) {
  TrtllmResult r;
  if (o.tokens_per_block == 0) throw InputError::value("tokens_per_block", "0", "a positive integer");
  if (o.tp_size == 0) throw InputError::value("--tp_size", "0", "a positive integer");
  if (o.pp_size == 0) throw InputError::value("--pp_size", "0", "a positive integer");
  if (!(o.free_gpu_memory_fraction > 0 && o.free_gpu_memory_fraction <= 1))
    throw InputError::value("free_gpu_memory_fraction", format_fixed(o.free_gpu_memory_fraction, 3), "a fraction in (0, 1]");
  const std::uint64_t tp = o.enable_attention_dp ? 1 : o.tp_size;
  Dtype kvd = trt_kv_dtype(m, o.kv_cache_dtype);
  if (o.kv_cache_dtype == "auto")
    if (const auto ck = checkpoint_kv_cache_dtype(m, EngineKind::trtllm, &r.notes)) kvd = *ck;
  r.max_seq_len = o.max_seq_len ? o.max_seq_len : m.dims.max_position_embeddings;
  if (r.max_seq_len == 0) throw InputError::value("--max_seq_len", "0", "a positive length");
  if (!o.max_seq_len)  // the engine's own default length, stated (docs/cli.md "Default length")
    r.notes.push_back("max_seq_len not given: the config's maximum length, " + format_count(r.max_seq_len, "token") +
                      " (TensorRT-LLM's default)");
  const std::uint64_t tpb = o.tokens_per_block;

  // Attention layers on the largest PP stage, in order, with their per-token bytes.
  struct AttnLayer {
    std::uint64_t bytes = 0;            // as the pool holds it
    std::uint64_t estimator_bytes = 0;  // as the estimator counts it
  };
  std::vector<AttnLayer> attn;
  std::uint64_t conv_state = 0, ssm_state = 0;
  const Dtype ssm_dt = o.mamba_ssm_cache_dtype == "auto" ? m.ssm_state_dtype.value_or(serving_dtype(m))
                                                         : parse_dtype(o.mamba_ssm_cache_dtype, "mamba_ssm_cache_dtype");
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers) {
    std::visit(
        [&](const auto& c) {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, Attention>) {
            // The pool as KVCacheManager allocates it: ceil(Hkv / tp) whole heads per rank
            // (num_kv_heads_per_layer, get_cache_bytes_per_token), one replicated head when
            // tp > Hkv. The estimator's flat h * Hkv // tp (get_cache_size_per_token) is kept
            // beside it only to say when the two differ.
            attn.push_back({attention_row_bytes(c, kvd, kvd, tp, HeadSplit::per_rank_heads).total_bytes(),
                            attention_row_bytes(c, kvd, kvd, tp, HeadSplit::flat_row).total_bytes()});
          } else if constexpr (std::is_same_v<T, Mla>) {
            const std::uint64_t row = mla_row_bytes(c, kvd, /*with_indexer=*/false);
            attn.push_back({row, row});
          } else if constexpr (std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> ||
                               std::is_same_v<T, ShortConv>) {
            const StateBytes sb = state_bytes(mixer, StateOptions{serving_dtype(m), ssm_dt, o.tp_size, 0});
            conv_state = checked_add(conv_state, sb.conv_bytes);
            ssm_state = checked_add(ssm_state, sb.ssm_bytes);
          } else if constexpr (std::is_same_v<T, SharedKv> || std::is_same_v<T, NoCache>) {
            // reads another layer's cache / holds none
          } else {
            static_assert(unhandled_kind<T>, "TensorRT-LLM: a layer kind without a cache rule");
          }
        },
        mixer);
  }
  if (attn.empty()) throw UnsupportedArchitecture::field(m.source, m.model_type, "layers", "TensorRT-LLM: no attention layer holds a KV cache");
  if (m.has_kind("mla"))
    for (const auto& l : m.layers)
      if (std::any_of(l.mixers.begin(), l.mixers.end(), [](const LayerCache& c) { auto* a = std::get_if<Mla>(&c); return a && a->index_head_dim; })) {
        r.notes.push_back("DeepSeek-V3.2 indexer cache not counted");
        break;
      }
  const std::uint64_t stage_layers = ceil_div(attn.size(), o.pp_size);
  if (o.pp_size > 1) r.notes.push_back("pipeline parallel: the largest stage holds " + std::to_string(stage_layers) + " attention layers");
  // Each stage holds a contiguous share; the estimator's per-token bytes use L_pp.
  std::vector<AttnLayer> stage(attn.begin(), attn.begin() + static_cast<std::ptrdiff_t>(stage_layers));
  std::uint64_t estimator_bytes = 0;
  for (const auto& a : stage) {
    r.bytes_per_token = checked_add(r.bytes_per_token, a.bytes, "TRT-LLM bytes per token");
    estimator_bytes = checked_add(estimator_bytes, a.estimator_bytes, "TRT-LLM estimator bytes per token");
  }
  r.estimator_bytes_per_token = estimator_bytes;
  // tp > KV heads (or tp not dividing them): every rank stores ceil(Hkv / tp) whole heads, while
  // the estimator's flat h * Hkv // tp counts a fraction; the pool per token is the larger figure.
  if (estimator_bytes < r.bytes_per_token)
    r.notes.push_back("tp " + std::to_string(tp) + " does not split the KV heads evenly: each rank stores ceil(KV heads / tp) whole heads, " +
                      format_count(r.bytes_per_token, "byte") + " per token, where TensorRT-LLM's estimator counts " +
                      format_count(estimator_bytes, "byte") + " (h x Hkv // tp); kvplan sizes the pool with the larger figure");
  r.block_bytes = checked_mul(r.bytes_per_token, tpb);
  if (conv_state || ssm_state) {
    const std::uint64_t slots = checked_mul(o.max_batch_size, o.pp_size);
    r.mamba_bytes = checked_mul(checked_add(conv_state, ssm_state), slots, "TRT-LLM Mamba cache");
    r.notes.push_back("MambaCacheManager: " + std::to_string(slots) + " state slots (max_batch_size x pp), part of the profiled peak");
  }

  // Budget.
  double mem;
  if (o.kv_memory_bytes) {
    mem = static_cast<double>(*o.kv_memory_bytes);
  } else {
    if (o.gpu_memory_bytes == 0) throw InputError::value("TensorRT-LLM memory", "none", "the KV memory or a GPU (--gpu)");
    mem = (static_cast<double>(o.gpu_memory_bytes) - static_cast<double>(o.peak_bytes) + static_cast<double>(o.temp_kv_bytes)) *
          o.free_gpu_memory_fraction;
    r.log_lines.push_back("Peak memory during memory usage profiling (torch + non-torch): " +
                          format_fixed(static_cast<double>(o.peak_bytes) / static_cast<double>(GiB), 2) +
                          " GiB, available KV cache memory when calculating max tokens: " +
                          format_fixed(mem / static_cast<double>(GiB), 2) + " GiB, fraction is set " +
                          format_fixed(o.free_gpu_memory_fraction, 2) + ", kv size is " + std::to_string(estimator_bytes));
  }
  if (mem < 0) mem = 0;
  const bool vswa = !o.max_attention_window.empty();
  r.vswa = vswa;
  if (!vswa && o.max_tokens) mem = std::min(mem, static_cast<double>(checked_mul(*o.max_tokens, r.bytes_per_token)));
  if (o.max_gpu_total_bytes && *o.max_gpu_total_bytes) mem = std::min(mem, static_cast<double>(*o.max_gpu_total_bytes));
  r.kv_memory_bytes = static_cast<std::uint64_t>(mem);

  if (!vswa) {
    r.max_tokens = r.kv_memory_bytes / r.bytes_per_token;
    r.blocks = o.cpp_rounding ? ceil_div(r.max_tokens, tpb) : r.max_tokens / tpb;
    TrtllmWindow w{0, stage.size(), r.bytes_per_token, r.blocks, r.blocks * tpb};
    r.windows.push_back(w);
    const std::uint64_t per_seq = ceil_div(r.max_seq_len, tpb);
    r.max_concurrency = static_cast<double>(r.blocks) / static_cast<double>(per_seq);
  } else {
    if (o.max_tokens) r.notes.push_back("max_tokens is ignored under VSWA");
    // Windows repeat as a pattern over the attention layers; group the stage's layers by window.
    std::map<std::uint64_t, TrtllmWindow> by;
    for (std::size_t i = 0; i < stage.size(); ++i) {
      const std::uint64_t w = std::min(o.max_attention_window[i % o.max_attention_window.size()], r.max_seq_len);
      if (w == 0) throw InputError::value("max_attention_window", "0", "positive window sizes");
      auto& g = by[w];
      g.window = w;
      g.layers++;
      g.bytes_per_token = checked_add(g.bytes_per_token, stage[i].bytes);
    }
    double total_weight = 0;
    for (auto& [w, g] : by) total_weight += o.cpp_share_policy ? static_cast<double>(w) * static_cast<double>(g.bytes_per_token) : 1.0;
    r.max_concurrency = -1;
    for (auto& [w, g] : by) {
      const double share = (o.cpp_share_policy ? static_cast<double>(w) * static_cast<double>(g.bytes_per_token) : 1.0) / total_weight;
      g.blocks = static_cast<std::uint64_t>(mem * share / static_cast<double>(g.bytes_per_token) / static_cast<double>(tpb));
      g.tokens = g.blocks * tpb;
      r.blocks += g.blocks;
      const double conc = static_cast<double>(g.blocks) / static_cast<double>(ceil_div(std::min(w, r.max_seq_len), tpb));
      r.max_concurrency = r.max_concurrency < 0 ? conc : std::min(r.max_concurrency, conc);
      r.windows.push_back(g);
      r.log_lines.push_back("[windowSize=" + std::to_string(w) + "] {.primaryBlocks=" + std::to_string(g.blocks) +
                            ", .secondayBlocks=0}");
    }
    r.max_tokens = r.windows.back().tokens;  // the largest window's pool
  }
  // validate_and_adjust_attention_windows: one sequence must fit in the pool.
  std::uint64_t cap = UINT64_MAX;
  for (const auto& w : r.windows) cap = std::min(cap, w.blocks * tpb);
  if (cap == 0) {
    r.starts = false;
    r.error = "not enough GPU memory for a single KV cache block (" + format_count(r.block_bytes) + " bytes)";
    r.log_lines.push_back("RuntimeError: " + r.error);
  } else if (!vswa && cap < r.max_seq_len) {
    r.log_lines.push_back("max_seq_len reduced from " + std::to_string(r.max_seq_len) + " to " + std::to_string(cap) +
                          " to fit the KV cache");
    r.notes.push_back("the KV pool holds fewer tokens than max_seq_len: TensorRT-LLM lowers max_seq_len to " + std::to_string(cap));
    r.max_seq_len = cap;
  }
  r.log_lines.push_back("max_tokens=" + std::to_string(r.max_tokens) + ", blocks=" + std::to_string(r.blocks) +
                        " of " + std::to_string(tpb) + " tokens");
  return r;
}

}  // namespace kvplan
