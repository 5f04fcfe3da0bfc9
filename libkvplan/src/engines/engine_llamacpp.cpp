// llama.cpp profile: n_ctx padding, streams, the KV cache / iSWA / recurrent memories and the
// exact `llama_kv_cache: size = ...` lines. Rules: docs/engines.md section "llama.cpp"
// (llama-context.cpp, llama-kv-cache*.cpp, llama-memory-recurrent.cpp, and the addendum's
// rules confirmed against a real build).
#include <algorithm>
#include <cstdio>
#include <variant>

#include "kvplan/checked.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {

constexpr std::uint64_t kPad = 256;
std::uint64_t pad256(std::uint64_t n) { return ceil_div(n, kPad) * kPad; }

struct GgmlType {
  std::string_view name;
  Dtype dtype;
  bool quantized;
};
constexpr GgmlType kTypes[] = {
    {"f32", Dtype::fp32, false},  {"f16", Dtype::fp16, false},  {"bf16", Dtype::bf16, false},
    {"q8_0", Dtype::q8_0, true},  {"q4_0", Dtype::q4_0, true},  {"q4_1", Dtype::q4_1, true},
    {"q5_0", Dtype::q5_0, true},  {"q5_1", Dtype::q5_1, true},  {"iq4_nl", Dtype::iq4_nl, true},
};

const GgmlType& ggml_type(const std::string& s, const char* flag) {
  for (const auto& t : kTypes)
    if (t.name == s) return t;
  throw InputError::value(flag, s, "one of f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl");
}

std::string kv_line(const char* func, std::uint64_t cells, std::uint64_t layers, std::uint64_t seqs,
                    std::uint64_t streams, std::string_view tk, std::uint64_t k, std::string_view tv, std::uint64_t v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: size = %s MiB (%6u cells, %3d layers, %2u/%u seqs), K (%.*s): %s MiB, V (%.*s): %s MiB",
                func, format_llama_mib(k + v).c_str(), static_cast<unsigned>(cells), static_cast<int>(layers),
                static_cast<unsigned>(seqs), static_cast<unsigned>(streams), static_cast<int>(tk.size()), tk.data(),
                format_llama_mib(k).c_str(), static_cast<int>(tv.size()), tv.data(), format_llama_mib(v).c_str());
  return buf;
}

}  // namespace

