// The engine option tables (kvplan/engine_fields.h): one per engine, each entry's setter writing
// the parsed value into the options struct. The flags are those `kvplan engine` has taken since it
// was written (tests and docs use them); a flag several engines read appears, with the same
// spelling, in each table that reads it.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <type_traits>

#include "kvplan/engine_fields.h"
#include "kvplan/error.h"

namespace kvplan {

namespace {
using json = nlohmann::json;
using T = FieldType;

template <class>
inline constexpr bool kUnsupported = false;

// The typed setter: the member's C++ type picks the parse function, the table's type its rules.
template <class O, auto Member>
void set_member(O& o, const json& v, FieldType t, std::string_view label) {
  auto& dst = o.*Member;
  using D = std::remove_cvref_t<decltype(dst)>;
  if constexpr (std::is_same_v<D, bool>) dst = field_bool(v, label);
  else if constexpr (std::is_same_v<D, std::uint64_t> || std::is_same_v<D, std::optional<std::uint64_t>>) dst = field_uint(v, t, label);
  else if constexpr (std::is_same_v<D, double> || std::is_same_v<D, std::optional<double>>) dst = field_number(v, t, label);
  else if constexpr (std::is_same_v<D, std::string>) dst = field_text(v, t, label);
  else if constexpr (std::is_same_v<D, std::vector<std::uint64_t>>) dst = field_uint_list(v, t, label);
  else static_assert(kUnsupported<D>, "no parse function for this member type");
}

// The member back as JSON: an unset optional, an empty name or an empty list is null.
template <class O, auto Member>
json get_member(const O& o) {
  const auto& v = o.*Member;
  using D = std::remove_cvref_t<decltype(v)>;
  if constexpr (std::is_same_v<D, std::optional<std::uint64_t>> || std::is_same_v<D, std::optional<double>>) {
    return v ? json(*v) : json(nullptr);
  } else if constexpr (std::is_same_v<D, std::string> || std::is_same_v<D, std::vector<std::uint64_t>>) {
    return v.empty() ? json(nullptr) : json(v);
  } else {
    return json(v);
  }
}

#define KVPLAN_ENGINE_FIELD(O, member, flags, type, unit, def, help) \
  EngineOptionField<O>{{#member, flags, T::type, unit, def, help}, &set_member<O, &O::member>, &get_member<O, &O::member>}

// Flags several engines read, spelled once.
constexpr std::string_view kTp = "--tensor-parallel-size,--tp-size,--tp";
constexpr std::string_view kPp = "--pipeline-parallel-size,--pp-size,--pp";
constexpr std::string_view kDpAttention = "--enable-dp-attention,--enable-attention-dp";

#define F(member, flags, type, unit, def, help) KVPLAN_ENGINE_FIELD(VllmOptions, member, flags, type, unit, def, help)
constexpr std::array kVllm{
    F(max_model_len, "--max-model-len", tokens, "tokens", "0", "max_model_len (0 = the config's max_position_embeddings)"),
    F(block_size, "--block-size", count, "tokens", "", "block size in tokens (default: 16, or the MLA backend's)"),
    F(kv_cache_dtype, "--kv-cache-dtype", text, "", "auto",
      "KV cache dtype in the engine's own names (vLLM: auto, fp8, fp8_e4m3, fp8_e5m2, fp8_ds_mla, nvfp4, bf16, fp16, fp32)"),
    F(tensor_parallel_size, kTp, count, "", "1", "tensor-parallel size"),
    F(pipeline_parallel_size, kPp, count, "", "1", "pipeline-parallel size"),
    F(max_num_batched_tokens, "--max-num-batched-tokens", tokens, "tokens", "8192", "max_num_batched_tokens"),
    F(attention_backend, "--attention-backend", text, "", "",
      "attention backend (default: the platform's; FLASH_ATTN, FLASHINFER, FLASHMLA, FLASHMLA_SPARSE, FLASHINFER_MLA, "
      "CUTLASS_MLA, TRITON_MLA)"),
    F(blackwell, "--blackwell", boolean, "", "false", "platform defaults of SM100 GPUs (MLA / page-size backends)"),
    F(enable_prefix_caching, "--no-enable-prefix-caching", boolean, "", "true", "prefix caching (the flag turns it off)"),
    F(mamba_cache_mode, "--mamba-cache-mode", text, "", "", "none, align or all (default: align with prefix caching, none without)"),
    F(mamba_chunk_size, "--mamba-chunk-size", tokens, "tokens", "64", "Mamba chunk size (mamba_cache_mode all)"),
    F(mamba_cache_dtype, "--mamba-cache-dtype", text, "", "auto", "Mamba conv state dtype"),
    F(mamba_ssm_cache_dtype, "--mamba-ssm-cache-dtype", text, "", "auto", "Mamba SSM state dtype (auto follows the conv dtype)"),
    F(num_speculative_tokens, "--num-speculative-tokens", tokens, "tokens", "0", "speculative tokens (Mamba state rows)"),
    F(disable_hybrid_kv_cache_manager, "--disable-hybrid-kv-cache-manager", boolean, "", "false",
      "size sliding layers for the full context"),
    F(num_gpu_blocks_override, "--num-gpu-blocks-override", count, "blocks", "", "replace num_blocks"),
    F(available_kv_bytes, "--available-kv-memory", bytes, "bytes", "",
      "available KV memory per GPU, as vLLM computed it (wins over every other memory option)"),
    F(kv_cache_memory_bytes, "--kv-cache-memory,--kv-cache-memory-bytes", bytes, "bytes", "",
      "KV cache memory per GPU (e.g. 40GiB): the available KV memory"),
    F(gpu_memory_utilization, "--gpu-memory-utilization", fraction, "", "0.9", "fraction of total memory"),
    F(gpu_memory_bytes, "--gpu-memory", bytes, "bytes", "0", "device total memory, e.g. 80GiB"),
    F(weights_bytes, "--weights", bytes, "bytes", "0", "weight memory per GPU"),
    F(activation_peak_bytes, "--activation-memory", bytes, "bytes", "0", "profiled activation peak per GPU"),
    F(non_torch_bytes, "--non-torch-memory", bytes, "bytes", "0", "non-torch memory per GPU"),
    F(cudagraph_bytes, "--cudagraph-memory", bytes, "bytes", "0", "CUDA graph estimate per GPU"),
};
#undef F

#define F(member, flags, type, unit, def, help) KVPLAN_ENGINE_FIELD(LlamaCppOptions, member, flags, type, unit, def, help)
constexpr std::array kLlamaCpp{
    F(ctx_size, "--ctx-size,-c", tokens, "tokens", "0", "n_ctx (0 = n_ctx_train)"),
    F(parallel, "--parallel", count, "sequences", "", "-np: sequences (unset: llama-server's 4 unified slots)"),
    F(server, "--no-server", boolean, "", "true", "llama-server defaults (the flag: libllama's, 1 sequence)"),
    F(kv_unified, "--kv-unified", boolean, "", "false", "one unified KV stream"),
    F(cache_type_k, "--cache-type-k", text, "", "f16", "K type (f16, q8_0, q4_0, ...)"),
    F(cache_type_v, "--cache-type-v", text, "", "f16", "V type"),
    F(batch_size, "--batch-size,-b", count, "tokens", "2048", "n_batch"),
    F(ubatch_size, "--ubatch-size", count, "tokens", "512", "n_ubatch"),
    F(swa_full, "--swa-full", boolean, "", "false", "full-size SWA cache"),
    F(flash_attn, "--flash-attn", text, "", "auto", "on, off or auto"),
    F(mla_v_less, "--before-v-less", boolean, "", "true",
      "MLA caches K only, as after llama.cpp PR #19067 (the flag: a separate V, as before it)"),
};
#undef F

#define F(member, flags, type, unit, def, help) KVPLAN_ENGINE_FIELD(SglangOptions, member, flags, type, unit, def, help)
constexpr std::array kSglang{
    F(context_length, "--context-length", tokens, "tokens", "0", "context_length (0 = the config's)"),
    F(tp_size, kTp, count, "", "1", "tensor-parallel size"),
    F(pp_size, kPp, count, "", "1", "pipeline-parallel size"),
    F(dp_size, "--dp-size", count, "", "1", "data-parallel size"),
    F(enable_dp_attention, kDpAttention, boolean, "", "false", "DP attention"),
    F(mem_fraction_static, "--mem-fraction-static", fraction, "", "", "mem_fraction_static (default: the heuristic)"),
    F(page_size, "--page-size", count, "tokens", "", "page size (default: the attention backend's)"),
    F(attention_backend, "--attention-backend", text, "", "",
      "attention backend (default: fa3 on Hopper; trtllm_mha / flashinfer on SM100)"),
    F(blackwell, "--blackwell", boolean, "", "false", "platform defaults of SM100 GPUs (page-size backends)"),
    F(kv_cache_dtype, "--kv-cache-dtype", text, "", "auto", "KV cache dtype in SGLang's names (auto, fp8_e4m3, fp8_e5m2, bf16)"),
    F(max_total_tokens, "--max-total-tokens", tokens, "tokens", "", "cap on KV tokens"),
    F(max_running_requests, "--max-running-requests", count, "requests", "", "max running requests"),
    F(chunked_prefill_size, "--chunked-prefill-size", count, "tokens", "", "chunked_prefill_size (default: by GPU memory)"),
    F(cuda_graph_max_bs, "--cuda-graph-max-bs", count, "requests", "", "cuda_graph_max_bs (default: by GPU memory)"),
    F(rest_bytes, "--kv-memory", bytes, "bytes", "", "memory for the KV cache per GPU (SGLang: after weights)"),
    F(gpu_memory_bytes, "--gpu-memory", bytes, "bytes", "0", "device total memory, e.g. 80GiB"),
    F(free_before_bytes, "--free-memory", bytes, "bytes", "", "free memory before weights (default: --gpu-memory)"),
    F(weights_bytes, "--weights", bytes, "bytes", "0", "weight memory per GPU"),
    F(swa_full_tokens_ratio, "--swa-full-tokens-ratio", fraction, "", "0.8", "SWA tokens : full tokens (hybrid SWA pools)"),
    F(disable_hybrid_swa_memory, "--disable-hybrid-swa-memory", boolean, "", "false", "one pool for SWA and full layers"),
    F(mamba_full_memory_ratio, "--mamba-full-memory-ratio", fraction, "", "0.9", "Mamba memory : full-attention memory"),
    F(max_mamba_cache_size, "--max-mamba-cache-size", count, "requests", "", "Mamba slots"),
    F(mamba_ssm_dtype, "--mamba-ssm-dtype", text, "", "float32", "SSM state dtype"),
    F(disable_radix_cache, "--disable-radix-cache", boolean, "", "false", "radix cache off"),
};
#undef F

#define F(member, flags, type, unit, def, help) KVPLAN_ENGINE_FIELD(TrtllmOptions, member, flags, type, unit, def, help)
constexpr std::array kTrtllm{
    F(tokens_per_block, "--tokens-per-block", count, "tokens", "32", "tokens per block"),
    F(free_gpu_memory_fraction, "--free-gpu-memory-fraction", fraction, "", "0.9", "fraction of memory free after the profiled peak"),
    F(max_tokens, "--max-tokens", tokens, "tokens", "", "kv_cache_config.max_tokens"),
    F(max_gpu_total_bytes, "--max-gpu-total-bytes", bytes, "bytes", "", "kv_cache_config.max_gpu_total_bytes"),
    F(kv_cache_dtype, "--kv-cache-dtype", text, "", "auto", "KV cache dtype in TensorRT-LLM's names (auto, fp8, nvfp4, bf16, fp16)"),
    F(tp_size, kTp, count, "", "1", "tensor-parallel size"),
    F(pp_size, kPp, count, "", "1", "pipeline-parallel size"),
    F(enable_attention_dp, kDpAttention, boolean, "", "false", "attention DP"),
    F(max_attention_window, "--max-attention-window", token_list, "tokens", "",
      "per-layer windows, repeated as a pattern (VSWA)"),
    F(cpp_share_policy, "--cpp", boolean, "", "false", "the C++ manager's rules: window-weighted VSWA shares (the flag also sets cpp_rounding)"),
    F(cpp_rounding, "--cpp", boolean, "", "false", "the C++ manager's rules: ceil blocks (the flag also sets cpp_share_policy)"),
    F(max_seq_len, "--max-seq-len", tokens, "tokens", "0", "max_seq_len (0 = the config's)"),
    F(max_batch_size, "--max-batch-size", count, "sequences", "2048", "max_batch_size (Mamba slots)"),
    F(mamba_ssm_cache_dtype, "--mamba-ssm-cache-dtype", text, "", "auto", "Mamba SSM state dtype"),
    F(kv_memory_bytes, "--kv-memory", bytes, "bytes", "", "memory for the KV cache per GPU (TensorRT-LLM: after the fraction)"),
    F(gpu_memory_bytes, "--gpu-memory", bytes, "bytes", "0", "device total memory, e.g. 80GiB"),
    F(peak_bytes, "--peak-memory", bytes, "bytes", "0", "profiled peak (torch + non-torch)"),
    F(temp_kv_bytes, "--temp-kv-memory", bytes, "bytes", "0", "the profiling KV cache added back"),
};
#undef F

// Ollama's settings by the names of its Modelfile parameters and OLLAMA_* variables (envconfig/config.go,
// v0.11.4); the free memory of each GPU is what its discovery reports (the "inference compute" log line).
#define F(member, flags, type, unit, def, help) KVPLAN_ENGINE_FIELD(OllamaOptions, member, flags, type, unit, def, help)
constexpr std::array kOllama{
    F(num_ctx, "--num-ctx", tokens, "tokens", "4096", "num_ctx per request (PARAMETER num_ctx, else OLLAMA_CONTEXT_LENGTH)"),
    F(num_parallel, "--num-parallel", count, "sequences", "1", "OLLAMA_NUM_PARALLEL: requests served at once"),
    F(num_batch, "--num-batch", count, "tokens", "512", "num_batch"),
    F(num_gpu, "--num-gpu", count, "layers", "", "num_gpu: layers on the GPU (default: as many as fit)"),
    F(flash_attention, "--flash-attention", boolean, "", "false", "OLLAMA_FLASH_ATTENTION"),
    F(gpu_flash_attention, "--no-gpu-flash-attention", boolean, "", "true",
      "a GPU without flash-attention support (the flag: Ollama turns flash attention off)"),
    F(kv_cache_type, "--kv-cache-type", text, "", "", "OLLAMA_KV_CACHE_TYPE: f16, q8_0 or q4_0 (default f16; quantized needs flash attention)"),
    F(gpu_overhead_bytes, "--gpu-overhead", bytes, "bytes", "0", "OLLAMA_GPU_OVERHEAD per GPU"),
    F(metal, "--metal", boolean, "", "false", "Apple Metal (no partial-offload graph)"),
    F(new_engine, "--new-engine", boolean, "", "false", "OLLAMA_NEW_ENGINE: the Ollama engine for every architecture"),
    F(gpu_free_bytes, "--gpu-free", bytes_list, "bytes", "",
      "free memory of each GPU as Ollama discovers it, e.g. 23.2GiB,23.2GiB (none: the CPU runner)"),
    F(gpu_minimum_bytes, "--gpu-minimum", bytes, "bytes", "457MiB", "memory Ollama leaves free on each GPU (Metal: 512MiB)"),
    F(layer_bytes, "--layer-bytes", bytes_list, "bytes", "",
      "weights of each block (one value: every block; default: the GGUF tensor infos)"),
    F(output_bytes, "--output-bytes", bytes, "bytes", "", "weights of the output layer (default: the GGUF tensor infos)"),
    F(vocab, "--vocab", count, "tokens", "", "vocabulary size (default: the config's vocab_size)"),
};
#undef F
#undef KVPLAN_ENGINE_FIELD

template <class O>
O options_from_request(std::span<const EngineOptionField<O>> table, const json& req, FieldNaming naming,
                       std::string_view engine) {
  if (!req.is_object())
    throw InputError::value(std::string(engine) + " options", req.dump(), "an object of option names and values");
  O o;
  for (const auto& item : req.items()) {
    // (Not a structured binding: clang before 16 cannot capture one in the lambda.)
    const std::string& key = item.key();
    const json& value = item.value();
    const auto it = std::find_if(table.begin(), table.end(), [&](const auto& f) { return f.name == key; });
    if (it == table.end()) {
      std::string known;
      for (const auto& f : table) known += (known.empty() ? "" : ", ") + std::string(field_label(f, naming));
      throw InputError(std::string(InputError::unknown(std::string(engine) + " option", key, "").what()) +
                       "; the options are " + known);
    }
    if (field_unset(value)) continue;  // the default
    it->set(o, value, it->type, field_label(*it, naming));
  }
  return o;
}

template <class O>
json echo(std::span<const EngineOptionField<O>> table, const O& o) {
  json j = json::object();
  for (const auto& f : table) j[std::string(f.name)] = f.get(o);
  return j;
}

template <class O>
std::vector<EngineField> plain(std::span<const EngineOptionField<O>> table) {
  return {table.begin(), table.end()};
}
}  // namespace

std::span<const EngineOptionField<VllmOptions>> vllm_fields() { return kVllm; }
std::span<const EngineOptionField<LlamaCppOptions>> llamacpp_fields() { return kLlamaCpp; }
std::span<const EngineOptionField<SglangOptions>> sglang_fields() { return kSglang; }
std::span<const EngineOptionField<TrtllmOptions>> trtllm_fields() { return kTrtllm; }
std::span<const EngineOptionField<OllamaOptions>> ollama_fields() { return kOllama; }

std::vector<EngineField> engine_fields(EngineKind e) {
  switch (e) {
    case EngineKind::vllm: return plain(vllm_fields());
    case EngineKind::llamacpp: return plain(llamacpp_fields());
    case EngineKind::sglang: return plain(sglang_fields());
    case EngineKind::trtllm: return plain(trtllm_fields());
    case EngineKind::ollama: return plain(ollama_fields());
  }
  return {};
}

std::string_view field_label(const EngineField& f, FieldNaming naming) {
  if (naming == FieldNaming::keyword || f.cli_flags.empty()) return f.name;
  return f.cli_flags.substr(0, f.cli_flags.find(','));
}

json request_json(const VllmOptions& o) { return echo(vllm_fields(), o); }
json request_json(const LlamaCppOptions& o) { return echo(llamacpp_fields(), o); }
json request_json(const SglangOptions& o) { return echo(sglang_fields(), o); }
json request_json(const TrtllmOptions& o) { return echo(trtllm_fields(), o); }
json request_json(const OllamaOptions& o) { return echo(ollama_fields(), o); }

VllmOptions vllm_options_from_request(const json& request, FieldNaming naming) {
  return options_from_request(vllm_fields(), request, naming, "vllm");
}
LlamaCppOptions llamacpp_options_from_request(const json& request, FieldNaming naming) {
  return options_from_request(llamacpp_fields(), request, naming, "llama.cpp");
}
SglangOptions sglang_options_from_request(const json& request, FieldNaming naming) {
  SglangOptions o = options_from_request(sglang_fields(), request, naming, "sglang");
  if (!request.contains("free_before_bytes") || field_unset(request["free_before_bytes"])) o.free_before_bytes = o.gpu_memory_bytes;
  return o;
}
TrtllmOptions trtllm_options_from_request(const json& request, FieldNaming naming) {
  return options_from_request(trtllm_fields(), request, naming, "trtllm");
}
OllamaOptions ollama_options_from_request(const json& request, FieldNaming naming) {
  return options_from_request(ollama_fields(), request, naming, "ollama");
}

}  // namespace kvplan
