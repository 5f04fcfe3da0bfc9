// The simulator's SGLang and llama-server options from a launch command: the engine's own flag
// parser (check/flags*.cpp, the one `kvplan check` reads the command with) gives the flags as
// written; each engine option table entry (kvplan/engine_fields.h) whose flag the command sets
// takes its value, as `kvplan engine` maps its flags. Scheduler-only flags (not memory) are read
// here by their engine names.
#include <algorithm>

#include "deploy/flags.h"
#include "deploy/yaml.h"
#include "kvplan/engine_fields.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/simulate.h"
#include "util/config_view.h"

namespace kvplan {

namespace {

std::vector<std::string> split_flags(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const auto c = s.find(',');
    out.emplace_back(s.substr(0, c));
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

// The flag definition (all its spellings) of a canonical name the parser returned.
const std::vector<std::string>& spellings(EngineKind e, const std::string& canonical) {
  const detail::EngineFlagTable& t = detail::engine_flag_table(e);
  const auto it = t.by_name.find(canonical);
  static const std::vector<std::string> none;
  return it == t.by_name.end() ? none : t.flags[it->second].names;
}

// {field name: value} for every table field one of whose flags the command sets; `skip` lists
// canonical flags read elsewhere.
template <class O>
nlohmann::json table_request(EngineKind e, std::span<const EngineOptionField<O>> table, const detail::ParsedFlags& f,
                             const std::vector<std::string>& skip) {
  nlohmann::json req = nlohmann::json::object();
  for (const auto& [canonical, value] : f.values) {
    if (std::find(skip.begin(), skip.end(), canonical) != skip.end()) continue;
    const auto& names = spellings(e, canonical);
    for (const auto& field : table) {
      const auto flags = split_flags(field.cli_flags);
      const bool hit = std::any_of(flags.begin(), flags.end(), [&](const std::string& x) {
        return std::find(names.begin(), names.end(), x) != names.end();
      });
      if (!hit) continue;
      if (field.type == FieldType::boolean) req[std::string(field.name)] = detail::flag_truthy(value, canonical);
      else req[std::string(field.name)] = value;
    }
  }
  return req;
}

std::string want_engine(const Deployment& d, EngineKind e, std::string_view example) {
  if (d.engine != e)
    throw InputError::value("launch command", std::string(engine_name(d.engine)), std::string(example));
  return {};
}

}  // namespace

SglangSimOptions sglang_sim_options(const Deployment& d) {
  want_engine(d, EngineKind::sglang, "an SGLang command (python -m sglang.launch_server ..., sglang serve ...)");
  const detail::ParsedFlags f = detail::parse_engine_flags(EngineKind::sglang, d.args, d.env, d.base_dir);
  SglangSimOptions out;
  std::vector<std::string> skip = {"--chunked-prefill-size"};
  // The reading check uses (deploy/flags.h): -1 and 0 turn chunked prefill off.
  const auto cp = detail::sglang_chunked_prefill(f);
  if (cp.size) out.options.chunked_prefill_size = *cp.size;
  if (cp.off) out.scheduler.chunked_prefill = false;
  const SglangOptions parsed = sglang_options_from_request(table_request(EngineKind::sglang, sglang_fields(), f, skip),
                                                          FieldNaming::cli_flag);
  const auto chunk = out.options.chunked_prefill_size;
  out.options = parsed;
  out.options.chunked_prefill_size = chunk;
  if (f.has("--schedule-conservativeness")) {
    out.scheduler.schedule_conservativeness = detail::plain_float(f.get("--schedule-conservativeness"), "--schedule-conservativeness");
    if (!(out.scheduler.schedule_conservativeness >= 0))
      throw InputError::value("--schedule-conservativeness", f.get("--schedule-conservativeness"), "a non-negative number");
  }
  if (f.has("--max-prefill-tokens")) {
    out.scheduler.max_prefill_tokens = detail::plain_uint(f.get("--max-prefill-tokens"), "--max-prefill-tokens");
    if (out.scheduler.max_prefill_tokens == 0) throw InputError::value("--max-prefill-tokens", "0", "a positive integer");
  }
  if (f.has("--schedule-policy")) out.scheduler.schedule_policy = f.get("--schedule-policy");  // refused unless fcfs
  // ServerArgs.enable_priority_scheduling: the waiting queue by each request's priority, and
  // preemption of lower-priority running requests -- not in the simulated scheduler.
  if (f.has("--enable-priority-scheduling") && detail::flag_truthy(f.get("--enable-priority-scheduling"), "--enable-priority-scheduling"))
    throw InputError::value("--enable-priority-scheduling", "on", "priority scheduling off (kvplan simulate does not simulate SGLang's)");
  if (f.has("--enable-mixed-chunk") && detail::flag_truthy(f.get("--enable-mixed-chunk"), "--enable-mixed-chunk"))
    out.notes.push_back("--enable-mixed-chunk is not simulated: prefill and decode run as separate batches");
  return out;
}

LlamaServerSimOptions llamacpp_sim_options(const Deployment& d) {
  want_engine(d, EngineKind::llamacpp, "a llama-server command");
  const detail::ParsedFlags f = detail::parse_engine_flags(EngineKind::llamacpp, d.args, d.env, d.base_dir);
  LlamaServerSimOptions out;
  std::vector<std::string> skip = {"-np", "--parallel", "-fa", "--flash-attn"};
  for (const auto& [canonical, value] : f.values) {
    const auto& names = spellings(EngineKind::llamacpp, canonical);
    const bool is = [&](std::initializer_list<const char*> want) {
      return std::any_of(want.begin(), want.end(), [&](const char* w) { return std::find(names.begin(), names.end(), w) != names.end(); });
    }({"--parallel", "--flash-attn", "--slot-prompt-similarity", "--context-shift", "--cache-reuse"});
    if (is) skip.push_back(canonical);
  }
  LlamaCppOptions o = llamacpp_options_from_request(table_request(EngineKind::llamacpp, llamacpp_fields(), f, skip),
                                                    FieldNaming::cli_flag);
  for (const auto& [canonical, value] : f.values) {
    const auto& names = spellings(EngineKind::llamacpp, canonical);
    auto named = [&](const char* w) { return std::find(names.begin(), names.end(), w) != names.end(); };
    if (named("--parallel")) {
      // -np -1 is "auto" (the server's default slots); 0 and below -1 are refused.
      const std::int64_t n = detail::plain_int(value, "--parallel");
      if (n == 0 || n < -1) throw InputError::value("--parallel", value, "a positive number of slots, or -1 (auto)");
      if (n > 0) o.parallel = static_cast<std::uint64_t>(n);
    } else if (named("--flash-attn")) {
      o.flash_attn = value == "true" ? "on" : value;  // the older switch form: -fa alone enables it
    } else if (named("--slot-prompt-similarity")) {
      out.server.slot_prompt_similarity = detail::plain_float(value, "--slot-prompt-similarity");
      if (!(out.server.slot_prompt_similarity >= 0 && out.server.slot_prompt_similarity <= 1))
        throw InputError::value("--slot-prompt-similarity", value, "a fraction in [0, 1]");
    } else if (named("--context-shift") && detail::flag_truthy(value, canonical)) {
      throw InputError::value("--context-shift", value, "context shifting off (kvplan simulate does not simulate shifting)");
    } else if (named("--cache-reuse") && detail::plain_uint(value, "--cache-reuse") > 0) {
      out.notes.push_back("--cache-reuse " + value + ": chunk reuse beyond the common prefix never applies to the simulated "
                          "token content (shared prefixes and session histories), so it changes nothing here");
    }
  }
  out.options = o;
  return out;
}

// trtllm-serve's pool settings as kvplan check reads them (read_trtllm_launch: its flags and the
// --extra_llm_api_options keys the pool depends on; prepare_simulation proves the pool is check's),
// plus the scheduler settings the engine profile does not hold (tensorrt_llm/commands/serve.py,
// tensorrt_llm/llmapi/llm_args.py: enable_chunked_prefill, SchedulerConfig.capacity_scheduler_policy)
// from the same flags and YAML mapping.
TrtllmSimOptions trtllm_sim_options(const Deployment& d) {
  want_engine(d, EngineKind::trtllm, "a trtllm-serve command");
  const TrtllmLaunch launch = read_trtllm_launch(d);
  TrtllmSimOptions out;
  out.options = launch.options;
  out.scheduler.max_num_tokens = launch.max_num_tokens;
  const detail::ParsedFlags f = detail::parse_engine_flags(EngineKind::trtllm, d.args, d.env, d.base_dir);
  if (f.has("--enable_chunked_prefill"))
    out.scheduler.enable_chunked_context = detail::flag_truthy(f.get("--enable_chunked_prefill"), "--enable_chunked_prefill");
  if (launch.extra.is_null()) return out;
  const std::string& path = launch.extra_path;
  const nlohmann::json& y = launch.extra;
  auto bool_of = [&](const nlohmann::json& v, const std::string& ptr) {
    if (!v.is_boolean()) throw ConfigError::field(path, ptr, "true or false", detail::describe_json(v), "");
    return v.get<bool>();
  };
  if (y.contains("enable_chunked_prefill"))
    out.scheduler.enable_chunked_context = bool_of(y["enable_chunked_prefill"], "/enable_chunked_prefill");
  // KvCacheConfig (tensorrt_llm/llmapi/llm_args.py): enable_block_reuse, enable_partial_reuse and
  // copy_on_partial_reuse, each True by default, are simulated (trtllm_block_manager.h).
  if (y.contains("kv_cache_config") && y["kv_cache_config"].is_object()) {
    const nlohmann::json& kv = y["kv_cache_config"];
    auto read = [&](const char* key, bool& into) {
      if (kv.contains(key)) into = bool_of(kv[key], std::string("/kv_cache_config/") + key);
    };
    read("enable_block_reuse", out.scheduler.enable_block_reuse);
    read("enable_partial_reuse", out.scheduler.enable_partial_reuse);
    read("copy_on_partial_reuse", out.scheduler.copy_on_partial_reuse);
    // host_cache_size: evicted reusable blocks go to a host pool and come back on a hit
    // (WindowBlockManager::getFreeBlock offload / onboardBlock); kvplan evicts them for good.
    if (out.scheduler.enable_block_reuse && kv.contains("host_cache_size") && !kv["host_cache_size"].is_null() &&
        !(kv["host_cache_size"].is_number_unsigned() && kv["host_cache_size"].get<std::uint64_t>() == 0))
      throw ConfigError::field(path, "/kv_cache_config/host_cache_size", "0 or unset (host offloading of reusable blocks is not simulated)",
                               detail::describe_json(kv["host_cache_size"]), "");
  }
  if (y.contains("scheduler_config") && y["scheduler_config"].is_object() && y["scheduler_config"].contains("context_chunking_policy")) {
    const nlohmann::json& v = y["scheduler_config"]["context_chunking_policy"];
    const std::string ptr = "/scheduler_config/context_chunking_policy";
    if (v == "FIRST_COME_FIRST_SERVED") out.scheduler.context_chunking = TrtllmSchedulerOptions::ContextChunking::first_come_first_served;
    else if (v == "EQUAL_PROGRESS") out.scheduler.context_chunking = TrtllmSchedulerOptions::ContextChunking::equal_progress;
    else throw ConfigError::field(path, ptr, "FIRST_COME_FIRST_SERVED or EQUAL_PROGRESS", detail::describe_json(v), "");
  }
  if (y.contains("scheduler_config") && y["scheduler_config"].is_object() && y["scheduler_config"].contains("capacity_scheduler_policy")) {
    const nlohmann::json& v = y["scheduler_config"]["capacity_scheduler_policy"];
    const std::string ptr = "/scheduler_config/capacity_scheduler_policy";
    auto bad = [&](const char* expected) { return ConfigError::field(path, ptr, expected, detail::describe_json(v), ""); };
    if (!v.is_string()) throw bad("GUARANTEED_NO_EVICT or MAX_UTILIZATION");
    const std::string p = v.get<std::string>();
    if (p == "GUARANTEED_NO_EVICT") out.scheduler.policy = TrtllmCapacityPolicy::guaranteed_no_evict;
    else if (p == "MAX_UTILIZATION") out.scheduler.policy = TrtllmCapacityPolicy::max_utilization;
    else throw bad("GUARANTEED_NO_EVICT or MAX_UTILIZATION (the policies simulated)");
  }
  return out;
}

namespace {

// A flag check cannot count in memory (its "modelled" requirement) leaves the pool unproven, and
// what such flags do (draft models, adapters, beams) the simulator does not do either.
void refuse_unmodelled(const CheckResult& cr) {
  for (const CheckRequirement& c : cr.checks)
    if (c.name == "modelled" && !c.ok)
      throw InputError::value(c.actual, "not modelled by kvplan check",
                              "settings kvplan models (kvplan simulate runs only on a pool kvplan check proves, and does "
                              "not simulate what these change)");
}

// vLLM settings that change what the scheduler does but that the simulated V1 scheduler does
// not hold: each is an error naming it, not a run that silently behaves as if it were unset.
// Returns what the run should say about settings it takes as they are.
std::vector<std::string> refuse_unsimulated_vllm_flags(const Deployment& d) {
  const detail::ParsedFlags f = detail::parse_engine_flags(EngineKind::vllm, d.args, d.env, d.base_dir);
  auto refuse = [&](const char* flag, const char* expected) {
    throw InputError::value(flag, bounded_echo(f.get(flag), 80), std::string(expected) + " (kvplan simulate does not simulate it)");
  };
  // Overlapped scheduling: the next step is scheduled before the last one's tokens are back
  // (SchedulerConfig.async_scheduling, vllm/v1/core/sched/async_scheduler.py).
  if (f.has("--async-scheduling") && detail::flag_truthy(f.get("--async-scheduling"), "--async-scheduling"))
    refuse("--async-scheduling", "synchronous scheduling (--no-async-scheduling)");
  // Draft tokens per step and their acceptance.
  if (f.has("--speculative-config")) refuse("--speculative-config", "no speculative decoding");
  // Concurrent partial prefills (SchedulerConfig.max_num_partial_prefills, default 1).
  if (f.has("--max-num-partial-prefills") && detail::plain_uint(f.get("--max-num-partial-prefills"), "--max-num-partial-prefills") > 1)
    refuse("--max-num-partial-prefills", "1 (one partial prefill at a time)");
  if (f.has("--num-lookahead-slots") && detail::plain_uint(f.get("--num-lookahead-slots"), "--num-lookahead-slots") > 0)
    refuse("--num-lookahead-slots", "0 (no lookahead slots)");
  if (f.has("--scheduler-cls") && f.get("--scheduler-cls") != "vllm.v1.core.sched.scheduler.Scheduler")
    refuse("--scheduler-cls", "vLLM's own scheduler (vllm.v1.core.sched.scheduler.Scheduler)");
  std::vector<std::string> notes;
  // Adapters cost memory (check's pool holds it); a trace row names no adapter, so every request
  // runs on the base model and --max-loras never limits a batch.
  if (f.has("--enable-lora") && detail::flag_truthy(f.get("--enable-lora"), "--enable-lora"))
    notes.push_back("--enable-lora: the pool leaves room for the adapters; no trace row names one, so every request "
                    "runs on the base model (the --max-loras limit per batch never applies)");
  return notes;
}

// A `vllm serve` command, as cmd_simulate.cpp's prepare_vllm reads its launch-command form:
// read_vllm_launch, vllm serve's batch defaults for the GPU, kvplan check's memory budget, and
// the simulated pool proven to be the block count check reports.
SimDeployment prepare_vllm_simulation(Deployment d, CheckOptions co, const LoadOptions& lo) {
  SimDeployment p;
  const Accelerator& gpu = co.device ? *co.device : find_accelerator(co.gpu);
  const VllmBatchDefaults def = vllm_serve_batch_defaults(gpu);
  p.notes = refuse_unsimulated_vllm_flags(d);
  VllmLaunch launch = read_vllm_launch(d, gpu, lo);
  if (!launch.max_num_batched_tokens_given) {
    // vllm serve's own default for this GPU (check's profile would assume 8192).
    d.args.insert(d.args.end(), {"--max-num-batched-tokens", std::to_string(def.max_num_batched_tokens)});
    launch.options.max_num_batched_tokens = def.max_num_batched_tokens;
  }
  p.check = check_deployment(d, co);
  p.deployment = d;
  const CheckResult& cr = p.check;
  refuse_unmodelled(cr);
  if (!cr.starts)
    throw InputError::value("vLLM settings", cr.reasons.empty() ? "does not start" : cr.reasons.front(), "settings with which vLLM starts");
  p.model = launch.model;
  SimOptions& so = p.options;
  so.engine_kind = EngineKind::vllm;
  VllmOptions& v = so.engine;
  v = launch.options;
  v.max_model_len = cr.context;             // check resolves --max-model-len auto
  v.available_kv_bytes = cr.kv_budget_bytes;  // check's budget wins over the utilization
  const VllmResult prof = vllm_profile(p.model, v);
  if (const auto* checked = std::get_if<VllmResult>(&cr.engine_result); checked && checked->num_blocks != prof.num_blocks)
    throw Error("kvplan simulate: internal error: the simulated block count " + std::to_string(prof.num_blocks) +
                " differs from kvplan check's " + std::to_string(checked->num_blocks));
  so.scheduler.max_num_seqs = launch.max_num_seqs ? launch.max_num_seqs : def.max_num_seqs;
  so.scheduler.long_prefill_token_threshold = launch.long_prefill_token_threshold;
  so.scheduler.chunked_prefill = launch.chunked_prefill;
  so.scheduler.reserve_full_isl = launch.reserve_full_isl;
  so.scheduler.policy = launch.priority_scheduling ? SimSchedulerOptions::Policy::priority : SimSchedulerOptions::Policy::fcfs;
  p.gpus = v.tensor_parallel_size * v.pipeline_parallel_size;
  return p;
}

}  // namespace

SimDeployment prepare_simulation(const Deployment& d, const CheckOptions& co, const LoadOptions& lo) {
  if (d.engine == EngineKind::vllm) return prepare_vllm_simulation(d, co, lo);
  SimDeployment p;
  p.deployment = d;
  p.check = check_deployment(d, co);
  const CheckResult& cr = p.check;
  refuse_unmodelled(cr);
  const std::string pretty = d.engine == EngineKind::sglang ? "SGLang" : d.engine == EngineKind::trtllm ? "TensorRT-LLM" : "llama.cpp";
  if (!cr.starts)
    throw InputError::value(pretty + " settings", cr.reasons.empty() ? "does not start" : cr.reasons.front(),
                            "settings with which " + pretty + " starts on " + cr.gpu);
  p.model = load_model(cr.model_ref, lo);
  SimOptions& so = p.options;
  so.engine_kind = d.engine;
  if (d.engine == EngineKind::sglang) {
    SglangSimOptions s = sglang_sim_options(d);
    const auto* checked = std::get_if<SglangResult>(&cr.engine_result);
    if (!checked) throw Error("kvplan simulate: internal error: kvplan check gave no SGLang profile");
    so.sglang = s.options;
    so.sglang_scheduler = s.scheduler;
    so.sglang.blackwell = co.device ? is_blackwell(*co.device) : is_blackwell(find_accelerator(cr.gpu));
    so.sglang.gpu_memory_bytes = cr.device_low_bytes;  // check's unfavourable end (the default chunk and graph sizes)
    so.sglang.rest_bytes = checked->rest_bytes;        // check's KV budget after weights
    const SglangResult prof = sglang_profile(p.model, so.sglang);
    if (prof.max_total_num_tokens != checked->max_total_num_tokens || prof.page_size != checked->page_size ||
        prof.max_running_requests != checked->max_running_requests || prof.chunked_prefill_size != checked->chunked_prefill_size)
      throw Error("kvplan simulate: internal error: the simulated SGLang pool (" + std::to_string(prof.max_total_num_tokens) +
                  " tokens) differs from kvplan check's (" + std::to_string(checked->max_total_num_tokens) + ")");
    p.notes = s.notes;
    p.gpus = so.sglang.tp_size * so.sglang.pp_size;
  } else if (d.engine == EngineKind::trtllm) {
    TrtllmSimOptions t = trtllm_sim_options(d);
    const auto* checked = std::get_if<TrtllmResult>(&cr.engine_result);
    if (!checked) throw Error("kvplan simulate: internal error: kvplan check gave no TensorRT-LLM profile");
    so.trtllm = t.options;
    so.trtllm_scheduler = t.scheduler;
    // Attention DP (enable_attention_dp in --extra_llm_api_options / --config) gives every rank its
    // own requests, batch and KV pool (check sizes one rank's); one simulated scheduler over one
    // pool would be neither, so it is refused, not run as if it were off (issue 30).
    if (so.trtllm.enable_attention_dp)
      throw InputError::value("enable_attention_dp", "true",
                              "false (kvplan simulate runs one scheduler; attention DP runs one per rank, which it does "
                              "not simulate)");
    so.trtllm.kv_memory_bytes = checked->kv_memory_bytes;  // check's budget at its unfavourable end
    const TrtllmResult prof = trtllm_profile(p.model, so.trtllm);
    if (prof.blocks != checked->blocks || prof.max_seq_len != checked->max_seq_len || prof.bytes_per_token != checked->bytes_per_token)
      throw Error("kvplan simulate: internal error: the simulated TensorRT-LLM pool (" + std::to_string(prof.blocks) +
                  " blocks) differs from kvplan check's (" + std::to_string(checked->blocks) + ")");
    p.notes = t.notes;
    p.gpus = cr.gpus ? cr.gpus : so.trtllm.tp_size * so.trtllm.pp_size;
  } else {
    LlamaServerSimOptions l = llamacpp_sim_options(d);
    const auto* checked = std::get_if<LlamaCppResult>(&cr.engine_result);
    if (!checked) throw Error("kvplan simulate: internal error: kvplan check gave no llama.cpp profile");
    so.llamacpp = l.options;
    so.llama_server = l.server;
    const LlamaCppResult prof = llamacpp_profile(p.model, so.llamacpp);
    if (prof.n_ctx != checked->n_ctx || prof.n_seq_max != checked->n_seq_max || prof.n_ctx_seq != checked->n_ctx_seq)
      throw Error("kvplan simulate: internal error: the simulated llama.cpp context (" + std::to_string(prof.n_ctx) +
                  " cells) differs from kvplan check's (" + std::to_string(checked->n_ctx) + ")");
    p.notes = l.notes;
    p.gpus = cr.gpus ? cr.gpus : 1;
  }
  return p;
}

}  // namespace kvplan