LlamaCppResult llamacpp_profile(const ModelSpec& m, const LlamaCppOptions& o) {
  LlamaCppResult r;
  const GgmlType& tk = ggml_type(o.cache_type_k, "--cache-type-k");
  const GgmlType& tv = ggml_type(o.cache_type_v, "--cache-type-v");
  if (o.flash_attn != "on" && o.flash_attn != "off" && o.flash_attn != "auto")
    throw InputError::value("--flash-attn", o.flash_attn, "on, off or auto");
  if (tv.quantized && o.flash_attn == "off")
    throw InputError::value("--cache-type-v", o.cache_type_v,
                            "a non-quantised V cache when --flash-attn is off (llama.cpp: V cache quantization requires flash_attn)");
  if (tv.quantized && o.flash_attn == "auto") r.notes.push_back("quantised V cache: flash attention is turned on (auto)");
  if (o.ubatch_size == 0) throw InputError::value("--ubatch-size", "0", "a positive integer");
  if (o.batch_size == 0) throw InputError::value("--batch-size", "0", "a positive integer");

  // Context and sequences.
  std::uint64_t n_ctx = o.ctx_size ? o.ctx_size : m.dims.max_position_embeddings;
  if (n_ctx == 0) throw InputError::value("--ctx-size", "0", "a positive context (the config has no max_position_embeddings)");
  if (!o.ctx_size) r.notes.push_back("-c 0: n_ctx = n_ctx_train = " + std::to_string(n_ctx) + " (before --fit, which is not modelled)");
  n_ctx = pad256(n_ctx);
  std::uint64_t n_seq;
  bool unified;
  if (o.server && !o.parallel) {
    n_seq = 4;
    unified = true;
    r.notes.push_back("llama-server without -np: setting n_parallel = 4 and kv_unified = true");
  } else {
    n_seq = o.parallel.value_or(1);
    unified = o.kv_unified;
  }
  if (n_seq == 0 || n_seq > 256) throw InputError::value("--parallel", std::to_string(n_seq), "1 to 256 sequences");
  std::uint64_t n_ctx_seq = n_ctx, n_stream = 1;
  if (!unified) {
    n_ctx_seq = pad256(n_ctx / n_seq);
    n_ctx = checked_mul(n_ctx_seq, n_seq, "llama.cpp n_ctx");
    n_stream = n_seq;
  }
  const std::uint64_t n_batch = std::min(n_ctx, o.batch_size);
  const std::uint64_t n_ubatch = std::min(o.ubatch_size, n_batch);
  r.n_ctx = n_ctx;
  r.n_ctx_seq = n_ctx_seq;
  r.n_seq_max = n_seq;
  r.n_stream = n_stream;
  r.kv_unified = unified;
  r.n_ubatch = n_ubatch;
  r.cells = n_ctx_seq;

  // Row bytes per layer and which cache each layer belongs to.
  struct Acc {
    std::uint64_t layers = 0, k = 0, v = 0;  // bytes per cell per stream
  } base, swa;
  std::uint64_t n_swa = 0, r_per_cell = 0, s_per_cell = 0, n_recurrent = 0;
  bool mla = false;
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers) {
    std::visit(
        [&](const auto& c) {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, Attention>) {
            Acc* acc = &base;
            std::visit(overloaded{
                           [&](const Attention::All&) {},
                           [&](const Attention::Window& w) { acc = &swa, n_swa = std::max(n_swa, w.tokens); },
                           [&](const Attention::Chunk& k) { acc = &swa, n_swa = std::max(n_swa, k.tokens); },
                       },
                       c.span);
            acc->layers++;
            // One row of n_embd_k_gqa / n_embd_v_gqa values (no tensor parallelism).
            const AttentionRowBytes rb = attention_row_bytes(c, tk.dtype, tv.dtype, 1, HeadSplit::flat_row);
            acc->k = checked_add(acc->k, rb.k_bytes, "llama.cpp K row");
            acc->v = checked_add(acc->v, rb.v_bytes, "llama.cpp V row");
          } else if constexpr (std::is_same_v<T, Mla>) {
            mla = true;
            base.layers++;
            base.k = checked_add(base.k, mla_row_bytes(c, tk.dtype, /*with_indexer=*/false), "llama.cpp K row");
            if (!o.mla_v_less) base.v = checked_add(base.v, row_bytes(tv.dtype, c.kv_lora_rank), "llama.cpp V row");
          } else if constexpr (std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> || std::is_same_v<T, ShortConv>) {
            // llama.cpp's recurrent memory: R (conv) and S (SSM) rows in f32, one rank.
            const StateBytes sb = state_bytes(mixer, StateOptions{Dtype::fp32, Dtype::fp32, 1, 0});
            n_recurrent++;
            r_per_cell = checked_add(r_per_cell, sb.conv_bytes, "llama.cpp R bytes");
            s_per_cell = checked_add(s_per_cell, sb.ssm_bytes, "llama.cpp S bytes");
          } else if constexpr (std::is_same_v<T, SharedKv> || std::is_same_v<T, NoCache>) {
            // reads another layer's cache / holds none
          } else {
            static_assert(unhandled_kind<T>, "llama.cpp: a layer kind without a cache rule");
          }
        },
        mixer);
  }
  if (mla && tk.dtype != tv.dtype)
    throw InputError::value("--cache-type-v", o.cache_type_v, "the same type as --cache-type-k for an MLA model (" + o.cache_type_k + ")");
  if (mla && o.mla_v_less) r.notes.push_back("MLA: K only (V-less cache, llama.cpp PR #19067); V is a view of K");
  for (const auto& l : m.layers)
    if (std::any_of(l.mixers.begin(), l.mixers.end(), [](const LayerCache& c) { auto* a = std::get_if<Mla>(&c); return a && a->index_head_dim; })) {
      r.notes.push_back("the sparse-attention indexer keys are not counted (llama.cpp's DeepSeek-V3.2 support is not modelled)");
      break;
    }

  auto add_kv = [&](const Acc& a, std::uint64_t cells, const char* role) {
    LlamaCppCache cc;
    cc.name = "llama_kv_cache";
    cc.role = role;
    cc.cells = cells;
    cc.layers = a.layers;
    cc.streams = n_stream;
    cc.k_bytes = checked_product({a.k, cells, n_stream}, "llama.cpp K bytes");
    cc.v_bytes = checked_product({a.v, cells, n_stream}, "llama.cpp V bytes");
    cc.k_type = tk.name;
    cc.v_type = tv.name;
    cc.log_line = kv_line("llama_kv_cache", cells, a.layers, n_seq, n_stream, tk.name, cc.k_bytes, tv.name, cc.v_bytes);
    r.k_bytes = checked_add(r.k_bytes, cc.k_bytes);
    r.v_bytes = checked_add(r.v_bytes, cc.v_bytes);
    r.caches.push_back(cc);
  };

  if (swa.layers) {
    std::uint64_t size_swa = n_ctx_seq;
    if (!o.swa_full) {
      const std::uint64_t want = checked_add(checked_mul(n_swa, unified ? n_seq : 1), n_ubatch);
      size_swa = pad256(std::min(n_ctx_seq, want));
    }
    r.swa_cells = size_swa;
    r.log_lines.push_back("llama_kv_cache_iswa: creating non-SWA KV cache, size = " + std::to_string(n_ctx_seq) + " cells");
    add_kv(base, n_ctx_seq, "kv");
    r.log_lines.push_back(r.caches.back().log_line);
    r.log_lines.push_back("llama_kv_cache_iswa: creating     SWA KV cache, size = " + std::to_string(size_swa) + " cells");
    add_kv(swa, size_swa, "swa");
    r.log_lines.push_back(r.caches.back().log_line);
  } else if (base.layers) {
    add_kv(base, n_ctx_seq, "kv");
    r.log_lines.push_back(r.caches.back().log_line);
  }
  if (n_recurrent) {
    const std::uint64_t mem = std::max<std::uint64_t>(1, n_seq);
    LlamaCppCache cc;
    cc.name = "llama_memory_recurrent";
    cc.role = "recurrent";
    cc.cells = mem;
    cc.layers = m.num_layers();
    cc.k_bytes = checked_mul(r_per_cell, mem, "llama.cpp R bytes");
    cc.v_bytes = checked_mul(s_per_cell, mem, "llama.cpp S bytes");
    cc.k_type = cc.v_type = "f32";
    char buf[512];
    std::snprintf(buf, sizeof buf, "llama_memory_recurrent: size = %s MiB (%6u cells, %3d layers, %2u seqs), R (f32): %s MiB, S (f32): %s MiB",
                  format_llama_mib(cc.k_bytes + cc.v_bytes).c_str(), static_cast<unsigned>(mem),
                  static_cast<int>(cc.layers), static_cast<unsigned>(n_seq), format_llama_mib(cc.k_bytes).c_str(),
                  format_llama_mib(cc.v_bytes).c_str());
    cc.log_line = buf;
    r.r_bytes = cc.k_bytes;
    r.s_bytes = cc.v_bytes;
    r.log_lines.push_back(cc.log_line);
    r.caches.push_back(cc);
  }
  if (r.caches.empty()) r.notes.push_back("no layer holds a KV cache or state: llama.cpp allocates no memory");
  r.kv_bytes = checked_add(r.k_bytes, r.v_bytes, "llama.cpp KV bytes");
  r.state_bytes = checked_add(r.r_bytes, r.s_bytes, "llama.cpp state bytes");
  r.total_bytes = checked_add(r.kv_bytes, r.state_bytes, "llama.cpp cache bytes");
  return r;
}

}  // namespace kvplan
