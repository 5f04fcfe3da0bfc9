// Ollama (ollama/ollama v0.11.4, f2e9c9aff5f59b21a5d9a9668408732b3de01e20): what its scheduler
// chooses and estimates before it starts a runner. Sources, all at that commit:
//   server/sched.go GetRunner (num_ctx >= 4), processPending (num_ctx x numParallel, defaultParallel 1);
//   llm/server.go NewLlamaServer (the training-context cap, flash attention and --kv-cache-type,
//     num_gpu from the estimate, the runner's arguments, --ollama-engine for OllamaEngineRequired);
//   llm/memory.go EstimateGPULayers (layer placement, graph, overhead, the output layer);
//   fs/ggml/ggml.go GraphSize (per-layer KV bytes, graph sizes by architecture),
//     kvCacheBytesPerElement, SupportsKVCacheType, SupportsFlashAttention, OllamaEngineRequired;
//   format/bytes.go HumanBytes2 (how the figures are logged).
// The KV bytes per token come from the attention rows llama.cpp allocates (attention_row_bytes in f16),
// scaled by Ollama's own element sizes (q8_0: 1 byte, q4_0: 0.5), as its estimate does; the llama.cpp
// runner's real cache is llamacpp_profile.
#include "kvplan/engine_ollama.h"

#include <algorithm>
#include <cstdio>
#include <variant>

#include "kvplan/checked.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/text.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {

// format/bytes.go HumanBytes2: one decimal of the largest binary unit.
std::string ollama_human_bytes(std::uint64_t b) {
  char buf[64];
  const double v = static_cast<double>(b);
  if (b >= GiB) std::snprintf(buf, sizeof buf, "%.1f GiB", v / static_cast<double>(GiB));
  else if (b >= MiB) std::snprintf(buf, sizeof buf, "%.1f MiB", v / static_cast<double>(MiB));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", v / 1024.0);
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

// The GGUF general.architecture Ollama's converter writes for a Hugging Face model_type
// (convert/convert_*.go: mistral and mixtral are written as llama).
std::string gguf_architecture(const ModelSpec& m) {
  const std::string& t = m.model_type;
  if (t == "llama" || t == "mistral" || t == "mixtral") return "llama";
  if (t == "gemma3_text") return "gemma3";
  if (t == "cohere" || t == "cohere2") return "command-r";
  if (t == "phi") return "phi2";
  if (t == "phi3") return "phi3";
  if (t == "gpt_oss") return "gptoss";
  if (t == "deepseek_v2" || t == "deepseek_v3") return "deepseek2";
  return t;  // qwen2, qwen3, gemma, gemma2, gemma3, stablelm, llama4, ...
}

std::uint64_t mul(std::initializer_list<std::uint64_t> v) { return checked_product(v, "Ollama graph size"); }
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "Ollama memory estimate"); }

}  // namespace

std::string ollama_format_bytes(std::uint64_t b) { return ollama_human_bytes(b); }

