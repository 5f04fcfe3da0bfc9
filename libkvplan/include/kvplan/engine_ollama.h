#pragma once
// Ollama: the server's scheduler choices (context, parallel slots, KV cache type, GPU layers) and
// its memory estimate, as ollama/ollama v0.11.4 (f2e9c9aff5f59b21a5d9a9668408732b3de01e20)
// computes them: envconfig/config.go, server/sched.go, llm/server.go NewLlamaServer,
// llm/memory.go EstimateGPULayers, fs/ggml/ggml.go GraphSize. The llama.cpp runner's own cache is
// llamacpp_profile with the arguments Ollama passes it (--ctx-size num_ctx x parallel --parallel N
// --kv-cache-type T --batch-size B). Rules: docs/engines.md section "Ollama".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/model.h"

namespace kvplan {

struct LlamaCppResult;

struct OllamaOptions {
  std::uint64_t num_ctx = 4096;              // per request: num_ctx, else OLLAMA_CONTEXT_LENGTH (default 4096)
  std::uint64_t num_parallel = 1;            // OLLAMA_NUM_PARALLEL (0: the default, 1)
  std::uint64_t num_batch = 512;             // num_batch
  std::optional<std::uint64_t> num_gpu;      // num_gpu layers; unset: -1 (as many as fit)
  bool flash_attention = false;              // OLLAMA_FLASH_ATTENTION
  bool gpu_flash_attention = true;           // every GPU supports it (discover FlashAttentionSupported)
  std::string kv_cache_type;                 // OLLAMA_KV_CACHE_TYPE ("" = f16)
  std::uint64_t gpu_overhead_bytes = 0;      // OLLAMA_GPU_OVERHEAD, per GPU
  bool metal = false;                        // Apple: no partial-offload graph
  bool new_engine = false;                   // OLLAMA_NEW_ENGINE: the Ollama engine for every architecture
  // Free memory of each GPU as Ollama's discovery reports it (empty: no GPU, the CPU runner).
  std::vector<std::uint64_t> gpu_free_bytes;
  std::uint64_t gpu_minimum_bytes = 457ull << 20;  // discover/gpu.go cudaMinimumMemory (ROCm the same; Metal 512 MiB)
  // Weights as Ollama groups GGUF tensors: blk.i per layer (one value: every layer), and the
  // output layer (output_norm + output, or token_embd when tied). Unset: the GGUF tensor infos.
  std::vector<std::uint64_t> layer_bytes;
  std::optional<std::uint64_t> output_bytes;
  std::optional<std::uint64_t> vocab;        // tokenizer.ggml.tokens; unset: vocab_size
};

struct OllamaResult {
  std::uint64_t num_ctx = 0;                 // per slot, after the training-context cap
  std::uint64_t num_parallel = 1;
  std::uint64_t kv_size = 0;                 // --ctx-size: num_ctx x parallel
  std::uint64_t estimate_ctx = 0;            // the context the estimate uses (at least 2048)
  std::uint64_t batch = 0;                   // min(context, num_batch)
  bool flash_attention = false;
  std::string kv_cache_type = "f16";         // effective
  std::string runner;                        // "llama" (llama.cpp runner) or "ollama" (the Ollama engine)
  std::string gguf_architecture;
  std::vector<std::uint64_t> kv_layer_bytes; // GraphSize kv[i]
  std::uint64_t kv_bytes = 0;                // memory.required.kv
  std::uint64_t graph_full_bytes = 0, graph_partial_bytes = 0;  // memory.graph.full / partial
  bool graph_modelled = true;                // false: GraphSize's fallback for the architecture
  std::uint64_t layers_model = 0;            // blocks + output
  std::int64_t layers_requested = -1;
  std::uint64_t layers_offload = 0;          // layers.offload (--n-gpu-layers)
  std::vector<std::uint64_t> layers_split;   // per GPU
  std::vector<std::uint64_t> gpu_allocations;  // memory.required.allocations
  std::uint64_t required_full_bytes = 0;     // memory.required.full (TotalSize)
  std::uint64_t required_partial_bytes = 0;  // memory.required.partial (VRAMSize)
  std::uint64_t weights_repeating_bytes = 0, weights_nonrepeating_bytes = 0;
  bool fully_offloaded = false;
  std::uint64_t runner_kv_bytes = 0;         // the llama.cpp runner's allocated KV cache (0 for the Ollama engine)
  std::vector<std::string> runner_args;      // the runner's memory arguments as Ollama starts it
  std::vector<std::string> log_lines;
  std::vector<std::string> notes;
};

OllamaResult ollama_profile(const ModelSpec& m, const OllamaOptions& o);
// Formatters (report/engine_report_ollama.cpp).
nlohmann::json to_json(const OllamaResult& r);
std::string format_engine_text(const OllamaResult& r);
// format/bytes.go HumanBytes2: how Ollama logs a size ("896.0 MiB", "19.5 GiB").
std::string ollama_format_bytes(std::uint64_t bytes);

}  // namespace kvplan
