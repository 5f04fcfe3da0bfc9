// kvplan engine ENGINE MODEL ...: what vLLM / llama.cpp / SGLang / TensorRT-LLM allocate and log.
#include <algorithm>
#include <iostream>

#include "common.h"
#include "kvplan/engines.h"

namespace kvplan::cli {

namespace {
struct EngineOptions {
  std::string engine;
  ModelOptions model;
  bool json = false;
  // shared
  std::string kv_cache_dtype = "auto";
  std::uint64_t tp = 1, pp = 1;
  std::string attention_backend;
  bool blackwell = false;
  // vLLM
  std::string max_model_len, kv_cache_memory, gpu_memory, weights, activation, non_torch, cudagraph;
  std::optional<std::uint64_t> block_size, num_gpu_blocks_override;
  std::string max_num_batched_tokens = "8192";
  double gpu_memory_utilization = 0.9;
  std::string mamba_cache_mode;
  std::uint64_t num_speculative_tokens = 0;
  bool no_prefix_caching = false, disable_hybrid = false;
  // llama.cpp
  std::string ctx_size = "0";
  std::optional<std::uint64_t> parallel;
  std::string cache_type_k = "f16", cache_type_v = "f16", flash_attn = "auto";
  std::uint64_t batch_size = 2048, ubatch_size = 512;
  bool kv_unified = false, swa_full = false, no_server = false, before_v_less = false;
  // SGLang
  std::string context_length, kv_memory, free_memory, max_total_tokens;
  std::optional<double> mem_fraction_static;
  std::optional<std::uint64_t> page_size, max_running_requests, max_mamba_cache_size;
  std::uint64_t dp = 1;
  bool dp_attention = false, disable_hybrid_swa = false, disable_radix = false;
  std::string mamba_ssm_dtype = "float32";
  // TRT-LLM
  std::uint64_t tokens_per_block = 32, max_batch_size = 2048;
  double free_fraction = 0.9;
  std::string max_tokens, max_seq_len, peak_memory, temp_kv_memory;
  std::vector<std::uint64_t> max_attention_window;
  bool cpp = false;
};

std::optional<std::uint64_t> opt_bytes(const std::string& s, const char* flag) {
  if (s.empty()) return std::nullopt;
  return parse_bytes(s, flag);
}
std::uint64_t bytes_or0(const std::string& s, const char* flag) { return s.empty() ? 0 : parse_bytes(s, flag); }
std::uint64_t tokens_or0(const std::string& s, const char* flag) { return s.empty() ? 0 : parse_tokens(s, flag); }

int run_engine(const EngineOptions& o) {
  const EngineKind kind = parse_engine(o.engine);
  ModelSpec m = o.model.load();
  nlohmann::json j;
  std::string text;
  switch (kind) {
    case EngineKind::vllm: {
      VllmOptions v;
      v.max_model_len = tokens_or0(o.max_model_len, "--max-model-len");
      v.block_size = o.block_size;
      v.kv_cache_dtype = o.kv_cache_dtype;
      v.tensor_parallel_size = o.tp;
      v.pipeline_parallel_size = o.pp;
      v.max_num_batched_tokens = parse_tokens(o.max_num_batched_tokens, "--max-num-batched-tokens");
      v.attention_backend = o.attention_backend;
      v.blackwell = o.blackwell;
      v.enable_prefix_caching = !o.no_prefix_caching;
      v.mamba_cache_mode = o.mamba_cache_mode;
      v.num_speculative_tokens = o.num_speculative_tokens;
      v.disable_hybrid_kv_cache_manager = o.disable_hybrid;
      v.num_gpu_blocks_override = o.num_gpu_blocks_override;
      v.kv_cache_memory_bytes = opt_bytes(o.kv_cache_memory, "--kv-cache-memory");
      v.gpu_memory_utilization = o.gpu_memory_utilization;
      v.gpu_memory_bytes = bytes_or0(o.gpu_memory, "--gpu-memory");
      v.weights_bytes = bytes_or0(o.weights, "--weights");
      v.activation_peak_bytes = bytes_or0(o.activation, "--activation-memory");
      v.non_torch_bytes = bytes_or0(o.non_torch, "--non-torch-memory");
      v.cudagraph_bytes = bytes_or0(o.cudagraph, "--cudagraph-memory");
      auto r = vllm_profile(m, v);
      j = to_json(r);
      text = format_engine_text(r);
      break;
    }
    case EngineKind::llamacpp: {
      LlamaCppOptions l;
      l.ctx_size = parse_tokens(o.ctx_size, "--ctx-size");
      l.parallel = o.parallel;
      l.server = !o.no_server;
      l.kv_unified = o.kv_unified;
      l.cache_type_k = o.cache_type_k;
      l.cache_type_v = o.cache_type_v;
      l.batch_size = o.batch_size;
      l.ubatch_size = o.ubatch_size;
      l.swa_full = o.swa_full;
      l.flash_attn = o.flash_attn;
      l.mla_v_less = !o.before_v_less;
      auto r = llamacpp_profile(m, l);
      j = to_json(r);
      text = format_engine_text(r);
      break;
    }
    case EngineKind::sglang: {
      SglangOptions s;
      s.context_length = tokens_or0(o.context_length, "--context-length");
      s.tp_size = o.tp;
      s.pp_size = o.pp;
      s.dp_size = o.dp;
      s.enable_dp_attention = o.dp_attention;
      s.mem_fraction_static = o.mem_fraction_static;
      s.page_size = o.page_size;
      s.attention_backend = o.attention_backend;
      s.blackwell = o.blackwell;
      s.kv_cache_dtype = o.kv_cache_dtype;
      if (!o.max_total_tokens.empty()) s.max_total_tokens = parse_tokens(o.max_total_tokens, "--max-total-tokens");
      s.max_running_requests = o.max_running_requests;
      s.rest_bytes = opt_bytes(o.kv_memory, "--kv-memory");
      s.gpu_memory_bytes = bytes_or0(o.gpu_memory, "--gpu-memory");
      s.free_before_bytes = o.free_memory.empty() ? s.gpu_memory_bytes : parse_bytes(o.free_memory, "--free-memory");
      s.weights_bytes = bytes_or0(o.weights, "--weights");
      s.disable_hybrid_swa_memory = o.disable_hybrid_swa;
      s.max_mamba_cache_size = o.max_mamba_cache_size;
      s.mamba_ssm_dtype = o.mamba_ssm_dtype;
      s.disable_radix_cache = o.disable_radix;
      auto r = sglang_profile(m, s);
      j = to_json(r);
      text = format_engine_text(r);
      break;
    }
    case EngineKind::trtllm: {
      TrtllmOptions t;
      t.tokens_per_block = o.tokens_per_block;
      t.free_gpu_memory_fraction = o.free_fraction;
      if (!o.max_tokens.empty()) t.max_tokens = parse_tokens(o.max_tokens, "--max-tokens");
      t.kv_cache_dtype = o.kv_cache_dtype;
      t.tp_size = o.tp;
      t.pp_size = o.pp;
      t.enable_attention_dp = o.dp_attention;
      t.max_attention_window = o.max_attention_window;
      t.cpp_share_policy = t.cpp_rounding = o.cpp;
      t.max_seq_len = tokens_or0(o.max_seq_len, "--max-seq-len");
      t.max_batch_size = o.max_batch_size;
      t.kv_memory_bytes = opt_bytes(o.kv_memory, "--kv-memory");
      t.gpu_memory_bytes = bytes_or0(o.gpu_memory, "--gpu-memory");
      t.peak_bytes = bytes_or0(o.peak_memory, "--peak-memory");
      t.temp_kv_bytes = bytes_or0(o.temp_kv_memory, "--temp-kv-memory");
      auto r = trtllm_profile(m, t);
      j = to_json(r);
      text = format_engine_text(r);
      break;
    }
  }
  if (o.json) {
    j["model"] = m.name;
    print_json(j);
  } else {
    std::cout << m.name << "\n" << text;
  }
  return 0;
}
}  // namespace

// Which engines read an option (run_engine above): a flag another engine reads is an error, never
// silently ignored (`engine vllm --ctx-size 4096` is llama.cpp's n_ctx, not vLLM's max_model_len).
struct EngineFlag {
  CLI::Option* option;
  std::vector<EngineKind> engines;
};

void refuse_foreign_flags(EngineKind kind, const std::vector<EngineFlag>& flags) {
  for (const auto& f : flags) {
    if (f.option->count() == 0 || std::find(f.engines.begin(), f.engines.end(), kind) != f.engines.end()) continue;
    std::string owners;
    for (EngineKind e : f.engines) owners += (owners.empty() ? "" : ", ") + std::string(engine_name(e));
    throw InputError::value(f.option->get_name(), "given for engine " + std::string(engine_name(kind)),
                            "an option of " + std::string(engine_name(kind)) + " (" + f.option->get_name() + " is read by " + owners +
                                " only; see kvplan engine --help)");
  }
}

static void register_engine(CLI::App& app, Runner& run) {
  auto o = std::make_shared<EngineOptions>();
  auto* cmd = app.add_subcommand("engine", "what an inference engine (vllm, llama.cpp, sglang, trtllm) allocates and logs");
  cmd->add_option("ENGINE", o->engine, "vllm, llama.cpp, sglang or trtllm")->required();
  o->model.add(*cmd);
  cmd->add_flag("--json", o->json, "print one JSON object");
  auto* g = "shared";
  cmd->add_option("--kv-cache-dtype", o->kv_cache_dtype, "KV cache dtype in the engine's own names (auto, fp8, ...)")->group(g);
  cmd->add_option("--tensor-parallel-size,--tp-size,--tp", o->tp, "tensor-parallel size")->group(g);
  cmd->add_option("--pipeline-parallel-size,--pp-size,--pp", o->pp, "pipeline-parallel size")->group(g);
  cmd->add_option("--attention-backend", o->attention_backend, "attention backend (vLLM / SGLang names)")->group(g);
  cmd->add_flag("--blackwell", o->blackwell, "platform defaults of SM100 GPUs (MLA / page-size backends)")->group(g);
  cmd->add_option("--gpu-memory", o->gpu_memory, "device total memory (vLLM, SGLang, TRT-LLM budgets), e.g. 80GiB")->group(g);
  cmd->add_option("--weights", o->weights, "weight memory per GPU (vLLM, SGLang budgets)")->group(g);
  g = "vLLM";
  cmd->add_option("--max-model-len", o->max_model_len, "max_model_len (default: the config's)")->group(g);
  cmd->add_option("--block-size", o->block_size, "block size in tokens")->group(g);
  cmd->add_option("--max-num-batched-tokens", o->max_num_batched_tokens, "max_num_batched_tokens")->group(g)->capture_default_str();
  cmd->add_option("--gpu-memory-utilization", o->gpu_memory_utilization, "fraction of total memory")->group(g)->capture_default_str();
  cmd->add_option("--kv-cache-memory", o->kv_cache_memory, "KV cache memory per GPU (e.g. 40GiB): the available KV memory")->group(g);
  cmd->add_option("--activation-memory", o->activation, "profiled activation peak per GPU")->group(g);
  cmd->add_option("--non-torch-memory", o->non_torch, "non-torch memory per GPU")->group(g);
  cmd->add_option("--cudagraph-memory", o->cudagraph, "CUDA graph estimate per GPU")->group(g);
  cmd->add_option("--mamba-cache-mode", o->mamba_cache_mode, "none, align or all")->group(g);
  cmd->add_option("--num-speculative-tokens", o->num_speculative_tokens, "speculative tokens (Mamba state rows)")->group(g);
  cmd->add_flag("--no-enable-prefix-caching", o->no_prefix_caching, "prefix caching off")->group(g);
  cmd->add_flag("--disable-hybrid-kv-cache-manager", o->disable_hybrid, "size sliding layers for the full context")->group(g);
  cmd->add_option("--num-gpu-blocks-override", o->num_gpu_blocks_override, "replace num_blocks")->group(g);
  g = "llama.cpp";
  cmd->add_option("--ctx-size,-c", o->ctx_size, "n_ctx (0 = n_ctx_train)")->group(g)->capture_default_str();
  cmd->add_option("--parallel", o->parallel, "-np: sequences (unset: llama-server's 4 unified slots)")->group(g);
  cmd->add_option("--cache-type-k", o->cache_type_k, "K type (f16, q8_0, q4_0, ...)")->group(g)->capture_default_str();
  cmd->add_option("--cache-type-v", o->cache_type_v, "V type")->group(g)->capture_default_str();
  cmd->add_option("--batch-size,-b", o->batch_size, "n_batch")->group(g)->capture_default_str();
  cmd->add_option("--ubatch-size", o->ubatch_size, "n_ubatch")->group(g)->capture_default_str();
  cmd->add_flag("--kv-unified", o->kv_unified, "one unified KV stream")->group(g);
  cmd->add_flag("--swa-full", o->swa_full, "full-size SWA cache")->group(g);
  cmd->add_option("--flash-attn", o->flash_attn, "on, off or auto")->group(g)->capture_default_str();
  cmd->add_flag("--no-server", o->no_server, "libllama defaults (1 sequence) instead of llama-server's")->group(g);
  cmd->add_flag("--before-v-less", o->before_v_less, "MLA caches as before llama.cpp PR #19067 (separate V)")->group(g);
  g = "SGLang";
  cmd->add_option("--context-length", o->context_length, "context_length")->group(g);
  cmd->add_option("--dp-size", o->dp, "data-parallel size")->group(g);
  cmd->add_flag("--enable-dp-attention,--enable-attention-dp", o->dp_attention, "DP attention (SGLang) / attention DP (TRT-LLM)")->group(g);
  cmd->add_option("--mem-fraction-static", o->mem_fraction_static, "mem_fraction_static (default: the heuristic)")->group(g);
  cmd->add_option("--page-size", o->page_size, "page size")->group(g);
  cmd->add_option("--max-total-tokens", o->max_total_tokens, "cap on KV tokens")->group(g);
  cmd->add_option("--max-running-requests", o->max_running_requests, "max running requests")->group(g);
  cmd->add_option("--kv-memory", o->kv_memory, "memory for the KV cache per GPU (SGLang: after weights; TRT-LLM: after the fraction)")->group(g);
  cmd->add_option("--free-memory", o->free_memory, "free memory before weights (default: --gpu-memory)")->group(g);
  cmd->add_flag("--disable-hybrid-swa-memory", o->disable_hybrid_swa, "one pool for SWA and full layers")->group(g);
  cmd->add_option("--max-mamba-cache-size", o->max_mamba_cache_size, "Mamba slots")->group(g);
  cmd->add_option("--mamba-ssm-dtype", o->mamba_ssm_dtype, "SSM state dtype")->group(g)->capture_default_str();
  cmd->add_flag("--disable-radix-cache", o->disable_radix, "radix cache off")->group(g);
  g = "TensorRT-LLM";
  cmd->add_option("--tokens-per-block", o->tokens_per_block, "tokens per block")->group(g)->capture_default_str();
  cmd->add_option("--free-gpu-memory-fraction", o->free_fraction, "fraction of memory free after the profiled peak")->group(g)->capture_default_str();
  cmd->add_option("--max-tokens", o->max_tokens, "kv_cache_config.max_tokens")->group(g);
  cmd->add_option("--max-seq-len", o->max_seq_len, "max_seq_len")->group(g);
  cmd->add_option("--max-batch-size", o->max_batch_size, "max_batch_size (Mamba slots)")->group(g)->capture_default_str();
  cmd->add_option("--max-attention-window", o->max_attention_window, "per-layer windows, repeated as a pattern (VSWA)")->group(g);
  cmd->add_option("--peak-memory", o->peak_memory, "profiled peak (torch + non-torch)")->group(g);
  cmd->add_option("--temp-kv-memory", o->temp_kv_memory, "the profiling KV cache added back")->group(g);
  cmd->add_flag("--cpp", o->cpp, "the C++ manager's rules (ceil blocks, window-weighted VSWA shares)")->group(g);
  // Every option after ENGINE/MODEL/--json belongs to the engines its group names, with the
  // exceptions run_engine makes (shared flags not every engine reads; two SGLang/TRT-LLM flags).
  using E = EngineKind;
  auto flags = std::make_shared<std::vector<EngineFlag>>();
  for (CLI::Option* opt : cmd->get_options()) {
    const std::string& grp = opt->get_group();
    const std::string name = opt->get_name();
    std::vector<E> engines;
    if (grp == "vLLM") engines = {E::vllm};
    else if (grp == "llama.cpp") engines = {E::llamacpp};
    else if (grp == "SGLang") engines = {E::sglang};
    else if (grp == "TensorRT-LLM") engines = {E::trtllm};
    else if (grp == "shared") engines = {E::vllm, E::sglang, E::trtllm};
    else continue;
    if (name == "--attention-backend" || name == "--blackwell" || name == "--weights") engines = {E::vllm, E::sglang};
    if (name == "--enable-dp-attention" || name == "--kv-memory") engines = {E::sglang, E::trtllm};
    flags->push_back({opt, std::move(engines)});
  }
  cmd->callback([&run, o, flags] {
    run = [o, flags] {
      refuse_foreign_flags(parse_engine(o->engine), *flags);
      return run_engine(*o);
    };
  });
}

KVPLAN_VERB(40, register_engine);

}  // namespace kvplan::cli
