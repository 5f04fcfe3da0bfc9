#pragma once
// Engine profiles: plain options structs plus one function per engine that maps a ModelSpec onto
// that engine's own pages / blocks / cells / pools, reproducing the figures it logs.
// The rules restated in docs/engines.md (and /shared/spec/engines.md) are the source; every
// byte count is exact (checked uint64). Floats appear only where the engine itself works in
// floats (fractions, "x" concurrency, SGLang's GiB arithmetic).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/dtype.h"
#include "kvplan/model.h"
#include "kvplan/units.h"

namespace kvplan {

enum class EngineKind { vllm, llamacpp, sglang, trtllm, ollama };
// "vllm", "llama.cpp" (also "llamacpp", "llama-cpp"), "sglang", "trtllm" (also "tensorrt-llm"), "ollama".
EngineKind parse_engine(std::string_view name);
std::string_view engine_name(EngineKind e);

// An "auto" KV cache on a ModelOpt checkpoint that names kv_cache_quant_algo
// (ModelSpec::kv_cache_quant_algo): vLLM 0.14 and later (resolve_kv_cache_dtype_string) and
// SGLang (configure_kv_cache_dtype) take "FP8" as fp8_e4m3, TensorRT-LLM (ModelLoader
// _update_from_hf_quant_config) "FP8" and "NVFP4"; any other value leaves the model dtype, as the
// engines do. nullopt: the model dtype. `notes`, when given, gets a line saying which applied
// (nothing when the checkpoint names none).
std::optional<Dtype> checkpoint_kv_cache_dtype(const ModelSpec& m, EngineKind engine,
                                               std::vector<std::string>* notes = nullptr);

// ---------------------------------------------------------------------------------------------
// vLLM (v1)
// ---------------------------------------------------------------------------------------------
struct VllmOptions {
  std::uint64_t max_model_len = 0;             // 0: the model's max_position_embeddings
  std::optional<std::uint64_t> block_size;     // --block-size; unset: 16, or the MLA backend's size
  std::string kv_cache_dtype = "auto";         // auto, fp8, fp8_e4m3, fp8_e5m2, fp8_ds_mla, nvfp4, bf16, fp16, fp32
  // "auto" follows the checkpoint's kv_cache_quant_algo (vLLM 0.14 and later, PR #30785);
  // kvplan check turns it off for an older --engine-version (the model dtype: more bytes a token).
  bool auto_kv_follows_checkpoint = true;
  std::uint64_t tensor_parallel_size = 1;
  std::uint64_t pipeline_parallel_size = 1;
  std::uint64_t max_num_batched_tokens = 8192;
  // Attention backend; "" = the platform default (FLASH_ATTN for MHA; FLASHMLA on Hopper for MLA,
  // FLASHMLA_SPARSE for DeepSeek-V3.2). Known: FLASH_ATTN, FLASHINFER, FLASHMLA, FLASHMLA_SPARSE,
  // FLASHINFER_MLA, CUTLASS_MLA, TRITON_MLA.
  std::string attention_backend;
  bool blackwell = false;                      // platform default for MLA becomes FLASHINFER_MLA
  bool enable_prefix_caching = true;
  std::string mamba_cache_mode;                // "" = default (align with prefix caching, none without); none|align|all
  std::uint64_t mamba_chunk_size = 64;         // used by mamba_cache_mode=all
  std::string mamba_cache_dtype = "auto";      // conv state
  std::string mamba_ssm_cache_dtype = "auto";  // temporal state ("auto" follows the conv dtype)
  std::uint64_t num_speculative_tokens = 0;
  bool disable_hybrid_kv_cache_manager = false;
  std::optional<std::uint64_t> num_gpu_blocks_override;
  // Memory. available_kv_bytes (per GPU) wins when set; else --kv-cache-memory; else the budget
  // ceil(util * gpu_memory_bytes) - weights - activation peak - non-torch - CUDA-graph estimate.
  std::optional<std::uint64_t> available_kv_bytes;
  std::optional<std::uint64_t> kv_cache_memory_bytes;
  double gpu_memory_utilization = 0.9;
  std::uint64_t gpu_memory_bytes = 0;
  std::uint64_t weights_bytes = 0;             // per GPU
  std::uint64_t activation_peak_bytes = 0;
  std::uint64_t non_torch_bytes = 0;
  std::uint64_t cudagraph_bytes = 0;
};

// A KV cache group's kind: the KVCacheSpec its layers share (vllm/v1/kv_cache_interface.py:
// FullAttentionSpec, SlidingWindowSpec, ChunkedLocalAttentionSpec, MLAAttentionSpec, MambaSpec).
// The engine profile and the simulator's managers switch over it; the names are for output only.
enum class VllmGroupKind { full_attention, sliding_window, chunked_local, mla, mamba };
std::string_view vllm_group_kind_name(VllmGroupKind k);  // "full_attention", "sliding_window", ...

struct VllmGroup {
  VllmGroupKind kind = VllmGroupKind::full_attention;
  std::uint64_t block_size = 0;     // tokens per block of this group (after unification)
  std::uint64_t page_bytes = 0;     // one block of one layer
  std::uint64_t window = 0;         // sliding window / chunk (0 otherwise)
  std::vector<std::uint64_t> layers;  // model layer indices (padding slots not listed)
  std::uint64_t blocks_per_request = 0;  // blocks one request at max_model_len needs per layer
};

struct VllmResult {
  std::uint64_t max_model_len = 0;
  std::uint64_t block_size = 0;         // the smallest block size among groups (the report's unit)
  std::uint64_t attention_block_size = 0;  // the attention block after hybrid alignment
  std::uint64_t page_bytes = 0;         // the (unified) page of one layer; 0 for UniformType
  std::string layout;                   // "uniform", "uniform_type", "hybrid"
  std::uint64_t group_size = 0;         // layers sharing one tensor (hybrid) / layers (uniform)
  std::uint64_t num_groups = 0;
  std::uint64_t padding_layers = 0;     // "Add N padding layers"
  std::uint64_t mamba_page_bytes = 0;   // unpadded Mamba page (0 if none)
  std::uint64_t mamba_page_padded_bytes = 0;
  std::string mamba_cache_mode;
  std::vector<VllmGroup> groups;
  std::uint64_t kv_heads_per_rank = 0;  // attention layers (0 when none); MLA = 1 (replicated)
  std::uint64_t bytes_per_token = 0;    // attention bytes per token, all layers of the worst stage
  std::uint64_t available_kv_bytes = 0; // per GPU (0 when the budget is negative)
  std::int64_t budget_bytes = 0;        // the signed budget before clamping
  std::uint64_t num_blocks = 0;         // min over PP stages
  std::uint64_t kv_cache_bytes = 0;     // allocated tensors on the worst stage
  std::uint64_t kv_cache_tokens = 0;    // "GPU KV cache size: N tokens"
  double max_concurrency = 0;           // "Maximum concurrency for M tokens per request: X.XXx"
  std::uint64_t request_bytes = 0;      // worst case for one request at max_model_len (worst stage)
  bool starts = true;                   // the start-up check passes
  std::uint64_t max_fitting_len = 0;    // the largest max_model_len that passes the check
  std::string error;                    // vLLM's start-up error when !starts
  std::vector<std::string> log_lines;
  std::vector<std::string> notes;
};

VllmResult vllm_profile(const ModelSpec& m, const VllmOptions& o);

// ---------------------------------------------------------------------------------------------
// llama.cpp (llama-server / libllama)
// ---------------------------------------------------------------------------------------------
struct LlamaCppOptions {
  std::uint64_t ctx_size = 0;                // -c; 0 = n_ctx_train (max_position_embeddings)
  std::optional<std::uint64_t> parallel;     // -np; unset: server default (4 slots, unified)
  bool server = true;                        // llama-server defaults (false: libllama, 1 sequence)
  bool kv_unified = false;                   // -kvu
  std::string cache_type_k = "f16";          // -ctk
  std::string cache_type_v = "f16";          // -ctv
  std::uint64_t batch_size = 2048;           // -b
  std::uint64_t ubatch_size = 512;           // -ub
  bool swa_full = false;                     // --swa-full
  std::string flash_attn = "auto";           // -fa on|off|auto
  bool mla_v_less = true;                    // after PR #19067 (Jan 2026): MLA stores K only
};

struct LlamaCppCache {
  std::string name;              // "llama_kv_cache" (base), "llama_kv_cache" (SWA) or "llama_memory_recurrent"
  std::string role;              // "kv", "swa", "recurrent"
  std::uint64_t cells = 0;       // per stream (recurrent: mem_size)
  std::uint64_t layers = 0;      // printed layer count
  std::uint64_t streams = 1;
  std::uint64_t k_bytes = 0;     // recurrent: R
  std::uint64_t v_bytes = 0;     // recurrent: S
  std::string k_type, v_type;
  std::string log_line;
};

struct LlamaCppResult {
  std::uint64_t n_ctx = 0;       // after padding and stream rounding
  std::uint64_t n_ctx_seq = 0;   // the per-slot context
  std::uint64_t n_seq_max = 1;
  std::uint64_t n_stream = 1;
  bool kv_unified = false;
  std::uint64_t n_ubatch = 0;    // effective
  std::uint64_t cells = 0;       // base KV cache cells per stream
  std::uint64_t swa_cells = 0;   // SWA cache cells per stream (0 when none)
  std::uint64_t k_bytes = 0, v_bytes = 0, kv_bytes = 0;
  std::uint64_t r_bytes = 0, s_bytes = 0, state_bytes = 0;
  std::uint64_t total_bytes = 0;
  std::vector<LlamaCppCache> caches;
  std::vector<std::string> log_lines;
  std::vector<std::string> notes;
};

LlamaCppResult llamacpp_profile(const ModelSpec& m, const LlamaCppOptions& o);

// ---------------------------------------------------------------------------------------------
// SGLang
// ---------------------------------------------------------------------------------------------
struct SglangOptions {
  std::uint64_t context_length = 0;          // 0: max_position_embeddings
  std::uint64_t tp_size = 1, pp_size = 1, dp_size = 1;
  bool enable_dp_attention = false;
  std::optional<double> mem_fraction_static; // unset: the default heuristic
  std::optional<std::uint64_t> page_size;    // unset: the attention backend's
  std::string attention_backend;             // "" = default (fa3 on Hopper; trtllm_mha / flashinfer on SM100)
  bool blackwell = false;
  std::string kv_cache_dtype = "auto";       // auto, fp8_e4m3, fp8_e5m2, bf16
  std::optional<std::uint64_t> max_total_tokens;
  std::optional<std::uint64_t> max_running_requests;
  std::optional<std::uint64_t> chunked_prefill_size;
  std::optional<std::uint64_t> cuda_graph_max_bs;
  // Memory: `rest_bytes` wins when set (the KV budget after weights); else
  // free_now - free_before * (1 - mem_fraction_static) with free_now = free_before - weights.
  std::optional<std::uint64_t> rest_bytes;
  std::uint64_t gpu_memory_bytes = 0;        // device total (for the default fraction)
  std::uint64_t free_before_bytes = 0;       // free after distributed init, before weights
  std::uint64_t weights_bytes = 0;           // per GPU
  double swa_full_tokens_ratio = 0.8;
  bool disable_hybrid_swa_memory = false;
  double mamba_full_memory_ratio = 0.9;
  std::optional<std::uint64_t> max_mamba_cache_size;
  std::string mamba_ssm_dtype = "float32";
  bool disable_radix_cache = false;
};

struct SglangResult {
  double mem_fraction_static = 0;
  bool mem_fraction_default = false;
  std::uint64_t reserved_mib = 0;             // the default heuristic's reservation
  std::uint64_t chunked_prefill_size = 0, cuda_graph_max_bs = 0;
  std::uint64_t page_size = 1;
  std::uint64_t cell_size = 0;                // bytes per token, all KV layers of one rank
  std::uint64_t rest_bytes = 0;               // memory for KV (+ Mamba) after weights
  std::uint64_t max_total_num_tokens = 0;     // after caps and page rounding
  std::uint64_t rows_allocated = 0;           // tokens + page_size (the dummy row/page)
  std::uint64_t k_bytes = 0, v_bytes = 0, kv_bytes = 0;
  // hybrid SWA
  std::uint64_t full_tokens = 0, swa_tokens = 0;
  // Mamba hybrids
  std::uint64_t mamba_cache_per_req = 0, mamba_slots = 0, mamba_bytes = 0;
  std::uint64_t context_length = 0;
  std::uint64_t max_running_requests = 0;
  double max_concurrency = 0;                 // tokens / context_length (capped by Mamba slots)
  bool starts = true;
  std::string error;
  std::vector<std::string> log_lines;
  std::vector<std::string> notes;
};

// The default mem_fraction_static heuristic and its inputs (gpu_memory_bytes must be set).
SglangResult sglang_profile(const ModelSpec& m, const SglangOptions& o);

// ---------------------------------------------------------------------------------------------
// TensorRT-LLM (PyTorch backend)
// ---------------------------------------------------------------------------------------------
struct TrtllmOptions {
  std::uint64_t tokens_per_block = 32;
  double free_gpu_memory_fraction = 0.9;
  std::optional<std::uint64_t> max_tokens;
  std::optional<std::uint64_t> max_gpu_total_bytes;
  std::string kv_cache_dtype = "auto";        // auto, fp8, nvfp4, bf16, fp16
  std::uint64_t tp_size = 1, pp_size = 1;
  bool enable_attention_dp = false;
  std::vector<std::uint64_t> max_attention_window;  // per-layer pattern; empty = no VSWA
  bool cpp_share_policy = false;              // VSWA shares by window x bytes (C++ path)
  bool cpp_rounding = false;                  // blocks = ceil (C++ path) instead of floor
  std::uint64_t max_seq_len = 0;              // 0: max_position_embeddings
  std::uint64_t max_batch_size = 2048;
  std::string mamba_ssm_cache_dtype = "auto";
  // Memory: kv_memory_bytes (per GPU, already x fraction) wins when set; else
  // (total - peak + temp_kv) * fraction.
  std::optional<std::uint64_t> kv_memory_bytes;
  std::uint64_t gpu_memory_bytes = 0;
  std::uint64_t peak_bytes = 0;               // torch peak + non-torch during profiling
  std::uint64_t temp_kv_bytes = 0;
};

struct TrtllmWindow {
  std::uint64_t window = 0;        // tokens (0 = full context)
  std::uint64_t layers = 0;
  std::uint64_t bytes_per_token = 0;
  std::uint64_t blocks = 0;
  std::uint64_t tokens = 0;
};

struct TrtllmResult {
  std::uint64_t bytes_per_token = 0;         // as the pool holds it: ceil(Hkv / tp) whole heads per rank
  // As the estimator (KVCacheManager.get_cache_size_per_token) counts it, h x Hkv // tp: below
  // bytes_per_token once tp exceeds the KV heads.
  std::uint64_t estimator_bytes_per_token = 0;
  std::uint64_t block_bytes = 0;             // one block, all layers of the rank
  std::uint64_t kv_memory_bytes = 0;
  std::uint64_t max_tokens = 0;
  std::uint64_t blocks = 0;
  std::uint64_t max_seq_len = 0;
  double max_concurrency = 0;
  bool vswa = false;
  std::vector<TrtllmWindow> windows;
  std::uint64_t mamba_bytes = 0;             // conv + ssm for max_batch_size slots
  bool starts = true;
  std::string error;
  std::vector<std::string> log_lines;
  std::vector<std::string> notes;
};

TrtllmResult trtllm_profile(const ModelSpec& m, const TrtllmOptions& o);

// ---------------------------------------------------------------------------------------------
// Formatters (engine_report.cpp): JSON objects and text reports.
// ---------------------------------------------------------------------------------------------
nlohmann::json to_json(const VllmResult& r);
nlohmann::json to_json(const LlamaCppResult& r);
nlohmann::json to_json(const SglangResult& r);
nlohmann::json to_json(const TrtllmResult& r);
std::string format_engine_text(const VllmResult& r);
std::string format_engine_text(const LlamaCppResult& r);
std::string format_engine_text(const SglangResult& r);
std::string format_engine_text(const TrtllmResult& r);


}  // namespace kvplan

#include "kvplan/engine_ollama.h"  // the fifth engine (kvplan/engine_ollama.h)
