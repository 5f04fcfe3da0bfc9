// vLLM's evaluation for kvplan check: `vllm serve`'s flags as EngineArgs reads them, the weights
// each GPU holds (expert parallelism, MXFP4 experts, speculative drafts, CPU offload, LoRA slots),
// the budget gpu_worker profiles, vllm_profile at each end of the memory band, and vLLM's own
// check of what runs outside --gpu-memory-utilization. The verdict around it: check.cpp.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <variant>

#include "check/check_context.h"
#include "deploy/flags.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/text.h"
#include "kvplan/units.h"
#include "kvplan/vllm_weights.h"
#include "kvplan/weights.h"

namespace kvplan {

namespace {

using detail::bool_flag;
using detail::fraction_flag;
using detail::int_flag;
using detail::ParsedFlags;
using detail::positive;
using detail::vllm_int_flag;

VllmLaunch vllm_launch(const ParsedFlags& f, const ModelSpec& m, const Accelerator& acc) {
  VllmLaunch L;
  VllmOptions& v = L.options;
  v.tensor_parallel_size = positive(int_flag(f, "--tensor-parallel-size", 1), "--tensor-parallel-size");
  v.pipeline_parallel_size = positive(int_flag(f, "--pipeline-parallel-size", 1), "--pipeline-parallel-size");
  L.data_parallel_size = positive(int_flag(f, "--data-parallel-size", 1), "--data-parallel-size");
  // --max-model-len: human_readable_int_or_auto (-1 and "auto" fit the largest length).
  L.max_model_len_auto = f.has("--max-model-len") && (trim_space(f.get("--max-model-len")) == "-1" || trim_space(f.get("--max-model-len")) == "auto");
  v.max_model_len = L.max_model_len_auto ? 0 : vllm_int_flag(f, "--max-model-len", 0);
  if (f.has("--block-size")) v.block_size = positive(int_flag(f, "--block-size", 16), "--block-size");
  if (f.has("--kv-cache-dtype")) v.kv_cache_dtype = f.get("--kv-cache-dtype");
  // Not given: what `vllm serve` picks for this GPU (V0's rule is applied where the budget is set).
  const VllmBatchDefaults serve = vllm_serve_batch_defaults(acc);
  v.max_num_batched_tokens = positive(vllm_int_flag(f, "--max-num-batched-tokens", serve.max_num_batched_tokens), "--max-num-batched-tokens");
  L.max_num_batched_tokens_given = f.has("--max-num-batched-tokens");
  if (!L.max_num_batched_tokens_given || !f.has("--max-num-seqs"))
    L.notes.push_back("vllm serve's defaults on " + acc.name + ": max_num_batched_tokens " + std::to_string(serve.max_num_batched_tokens) +
                      ", max_num_seqs " + std::to_string(serve.max_num_seqs) +
                      (serve.max_num_batched_tokens == 8192 ? " (70 GiB or more, not an A100" : " (under 70 GiB, or an A100") +
                      "; vllm/engine/arg_utils.py get_batch_defaults, V1)");
  v.gpu_memory_utilization = fraction_flag(f, "--gpu-memory-utilization", 0.9);
  if (f.has("--kv-cache-memory-bytes")) v.kv_cache_memory_bytes = vllm_int_flag(f, "--kv-cache-memory-bytes", 0);
  if (f.has("--attention-backend")) v.attention_backend = f.get("--attention-backend");
  v.blackwell = is_blackwell(acc);
  {
    // FlashMLA (64-token blocks) runs on SM90/SM100 only; elsewhere vLLM's CUDA platform picks
    // TRITON_MLA, whose block stays 16 (vllm/platforms/cuda.py get_attn_backend_cls).
    bool mla = false, sparse = false;
    for (const auto& l : m.layers)
      for (const auto& mixer : l.mixers)
        if (const auto* x = std::get_if<Mla>(&mixer)) mla = true, sparse = sparse || x->index_head_dim > 0;
    const bool sm90 = acc.name.rfind("H100", 0) == 0 || acc.name.rfind("H200", 0) == 0 || acc.name.rfind("H20-", 0) == 0 ||
                      acc.name.rfind("H800", 0) == 0 || acc.name.rfind("GH200", 0) == 0;
    const bool sm100 = v.blackwell || acc.name.rfind("GB200", 0) == 0;
    if (mla && !sparse && v.attention_backend.empty() && !sm90 && !sm100) {
      v.attention_backend = "TRITON_MLA";
      L.notes.push_back("MLA on " + acc.name + ": FlashMLA needs SM90/SM100, so vLLM uses TRITON_MLA (block size 16)");
    }
  }
  if (f.has("--mamba-cache-mode")) v.mamba_cache_mode = f.get("--mamba-cache-mode");
  if (f.has("--mamba-cache-dtype")) v.mamba_cache_dtype = f.get("--mamba-cache-dtype");
  if (f.has("--mamba-ssm-cache-dtype")) v.mamba_ssm_cache_dtype = f.get("--mamba-ssm-cache-dtype");
  if (f.has("--enable-prefix-caching")) v.enable_prefix_caching = bool_flag(f, "--enable-prefix-caching");
  v.disable_hybrid_kv_cache_manager = bool_flag(f, "--disable-hybrid-kv-cache-manager");
  if (f.has("--num-gpu-blocks-override")) v.num_gpu_blocks_override = int_flag(f, "--num-gpu-blocks-override", 0);
  if (f.has("--max-num-seqs")) L.max_num_seqs = positive(int_flag(f, "--max-num-seqs", 1), "--max-num-seqs");
  if (f.has("--long-prefill-token-threshold")) L.long_prefill_token_threshold = vllm_int_flag(f, "--long-prefill-token-threshold", 0);
  if (f.has("--enable-chunked-prefill")) L.chunked_prefill = bool_flag(f, "--enable-chunked-prefill");
  if (f.has("--scheduler-reserve-full-isl")) L.reserve_full_isl = bool_flag(f, "--scheduler-reserve-full-isl");
  // SchedulerConfig.policy: SchedulerPolicy = Literal["fcfs", "priority"] (vllm/config/scheduler.py).
  if (f.has("--scheduling-policy")) {
    const std::string p = f.get("--scheduling-policy");
    if (p != "fcfs" && p != "priority") throw InputError::value("--scheduling-policy", p, "fcfs or priority");
    L.priority_scheduling = p == "priority";
  }
  L.enforce_eager = bool_flag(f, "--enforce-eager");
  return L;
}
}  // namespace

VllmBatchDefaults vllm_serve_batch_defaults(const Accelerator& gpu) {
  const std::string name = ascii_lower(gpu.name);
  const bool blackwell = is_blackwell(gpu);
  if (gpu.memory_bytes >= 70 * GiB && name.find("a100") == std::string::npos) return {8192, 1024, blackwell};
  return {2048, 256, blackwell};
}

VllmLaunch read_vllm_launch(const Deployment& d, const Accelerator& gpu, const LoadOptions& load) {
  if (d.engine != EngineKind::vllm)
    throw InputError::value("launch command", std::string(engine_name(d.engine)), "a vllm serve command");
  const ParsedFlags f = detail::parse_engine_flags(d.engine, d.args, d.env, d.base_dir);
  const std::string ref = detail::command_model(d.model, d, f);
  if (ref.empty()) throw InputError::value("model", "", "a model in the command (or --model)");
  ModelSpec m = load_model(ref, load);
  detail::apply_dtype_flag(m, f, d.engine);
  VllmLaunch L = vllm_launch(f, m, gpu);
  L.model_ref = ref;
  L.model = std::move(m);
  return L;
}

namespace detail {

namespace {

// The GPU family vLLM's MXFP4 MoE backend choice depends on (its CUDA compute capability), by the
// catalog's names: Hopper SM90, datacenter Blackwell SM100 (hardware.h is_blackwell), consumer and
// workstation Blackwell SM120/SM121 (RTX 50, RTX PRO Blackwell, GB10), Ampere/Ada SM80-SM89. Below
// SM80 (V100, T4, ...) and other vendors: `other` (no padding derived).
VllmGpuArch vllm_gpu_arch(const Accelerator& a) {
  if (ascii_upper(a.vendor) != "NVIDIA") return VllmGpuArch::other;
  const std::string n = ascii_upper(a.name);
  auto starts = [&n](const char* p) { return n.rfind(p, 0) == 0; };
  if (starts("H100") || starts("H200") || starts("H20-") || starts("H800") || starts("GH200")) return VllmGpuArch::sm90;
  if (is_blackwell(a)) return VllmGpuArch::sm100;
  if (starts("RTX5") || starts("GB10") || n.find("BLACKWELL") != std::string::npos) return VllmGpuArch::sm120;
  if (starts("V100") || starts("T4") || starts("RTX2") || starts("P100") || starts("P40")) return VllmGpuArch::other;
  return VllmGpuArch::cuda_pre_hopper;
}

// profile_run feeds a multimodal encoder its largest dummy inputs (every item the prompt limits
// allow, each at the processor's most tokens) before the KV cache is sized; kvplan has no rule for
// that peak. Qwen2.5-VL-3B at 0.3 of an A100-80GB found no KV memory where the text model leaves
// 12-17 GiB (vllm-project/vllm#18124). --limit-mm-per-prompt and --language-model-only are
// unmodelled flags of their own (the table's why).
void note_encoder_profiling(CheckContext& c) {
  if (!c.m.params.encoders.empty() && !c.f.has("--limit-mm-per-prompt") && !c.f.has("--language-model-only")) {
    std::string names;
    for (const auto& e : c.m.params.encoders) names += (names.empty() ? "" : ", ") + e;
    const std::string term = "the multimodal encoder's profiling run (" + names + ")";
    c.unmodelled.push_back(term);
    c.unmodelled_why[term] = "vLLM profiles the encoder with its largest dummy inputs before the KV cache is allocated; "
                             "kvplan has no rule for that activation peak (vllm-project/vllm#18124)";
  }
}

// The weights each GPU holds. Expert parallelism (vLLM FusedMoE with --enable-expert-parallel):
// the routed experts are split over EP = tp x dp ranks; everything else is split over tp (and
// replicated per DP rank). MXFP4 MoE (gpt-oss): the routed experts as vLLM's backend for this GPU
// allocates them (engines/vllm_weights.cpp), the favourable end counted and the rest of the band
// in the term.
void vllm_weights_per_gpu(CheckContext& c) {
  const bool ep = bool_flag(c.f, "--enable-expert-parallel");
  c.weights_per_gpu = ep ? checked_add(ceil_div(c.wb.non_experts, checked_mul(c.tp, c.pp, kTpPp)), ceil_div(c.wb.experts, gpu_count(c.tp, c.pp, c.dp)))
                         : ceil_div(c.wb.total, checked_mul(c.tp, c.pp, kTpPp));
  if (ep && c.dp > 1) c.r.notes.push_back("--enable-expert-parallel: routed experts split over " + std::to_string(c.tp * c.dp) + " ranks");
  if (!c.weight_override && !c.o.weight_bytes) {
    bool env_marlin = false;
    for (const auto& [k, val] : c.d.env)
      if (k == "VLLM_MXFP4_USE_MARLIN") env_marlin = val == "1" || ascii_lower(val) == "true";
    const VllmMxfp4Experts mx = vllm_mxfp4_experts(c.m, vllm_gpu_arch(c.acc), c.tp, ep ? gpu_count(c.tp, 1, c.dp) : 0, c.pp,
                                                   c.o.engine_version, env_marlin);
    if (mx.applies) {
      c.weights_per_gpu = checked_add(ceil_div(c.wb.non_experts, checked_mul(c.tp, c.pp, kTpPp)), mx.low);
      c.bin.weights_layout_extra = mx.high - mx.low;
      c.bin.weights_layout_typical_extra = mx.typical ? mx.typical - mx.low : (mx.high - mx.low) / 2;
      c.bin.weights_layout_source = "MXFP4 experts as vLLM allocates them (" + mx.source + ")";
      c.r.notes.push_back("MXFP4 routed experts as vLLM holds them on " + c.acc.name + ": " + format_gib(mx.low) +
                          (mx.high == mx.low ? " (" + mx.low_backend + ")"
                                             : " (" + mx.low_backend + ") to " + format_gib(mx.high) + " (" + mx.high_backend + ")") +
                          " per GPU, against " + format_gib(mx.checkpoint) + " at the checkpoint's shapes");
    }
  }
}

// Speculative decoding (--speculative-config): MTP / EAGLE draft layers hold weights and KV pages
// in the same pool. The draft's layer count (0: none, or ngram / suffix).
std::uint64_t vllm_speculative(CheckContext& c, VllmOptions& v) {
  std::uint64_t draft_layers = 0;
  if (c.f.has("--speculative-config")) {
    nlohmann::json sc;
    try {
      sc = nlohmann::json::parse(c.f.get("--speculative-config"));
    } catch (const nlohmann::json::exception&) {
      throw InputError::value("--speculative-config", c.f.get("--speculative-config").substr(0, 60), "a JSON object such as {\"method\": \"mtp\", \"num_speculative_tokens\": 1}");
    }
    if (!sc.is_object()) throw InputError::value("--speculative-config", c.f.get("--speculative-config").substr(0, 60), "a JSON object");
    const std::string method = sc.contains("method") && sc["method"].is_string() ? sc["method"].get<std::string>() : "";
    if (sc.contains("num_speculative_tokens") && sc["num_speculative_tokens"].is_number_unsigned())
      v.num_speculative_tokens = sc["num_speculative_tokens"].get<std::uint64_t>();
    if (method.find("mtp") != std::string::npos) {
      if (c.wb.mtp == 0) throw InputError::value("--speculative-config method", method, "a model with MTP layers (num_nextn_predict_layers)");
      c.weights_per_gpu = checked_add(c.weights_per_gpu, ceil_div(c.wb.mtp, c.tp));
      draft_layers = 1;
      c.r.notes.push_back("speculative " + method + ": MTP weights " + format_gib(ceil_div(c.wb.mtp, c.tp)) +
                          " per GPU and one draft layer's KV pages (vLLM's MTP proposer)");
    } else if (sc.contains("model") && sc["model"].is_string()) {
      // A draft model (EAGLE head or a small model): its own weights, and its layers' KV in the pool.
      const ModelSpec draft = load_model(sc["model"].get<std::string>());
      if (const WeightBytes dw = weight_bytes(draft); !dw.unknown.empty())
        throw InputError::unknown_weights(draft.name + " (the speculative draft model)", dw.unknown, "--weights");
      c.weights_per_gpu = checked_add(c.weights_per_gpu, ceil_div(weight_bytes(draft).total, c.tp));
      draft_layers = method.find("eagle") != std::string::npos ? 1 : draft.layers.size();
      c.r.notes.push_back("speculative draft " + draft.name + ": weights " + format_gib(ceil_div(weight_bytes(draft).total, c.tp)) +
                          " per GPU and " + format_count(draft_layers, "draft layer") + " of KV pages, counted at the target's page size");
    } else if (!method.empty() && method != "ngram" && method != "suffix") {
      throw InputError::value("--speculative-config", c.f.get("--speculative-config").substr(0, 60),
                              "a \"model\" for the draft (EAGLE/EAGLE-3/draft model), or an MTP or ngram method");
    }
  }
  return draft_layers;
}

// vLLM keeps --cpu-offload-gb GiB of each GPU's weights in host memory
// (vllm/model_executor/models/utils.py maybe_offload_to_cpu: cpu_offload_gb * 1024**3 bytes).
void vllm_cpu_offload(CheckContext& c) {
  if (!c.f.has("--cpu-offload-gb")) return;
  const double gb = plain_float(c.f.get("--cpu-offload-gb"), "--cpu-offload-gb");
  if (!(gb >= 0) || !(gb < 1.0e9)) throw InputError::value("--cpu-offload-gb", c.f.get("--cpu-offload-gb"), "a non-negative number of GiB");
  const auto off = static_cast<std::uint64_t>(gb * static_cast<double>(GiB));
  c.r.notes.push_back("--cpu-offload-gb: " + format_gib(std::min(off, c.weights_per_gpu)) + " of each GPU's weights stay in host memory");
  c.weights_per_gpu = off >= c.weights_per_gpu ? 0 : c.weights_per_gpu - off;
}

// --enable-lora: vLLM preallocates max_loras adapter slots of rank max_lora_rank on the GPU for
// every linear layer (vllm/lora/layers: lora_a_stacked / lora_b_stacked, in the model dtype):
// r x (in + out) per module; per layer q, k, v, o, gate, up, down sum to 7h + 2 q_dim + 2 kv_dim
// + 3 I with q_dim, kv_dim <= h. Band: kv_dim 0 and split over tp .. kv_dim = h, not split.
// --max-cpu-loras are host memory.
void vllm_lora_term(CheckContext& c) {
  const std::uint64_t loras = positive(int_flag(c.f, "--max-loras", 1), "--max-loras");
  const std::uint64_t rank = positive(int_flag(c.f, "--max-lora-rank", 16), "--max-lora-rank");
  const std::uint64_t h = c.m.dims.hidden_size, inter = std::max(c.m.dims.intermediate_size, c.m.dims.moe_intermediate_size);
  const std::uint64_t per = checked_product({loras, rank, row_bytes(c.m.dtype, 1024) / 1024, c.m.num_layers()}, "LoRA bytes");
  const std::uint64_t low = ceil_div(checked_mul(per, checked_add(checked_mul(9, h), checked_mul(3, inter))), checked_mul(c.tp, c.pp, kTpPp));
  const std::uint64_t high = checked_mul(per, checked_add(checked_mul(11, h), checked_mul(3, inter)));
  c.budget.terms.push_back({"LoRA adapter slots", low, high, "estimate",
                            "vllm/lora/layers BaseLinearLayerWithLoRA.create_lora_weights (max_loras x max_lora_rank)"});
  if (c.m.dims.num_experts) c.r.notes.push_back("LoRA on routed experts is not counted (dense modules only)");
}

// What runs outside the --gpu-memory-utilization budget: the CUDA context created before the
// profile's baseline (0.42 GiB on an RTX 3090: TheBuccaneer/vllm-offload-profiles, the sampler
// OOM log), CUDA graphs where they are captured after the KV cache (before 0.21), V1's sampler
// warm-up after the KV cache (gpu_worker.compile_or_warm_up_model -> _dummy_sampler_run with
// max_num_seqs requests: logits, probabilities and the top-k/top-p sort, up to 6 x seqs x vocab x
// 4 B; the profiled activation share of the budget is free by then), and other processes on the
// device.
VllmHeadroom vllm_outside_budget(CheckContext& c, const VllmOptions& v) {
  const bool graphs_outside = c.bin.vllm_version != VllmBudgetVersion::v1_graphs && !c.bin.enforce_eager;
  const std::uint64_t warmup = c.bin.vllm_version == VllmBudgetVersion::v0 ? 0
                               : checked_product({6, c.bin.sampler_seqs, c.m.dims.vocab_size, 4}, "sampler warm-up");
  const BudgetTerm* act = c.budget.find("activation peak");
  const std::uint64_t act_low = act ? act->low : 0;
  // The graphs' size where the log states it ("Estimated CUDA graph memory", "CUDA graph pool
  // memory: X GiB (actual)"), else 0.06-3 GiB (2.44 GiB actual for Qwen3-8B, dariustanrd/tokenkaki).
  const ByteBand graphs = !graphs_outside                            ? ByteBand{0, 0}
                          : c.logf && c.logf->cudagraph_actual_bytes ? *c.logf->cudagraph_actual_bytes
                          : c.logf && c.logf->cudagraph_bytes        ? *c.logf->cudagraph_bytes
                                                                     : ByteBand{64 * MiB, 3 * GiB};
  VllmHeadroom h;
  h.utilization = v.gpu_memory_utilization;
  h.need = ByteBand{checked_add(256 * MiB, graphs.low),
                    checked_add(checked_add(768 * MiB, graphs.high),
                                checked_add(warmup > act_low ? warmup - act_low : 0, c.others.high), "headroom")};
  h.what = std::string("the CUDA context (0.25 GiB to 0.75 GiB)") + (graphs_outside ? ", CUDA graphs captured after the KV cache (" +
                                   (graphs.low == graphs.high ? format_gib(graphs.high) : format_gib(graphs.low) + " to " + format_gib(graphs.high)) + ")"
                             : "") +
           (warmup ? ", the sampler warm-up (" + format_count(c.bin.sampler_seqs, "request") + ")" : "") +
           (c.others.high ? ", " + c.others.basis : "");
  return h;
}

// What the evaluation at each end of the band takes from the launch.
struct VllmPlan {
  VllmOptions v;
  bool auto_fit = false;             // --max-model-len -1 / auto
  std::uint64_t draft_layers = 0;    // speculative draft layers in the pool
  std::uint64_t max_num_seqs = 0;    // --max-num-seqs (0: not given)
  bool others_in_budget = false;     // this vLLM's profiler counts other processes as non-torch
  bool free_check = false;           // this vLLM refuses to start short of utilization x total free
};

// vllm_profile at one end of the band: the budget's terms as the profile's inputs, the engine
// log's figures where given, the draft's share of the pool, --max-model-len -1's search, and the
// start-up refusal when other processes leave too little free memory.
BandOutcome vllm_at(CheckContext& c, const VllmPlan& p, bool fav) {
  VllmOptions x = p.v;
  x.gpu_memory_bytes = c.device_at(fav);
  x.weights_bytes = checked_add(c.term_at("weights", fav), c.term_at("LoRA adapter slots", fav));
  x.activation_peak_bytes = c.term_at("activation peak", fav);
  x.non_torch_bytes = checked_add(c.term_at(c.budget.terms.size() > 2 ? c.budget.terms[2].name : "", fav), c.term_at("other processes", fav));
  x.cudagraph_bytes = c.term_at("CUDA graphs", fav);
  if (c.logf && c.logf->available_kv_bytes && !x.kv_cache_memory_bytes) x.available_kv_bytes = fav ? c.logf->available_kv_bytes->high : c.logf->available_kv_bytes->low;
  if (c.logf && c.logf->gpu_blocks) x.num_gpu_blocks_override = c.logf->gpu_blocks;  // the exact count beats the rounded GiB
  // A log with only "GPU KV cache size: N tokens" (no KV memory line): the block count that
  // logs N tokens in kvplan's layout, used only if sizing with it gives back exactly N.
  std::optional<std::uint64_t> from_tokens;
  if (c.logf && c.logf->vllm_kv_tokens && !c.logf->gpu_blocks && !c.logf->available_kv_bytes) {
    const VllmResult probe = vllm_profile(c.m, x);
    if (probe.block_size && probe.num_groups && *c.logf->vllm_kv_tokens % probe.block_size == 0)
      x.num_gpu_blocks_override = from_tokens = checked_mul(*c.logf->vllm_kv_tokens / probe.block_size, probe.num_groups);
  }
  VllmResult e = vllm_profile(c.m, x);
  if (c.logf && c.logf->vllm_kv_tokens && !c.logf->gpu_blocks && !c.logf->available_kv_bytes && (!from_tokens || e.kv_cache_tokens != *c.logf->vllm_kv_tokens))
    throw InputError::value(c.o.engine_log_source + " (--engine-log)", "GPU KV cache size: " + format_count(*c.logf->vllm_kv_tokens) + " tokens",
                            "a token count kvplan's block layout for this model gives (whole blocks of " +
                                std::to_string(e.block_size) + " tokens per group); add the log's \"Available KV cache memory\" line");
  if (p.draft_layers && !x.num_gpu_blocks_override && e.budget_bytes > 0 && c.m.num_layers() > 0) {
    // The draft's layers take pages from the same pool: the target keeps L / (L + d) of it.
    const std::uint64_t pool = x.available_kv_bytes ? *x.available_kv_bytes : x.kv_cache_memory_bytes ? *x.kv_cache_memory_bytes
                                                                           : static_cast<std::uint64_t>(e.budget_bytes);
    x.available_kv_bytes = pool / (c.m.num_layers() + p.draft_layers) * c.m.num_layers();
    x.kv_cache_memory_bytes.reset();
    e = vllm_profile(c.m, x);
  }
  if (p.auto_fit && !e.starts && e.max_fitting_len > 0) {
    // --max-model-len -1: vLLM searches the largest length that fits and starts with it.
    const std::uint64_t from = e.max_model_len;
    x.max_model_len = e.max_fitting_len;
    e = vllm_profile(c.m, x);
    e.log_lines.insert(e.log_lines.begin(), "Auto-fit max_model_len: reduced from " + std::to_string(from) + " to " +
                                                std::to_string(x.max_model_len));
  }
  BandOutcome out;
  out.starts = e.starts;
  out.kv_memory = x.available_kv_bytes || x.kv_cache_memory_bytes ? static_cast<std::int64_t>(e.available_kv_bytes)
                  : from_tokens && e.page_bytes ? static_cast<std::int64_t>(checked_product({e.num_blocks, e.page_bytes, e.group_size}))
                                : e.budget_bytes;
  out.kv_tokens = e.kv_cache_tokens;
  out.context = e.max_model_len;
  out.max_concurrency = e.max_concurrency;
  out.max_fitting_context = e.max_fitting_len;
  out.request_bytes = e.request_bytes;
  const std::uint64_t usable = static_cast<std::uint64_t>(std::ceil(x.gpu_memory_utilization * static_cast<double>(x.gpu_memory_bytes)));
  out.weights_exceed = !x.available_kv_bytes && !x.kv_cache_memory_bytes && x.weights_bytes >= usable;
  out.error = e.error;
  out.log_lines = e.log_lines;
  out.notes = e.notes;
  if (p.others_in_budget && !out.starts)
    out.error += (out.error.empty() ? "" : "; ") + std::string("other processes hold ") + format_gib(c.others.high) +
                 " (--gpu-used), which this vLLM's profiler counts as its own non-torch memory (V1 before PR #19312)";
  if (p.free_check) {
    // gpu_worker.py init_device: the snapshot after the CUDA context and NCCL must show at
    // least requested_memory = total x utilization free, whatever the KV cache would get.
    const std::uint64_t context = c.typical_point ? 512 * MiB : fav ? 256 * MiB : 768 * MiB;
    const std::uint64_t held = checked_add(c.others.high, context);
    const std::uint64_t free = x.gpu_memory_bytes > held ? x.gpu_memory_bytes - held : 0;
    if (static_cast<double>(free) < static_cast<double>(usable)) {
      out.starts = false;
      out.weights_exceed = false;
      out.error = "other processes hold " + format_gib(c.others.high) + " (--gpu-used): free memory on device (" + format_gib(free) + "/" +
                  format_gib(x.gpu_memory_bytes) + " with the CUDA context) on startup is less than desired GPU memory utilization (" +
                  format_fixed(x.gpu_memory_utilization, 2) + ", " + format_gib(usable) + ")";
      out.log_lines.push_back("ValueError: Free memory on device (" + format_fixed(static_cast<double>(free) / static_cast<double>(GiB), 2) + "/" +
                              format_fixed(static_cast<double>(x.gpu_memory_bytes) / static_cast<double>(GiB), 2) +
                              " GiB) on startup is less than desired GPU memory utilization (" + format_fixed(x.gpu_memory_utilization, 2) +
                              ", " + format_fixed(static_cast<double>(usable) / static_cast<double>(GiB), 2) +
                              " GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.");
    }
  }
  if (p.max_num_seqs) cap_concurrency(out, p.max_num_seqs, "--max-num-seqs");
  out.engine_result = std::move(e);
  return out;
}

}  // namespace

bool evaluate_vllm(CheckContext& c) {
  // The command's flags as vLLM reads them (read_vllm_launch; kvplan simulate reads the same).
  const VllmLaunch launch = vllm_launch(c.f, c.m, c.acc);
  VllmOptions v = launch.options;
  v.auto_kv_follows_checkpoint = vllm_auto_kv_follows_checkpoint(c.o.engine_version);
  c.tp = v.tensor_parallel_size;
  c.pp = v.pipeline_parallel_size;
  c.dp = launch.data_parallel_size;
  const bool auto_fit = launch.max_model_len_auto;
  if (c.refused(v.max_model_len)) return false;
  for (const auto& n : launch.notes) c.r.notes.push_back(n);
  note_encoder_profiling(c);
  vllm_weights_per_gpu(c);
  const std::uint64_t draft_layers = vllm_speculative(c, v);
  vllm_cpu_offload(c);
  c.bin.weights_bytes = c.weights_per_gpu;
  c.bin.tp = c.tp;
  c.bin.max_num_batched_tokens = v.max_num_batched_tokens;
  if (c.bin.vllm_version == VllmBudgetVersion::v0 && !c.f.has("--max-num-batched-tokens")) {
    // V0's SchedulerConfig: without chunked prefill the profile batch is max(max_model_len, 2048)
    // tokens; chunked prefill (on by default past 32K) uses 512 (vllm/config.py, V0).
    const std::uint64_t mml = v.max_model_len ? v.max_model_len : c.m.dims.max_position_embeddings;
    c.bin.max_num_batched_tokens = mml > 32768 ? 512 : std::max<std::uint64_t>(mml, 2048);
  }
  const std::uint64_t max_num_seqs = launch.max_num_seqs;
  // Not given: 256 in V0, vllm serve's GPU default in V1 (1024 on the large cards).
  const std::uint64_t default_seqs = c.bin.vllm_version == VllmBudgetVersion::v0 ? 256 : vllm_serve_batch_defaults(c.acc).max_num_seqs;
  c.bin.sampler_seqs = std::min<std::uint64_t>(max_num_seqs ? max_num_seqs : default_seqs, c.bin.max_num_batched_tokens);
  c.bin.enforce_eager = launch.enforce_eager;
  c.budget = engine_budget(c.m, c.bin);
  // Other processes (--gpu-used), as the version's gpu_worker sees them (budget.h).
  const bool others_in_budget = c.bin.vllm_version != VllmBudgetVersion::v0 && vllm_budget_counts_other_processes(c.o.engine_version);
  const bool free_check = c.o.gpu_used && c.bin.vllm_version != VllmBudgetVersion::v0 && vllm_refuses_short_free_memory(c.o.engine_version);
  if (others_in_budget)
    c.push_others("vllm/v1/worker/gpu_worker.py determine_available_memory before PR #19312 (0.8, 0.9): the device's used memory "
                  "beyond torch's counted as non-torch, other processes included");
  if (bool_flag(c.f, "--enable-lora")) vllm_lora_term(c);
  if (c.logf) {
    c.measured("weights", c.logf->weights_bytes);
    c.measured("CUDA graphs", c.logf->cudagraph_bytes);
    c.measured("activation peak", c.logf->activation_bytes);
    if (c.logf->total_bytes) c.budget.device = *c.logf->total_bytes, c.budget.device_basis = "measured (engine log)";
  }
  if (!v.kv_cache_memory_bytes) c.headroom = vllm_outside_budget(c, v);
  c.evaluate = [&c, p = VllmPlan{v, auto_fit, draft_layers, max_num_seqs, others_in_budget, free_check}](bool fav) {
    return vllm_at(c, p, fav);
  };
  return true;
}

void check_vllm_headroom(CheckContext& c, const BandOutcome& best) {
  if (!c.headroom || !best.starts) return;
  // vLLM allocates the KV cache up to utilization x total; the rest of the device must hold what
  // runs outside that budget, or start-up ends in an out-of-memory error after the KV cache
  // ("CUDA out of memory occurred when warming up sampler", TheBuccaneer/vllm-offload-profiles).
  const VllmHeadroom& h = *c.headroom;
  const double util = h.utilization;
  auto outside = [&](std::uint64_t total) {
    const auto used = static_cast<std::uint64_t>(std::ceil(util * static_cast<double>(total)));
    return total > used ? total - used : 0;
  };
  const std::uint64_t have_worst = outside(c.budget.device.low), have_best = outside(c.budget.device.high);
  const bool ok = have_worst >= h.need.high, ok_best = have_best >= h.need.low;
  if (!ok && c.budget.device.low > h.need.high)
    c.headroom_fix = "--gpu-memory-utilization " +
                     format_fixed(std::floor(100.0 * (1.0 - static_cast<double>(h.need.high) / static_cast<double>(c.budget.device.low))) / 100.0, 2) +
                     " or lower leaves room for what runs outside the budget";
  c.add_check("headroom", ok, ok_best, format_gib(h.need.high) + " outside the budget", format_gib(have_worst),
              ok ? "the " + format_gib(have_worst) + " outside --gpu-memory-utilization holds " + h.what
                 : "the " + format_gib(have_worst) + " left outside --gpu-memory-utilization " + format_fixed(util, 2) + " may not hold " +
                       h.what + ": up to " + format_gib(h.need.high) + " (lower --gpu-memory-utilization, or --max-num-seqs)");
}

}  // namespace detail

}  // namespace kvplan