OllamaResult ollama_profile(const ModelSpec& m, const OllamaOptions& o) {
  OllamaResult r;
  r.gguf_architecture = gguf_architecture(m);
  const std::string& arch = r.gguf_architecture;
  if (o.num_batch == 0) throw InputError::value("num_batch", "0", "a positive batch size");

  // Parallel slots and context (sched.go): mllama is forced to one slot; num_ctx below 4 is 4.
  std::uint64_t parallel = o.num_parallel ? o.num_parallel : 1;
  if (arch == "mllama" && parallel != 1) {
    parallel = 1;
    r.notes.push_back("mllama: Ollama forces OLLAMA_NUM_PARALLEL to 1");
  }
  std::uint64_t num_ctx = std::max<std::uint64_t>(o.num_ctx, 4);
  const std::uint64_t train = m.dims.max_position_embeddings;
  if (train && num_ctx > train) {
    r.notes.push_back("num_ctx " + std::to_string(num_ctx) + " is above the model's training context " + std::to_string(train) +
                      ": Ollama caps it (\"requested context size too large for model\")");
    num_ctx = train;
  }
  r.num_parallel = parallel;
  r.num_ctx = num_ctx;
  r.kv_size = checked_mul(num_ctx, parallel, "Ollama --ctx-size");
  // EstimateGPULayers raises the context to 2048 for the estimate (the vision-graph branch runs for
  // every model without a llama.cpp projector); the runner keeps kv_size.
  r.estimate_ctx = std::max<std::uint64_t>(r.kv_size, 2048);
  r.batch = std::min(r.estimate_ctx, o.num_batch);

  // The layers' shapes as GGUF metadata states them (the max / min over layers, as ggml.go reads arrays).
  std::uint64_t heads_kv_max = 0, heads_kv_min = 0, head_k = 0, head_v = 0, attention_layers = 0, mla_layers = 0;
  std::vector<std::uint64_t> f16_row(m.num_layers(), 0);  // K + V bytes of one token, f16, per layer
  for (std::size_t i = 0; i < m.layers.size(); ++i)
    for (const auto& mixer : m.layers[i].mixers) {
      if (const auto* a = std::get_if<Attention>(&mixer)) {
        attention_layers++;
        heads_kv_max = std::max(heads_kv_max, a->kv_heads);
        heads_kv_min = heads_kv_min ? std::min(heads_kv_min, a->kv_heads) : a->kv_heads;
        head_k = std::max(head_k, a->k_head_dim);
        head_v = std::max(head_v, a->v_head_dim);
        f16_row[i] = attention_row_bytes(*a, Dtype::fp16, Dtype::fp16, 1, HeadSplit::flat_row).total_bytes();
      } else if (const auto* mla = std::get_if<Mla>(&mixer); mla && arch == "deepseek2" && !mla->index_head_dim) {
        // deepseek2 GGUFs as llama.cpp's converter wrote them before its MLA format (the ones
        // Ollama's library serves for deepseek-v2/v3/r1): head_count_kv = head_count, key_length =
        // qk_nope + qk_rope, value_length = v_head_dim; GraphSize prices every layer with those.
        attention_layers++;
        heads_kv_max = std::max(heads_kv_max, m.dims.num_attention_heads);
        heads_kv_min = heads_kv_min ? std::min(heads_kv_min, m.dims.num_attention_heads) : m.dims.num_attention_heads;
        head_k = std::max(head_k, m.dims.q_head_dim);
        head_v = std::max(head_v, m.dims.mla_v_head_dim);
        mla_layers++;
      } else if (!std::holds_alternative<NoCache>(mixer) && !std::holds_alternative<SharedKv>(mixer)) {
        throw InputError("Ollama: layer " + std::to_string(i) + " of " + m.name +
                         " holds a cache other than softmax attention (MLA, recurrent state); Ollama's memory estimate "
                         "for it (GraphSize: key_length + value_length x head_count_kv on every layer) is not modelled");
      }
    }
  if (!attention_layers) throw InputError("Ollama: " + m.name + " has no attention layer; its estimate is not modelled");
  if (mla_layers)
    r.notes.push_back("MLA layers priced as Ollama reads a deepseek2 GGUF in llama.cpp's pre-MLA layout (" +
                      std::to_string(heads_kv_max) + " KV heads of key " + std::to_string(head_k) + " + value " +
                      std::to_string(head_v) + "); a GGUF in the MLA layout (head_count_kv 1, key_length_mla) "
                      "is estimated smaller, so this estimate is the high end");
  // Every layer is priced with head_count_kv_max (ggml.go HeadCountKVMax), as Ollama does.
  const std::uint64_t row_max = checked_mul(checked_mul(heads_kv_max, head_k + head_v, "Ollama KV row"), 2, "Ollama KV row");
  for (auto& x : f16_row) x = row_max;

  // Flash attention and the KV cache type (server.go NewLlamaServer, memory.go EstimateGPULayers).
  const bool model_fa = arch != "gptoss" && head_k && head_v && head_k == head_v;
  r.flash_attention = o.flash_attention && o.gpu_flash_attention && model_fa;
  if (o.flash_attention && !r.flash_attention)
    r.notes.push_back(!o.gpu_flash_attention ? "flash attention enabled but not supported by gpu: off"
                                             : "flash attention enabled but not supported by model: off");
  std::string kvct = ascii_lower(o.kv_cache_type);
  if (!kvct.empty() && kvct != "f16" && kvct != "q8_0" && kvct != "q4_0")
    r.notes.push_back("OLLAMA_KV_CACHE_TYPE " + o.kv_cache_type + " is not f16, q8_0 or q4_0: Ollama ignores it (f16)");
  if (r.flash_attention && (kvct == "f16" || kvct == "q8_0" || kvct == "q4_0")) r.kv_cache_type = kvct;
  else if (!kvct.empty() && kvct != "f16" && !r.flash_attention && (kvct == "q8_0" || kvct == "q4_0"))
    r.notes.push_back("quantized kv cache requested but flash attention disabled: the cache stays f16");
  // kvCacheBytesPerElement: f16 2, q8_0 1, q4_0 0.5 (of the f16 row's 2 bytes per number).
  const std::uint64_t div = r.kv_cache_type == "q8_0" ? 2 : r.kv_cache_type == "q4_0" ? 4 : 1;

  // GraphSize kv[i].
  const std::uint64_t L = m.num_layers();
  const std::uint64_t ctx = r.estimate_ctx, batch = r.batch;
  r.kv_layer_bytes.assign(L, 0);
  std::uint64_t window = 0;
  for (const auto& l : m.layers)
    for (const auto& mixer : l.mixers)
      if (const auto* a = std::get_if<Attention>(&mixer))
        if (const auto* w = std::get_if<Attention::Window>(&a->span)) window = std::max(window, w->tokens);
  for (std::uint64_t i = 0; i < L; ++i) {
    std::uint64_t tokens = ctx;
    if (arch == "gemma3" && (i + 1) % 6 != 0) tokens = add(checked_mul(parallel, window, "Ollama SWA"), batch);
    if (arch == "gptoss" && i % 2 == 0) tokens = add(checked_mul(parallel, 4096, "Ollama SWA"), batch);
    r.kv_layer_bytes[i] = checked_mul(f16_row[i], tokens, "Ollama KV bytes") / div;
    r.kv_bytes = add(r.kv_bytes, r.kv_layer_bytes[i]);
  }
  if (window && arch != "gemma3" && arch != "gptoss")
    r.notes.push_back("sliding-window layers: Ollama's estimate prices them at the full context (only gemma3 and gptoss "
                      "have a window rule in GraphSize)");

  // GraphSize graph sizes by architecture.
  const std::uint64_t E = m.dims.hidden_size, H = m.dims.num_attention_heads, HKV = heads_kv_max;
  const std::uint64_t V = o.vocab.value_or(m.dims.vocab_size);
  const std::uint64_t EH = H ? E / H : 0;  // EmbeddingHeadCountMax: embedding / head_count
  const std::uint64_t EHK = head_k;
  std::uint64_t full = 0, partial = 0;
  if (arch == "llama" || arch == "llama4") {
    if (m.dims.num_experts) {
      r.graph_modelled = false;
      r.notes.push_back("Mixtral-style experts: GraphSize reads the ffn_gate_exps tensor size, not modelled (its fallback is used)");
    } else {
      full = std::max(mul({4, batch, add(add(1, 4 * E), mul({ctx, 1 + H}))}), mul({4, batch, E + V}));
      partial = add(mul({4, batch, E}),
                    std::max(add(add(mul({4, batch, add(add(1, E), std::max(ctx, E))}), mul({E, E}) * 9 / 16),
                                 mul({4, ctx, add(mul({batch, H}), mul({EH, HKV}))})),
                             add(mul({4, batch, E + V}), mul({E, V}) * 105 / 128)));
    }
  } else if (arch == "gemma" || arch == "gemma2" || arch == "gemma3" || arch == "gemma3n") {
    full = std::max(mul({4, batch, E + V}), mul({4, batch, add(add(2 + ctx, mul({ctx, H})), add(2 * E, mul({2, EHK, H})))}));
    partial = std::max(add(add(mul({4, E, batch}), mul({E, V}) * 105 / 128), mul({4, V, batch})),
                       add(add(mul({4, batch, add(add(2 * E + 1, mul({2, EHK, H})), add(ctx, mul({ctx, H})))}), mul({4, EHK, ctx, 8})),
                           mul({E, EHK, H}) * 9 / 16));
    if (arch == "gemma3n") full *= 4, partial *= 4;
  } else if (arch == "command-r") {
    full = std::max(mul({4, batch, E + V}), mul({4, batch, add(2 + 4 * E, mul({ctx, 1 + H}))}));
    partial = std::max(add(mul({4, batch, E + V}), mul({E, V}) * 105 / 128),
                       add(add(mul({4, batch, add(1 + 2 * E, mul({ctx, 1 + H}))}), mul({4, E, ctx})), mul({E, E}) * 9 / 16));
  } else if (arch == "qwen2") {
    full = std::max(mul({4, batch, E + V}), mul({4, batch, add(add(1 + 2 * E, ctx), mul({ctx, H}))}));
    partial = std::max(add(mul({4, batch, E + V}), mul({E, V}) * 105 / 128),
                       mul({4, add(mul({batch, add(1 + 2 * E, mul({ctx, 1 + H}))}), mul({E, 1 + ctx}))}));
  } else if (arch == "phi2") {
    full = std::max(mul({4, batch, E + V}), mul({4, batch, add(add(1 + 4 * E, ctx), mul({ctx, H}))}));
    partial = std::max(add(mul({4, batch, 2 * E + V}), mul({E, V}) * 105 / 128),
                       mul({4, batch, add(add(2 + 3 * E, ctx), mul({ctx, H}))}));
  } else if (arch == "stablelm") {
    full = mul({4, batch, add(mul({ctx, 1 + H}), 3 * E + 2)});
    partial = std::max(mul({4, batch, V + 2 * E}), full);
  } else if (arch == "deepseek2") {
    full = std::max(mul({4, batch, 3 * E + V}), mul({4, batch, add(add(3 * E + 2, mul({ctx, 1 + HKV})), mul({2, EHK, HKV}))}));
    partial = std::max(add(mul({4, batch, 3 * E + V}), mul({E, V}) * 105 / 128),
                       add(add(mul({4, batch, add(add(2 * E + 1, mul({2, EHK, HKV})), add(ctx, mul({ctx, HKV})))}),
                               mul({4, EHK, ctx, HKV})),
                           mul({E, EHK, HKV}) * 9 / 16));
  } else if (arch == "gptoss") {
    const std::uint64_t gqa = H / std::max<std::uint64_t>(heads_kv_min, 1);
    full = mul({4, gqa, r.kv_bytes}) / 6;
    partial = full;
  } else {
    r.graph_modelled = false;
    r.notes.push_back("GraphSize has no graph rule for architecture " + arch + ": Ollama's fallback (head_count / "
                      "head_count_kv x KV bytes / 6) is used, as Ollama does");
  }
  if (partial == 0) {
    const std::uint64_t gqa = H / std::max<std::uint64_t>(heads_kv_min, 1);
    partial = mul({gqa, r.kv_bytes}) / 6;
  }
  if (full == 0) full = partial;
  if (o.metal) partial = full;
  else if (o.gpu_free_bytes.size() > 1) full = partial;
  r.graph_full_bytes = full;
  r.graph_partial_bytes = partial;

  // The weights as Ollama groups them.
  std::vector<std::uint64_t> blk;
  std::uint64_t output = 0;
  if (!o.layer_bytes.empty()) {
    if (o.layer_bytes.size() == 1) blk.assign(L, o.layer_bytes[0]);
    else if (o.layer_bytes.size() == L) blk = o.layer_bytes;
    else
      throw InputError::value("layer_bytes", std::to_string(o.layer_bytes.size()) + " values",
                              "one value, or one per layer (" + std::to_string(L) + ")");
    output = o.output_bytes.value_or(0);
  } else if (m.checkpoint_weights && m.checkpoint_weights->layer_bytes.size() >= L) {
    blk.assign(m.checkpoint_weights->layer_bytes.begin(), m.checkpoint_weights->layer_bytes.begin() + static_cast<std::ptrdiff_t>(L));
    output = o.output_bytes.value_or(m.checkpoint_weights->non_layer_bytes);
    if (!o.output_bytes && !m.dims.tie_word_embeddings)
      r.notes.push_back("output layer: every non-layer tensor (token_embd too) is counted where Ollama counts output_norm + "
                        "output only: the estimate is high by the embedding table");
  } else {
    throw InputError("Ollama: the layer sizes of " + m.name + " are not known (a GGUF file or the Ollama store gives them; "
                     "else give layer_bytes and output_bytes)");
  }
  for (auto b : blk) r.weights_repeating_bytes = add(r.weights_repeating_bytes, b);
  r.weights_nonrepeating_bytes = output;
  r.layers_model = L + 1;
  r.layers_requested = o.num_gpu ? static_cast<std::int64_t>(*o.num_gpu) : -1;

  // EstimateGPULayers.
  const std::uint64_t overhead = o.gpu_overhead_bytes;
  const std::size_t G = o.gpu_free_bytes.size();
  std::vector<std::uint64_t> alloc(G, 0), counts(G, 0);
  std::uint64_t layer_size = L ? add(blk[0], r.kv_layer_bytes[0]) : 0;  // one layer of buffer
  const std::uint64_t graph_max = std::max(partial, full);
  std::vector<std::size_t> with_space;
  for (std::size_t i = 0; i < G; ++i) {
    const std::uint64_t need = add(add(add(overhead, graph_max), o.gpu_minimum_bytes), checked_mul(2, layer_size, "Ollama layer"));
    if (o.gpu_free_bytes[i] < need) continue;
    with_space.push_back(i);
    alloc[i] = add(o.gpu_minimum_bytes, layer_size);
  }
  std::uint64_t overflow = 0, layer_count = 0;
  const bool limited = o.num_gpu.has_value();
  for (std::uint64_t ii = L; ii-- > 0;) {
    layer_size = add(blk[ii], r.kv_layer_bytes[ii]);
    if (limited && layer_count >= *o.num_gpu) {
      overflow = add(overflow, layer_size);
      continue;
    }
    for (std::size_t j = with_space.size(); j > 0; --j) {
      const std::size_t k = static_cast<std::size_t>(ii % j);
      const std::size_t g = with_space[k];
      const std::uint64_t used = add(alloc[g], graph_max);
      if (o.gpu_free_bytes[g] > add(add(overhead, used), layer_size)) {
        alloc[g] = add(alloc[g], layer_size);
        counts[g]++;
        layer_count++;
        break;
      }
      with_space.erase(with_space.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (with_space.empty()) overflow = add(overflow, layer_size);
  }
  bool fully = layer_count >= L;
  if (output > 0) {
    if (!limited || layer_count < *o.num_gpu) {
      for (std::size_t j = with_space.size(); j > 0; --j) {
        const std::size_t g = with_space[static_cast<std::size_t>(layer_count % j)];
        const std::uint64_t used = add(alloc[g], graph_max);
        if (o.gpu_free_bytes[g] > add(add(overhead, used), output)) {
          alloc[g] = add(alloc[g], output);
          counts[g]++;
          layer_count++;
          break;
        }
      }
    }
    if (layer_count < L + 1) {
      fully = false;
      overflow = add(overflow, output);
    }
  }
  for (std::size_t i = 0; i < G; ++i)
    if (counts[i]) alloc[i] = add(alloc[i], fully ? full : partial);
  std::uint64_t partial_total = 0;
  for (auto a : alloc) partial_total = add(partial_total, a);
  r.required_full_bytes = add(partial_total, overflow);
  if (G && layer_count) {
    r.layers_offload = layer_count;
    r.required_partial_bytes = partial_total;
    r.gpu_allocations = alloc;
    if (G > 1) r.layers_split = counts;
  } else {
    r.gpu_allocations = alloc;
    if (G) r.notes.push_back("no layer fits on the GPU: Ollama runs the model on the CPU");
  }
  r.fully_offloaded = G && r.layers_offload >= L + 1;

  // The runner (server.go): --ctx-size, --batch-size, --n-gpu-layers, --flash-attn, --kv-cache-type, --parallel.
  static const char* const kEngineArchs[] = {"gemma3", "gemma3n", "mistral3", "llama4", "mllama", "qwen25vl", "gptoss"};
  r.runner = o.new_engine || std::any_of(std::begin(kEngineArchs), std::end(kEngineArchs), [&](const char* a) { return arch == a; }) ? "ollama" : "llama";
  r.runner_args = {"--ctx-size", std::to_string(r.kv_size), "--batch-size", std::to_string(o.num_batch)};
  const std::uint64_t ngl = limited ? *o.num_gpu : r.layers_offload;
  if (G && (limited || r.layers_offload)) r.runner_args.insert(r.runner_args.end(), {"--n-gpu-layers", std::to_string(ngl)});
  if (r.flash_attention) {
    r.runner_args.push_back("--flash-attn");
    if (!kvct.empty() && r.kv_cache_type == kvct) r.runner_args.insert(r.runner_args.end(), {"--kv-cache-type", kvct});
  }
  r.runner_args.insert(r.runner_args.end(), {"--parallel", std::to_string(parallel)});
  if (G > 1 && r.layers_offload) {
    std::string s;
    for (auto c : counts) s += (s.empty() ? "" : ",") + std::to_string(c);
    r.runner_args.insert(r.runner_args.end(), {"--tensor-split", s});
  }
  if (r.runner == "llama") {
    LlamaCppOptions l;
    l.ctx_size = r.kv_size;
    l.parallel = parallel;
    l.server = false;
    l.cache_type_k = l.cache_type_v = r.kv_cache_type;
    l.batch_size = o.num_batch;
    l.ubatch_size = 512;  // llama_context_default_params; Ollama sets n_batch only
    l.flash_attn = r.flash_attention ? "on" : "off";
    // A pre-MLA deepseek2 GGUF has no key_length_mla: llama.cpp caches full K and V per head.
    ModelSpec runner_view = m;
    if (mla_layers)
      for (auto& layer : runner_view.layers)
        for (auto& mixer : layer.mixers)
          if (std::holds_alternative<Mla>(mixer)) mixer = Attention{m.dims.num_attention_heads, m.dims.q_head_dim, m.dims.mla_v_head_dim};
    const LlamaCppResult lc = llamacpp_profile(runner_view, l);
    r.runner_kv_bytes = lc.total_bytes;
    for (const auto& line : lc.log_lines) r.log_lines.push_back(line);
  } else {
    r.notes.push_back("architecture " + arch + " runs on the Ollama engine (--ollama-engine): its own KV cache "
                      "(kvcache.Causal / WrapperCache) is allocated by the runner and not modelled; the scheduler's estimate decides the layers");
  }

  // The scheduler's log line (llm/memory.go MemoryEstimate.LogValue), as server.go prints it.
  auto list = [](const std::vector<std::uint64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + ollama_human_bytes(v[i]);
    return s + "]";
  };
  std::string split;
  for (std::size_t i = 0; i < r.layers_split.size(); ++i) split += (i ? "," : "") + std::to_string(r.layers_split[i]);
  r.log_lines.insert(r.log_lines.begin(),
                     "msg=offload library=" + std::string(G ? (o.metal ? "metal" : "cuda") : "cpu") + " layers.requested=" +
                         std::to_string(r.layers_requested) + " layers.model=" + std::to_string(r.layers_model) +
                         " layers.offload=" + std::to_string(r.layers_offload) + " layers.split=\"" + split + "\" memory.available=\"" +
                         list(o.gpu_free_bytes) + "\" memory.gpu_overhead=\"" + ollama_human_bytes(overhead) +
                         "\" memory.required.full=\"" + ollama_human_bytes(r.required_full_bytes) + "\" memory.required.partial=\"" +
                         ollama_human_bytes(r.required_partial_bytes) + "\" memory.required.kv=\"" + ollama_human_bytes(r.kv_bytes) +
                         "\" memory.required.allocations=\"" + list(r.gpu_allocations) + "\" memory.weights.total=\"" +
                         ollama_human_bytes(add(r.weights_repeating_bytes, output)) + "\" memory.weights.repeating=\"" +
                         ollama_human_bytes(r.weights_repeating_bytes) + "\" memory.weights.nonrepeating=\"" +
                         ollama_human_bytes(output) + "\" memory.graph.full=\"" + ollama_human_bytes(full) +
                         "\" memory.graph.partial=\"" + ollama_human_bytes(partial) + "\"");
  std::string args;
  for (const auto& a : r.runner_args) args += " " + a;
  r.log_lines.insert(r.log_lines.begin() + 1, "msg=\"starting llama server\" cmd=\"ollama runner" +
                                                  std::string(r.runner == "ollama" ? " --ollama-engine" : "") + args + "\"");
  return r;
}

}  // namespace kvplan
